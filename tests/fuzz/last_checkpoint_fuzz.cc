// Fuzz target: the `_delta_log/_last_checkpoint` hint (ParseLastCheckpoint,
// src/core/last_checkpoint.cc). Invariants: an accepted hint is in the
// documented ranges, and the hint the library writes for it
// (LastCheckpointJson) parses back to the same values.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "deltacommit/checkpoint.h"
#include "deltacommit/core/last_checkpoint.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltacommit;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<LastCheckpoint> hint = ParseLastCheckpoint(text);
  if (!hint.ok()) {
    FUZZ_CHECK(hint.status().code() == StatusCode::kInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(hint->version >= 0);
  FUZZ_CHECK(hint->size >= 0);
  FUZZ_CHECK(!hint->parts || *hint->parts >= 1);
  FUZZ_CHECK(!hint->size_in_bytes || *hint->size_in_bytes >= 0);
  FUZZ_CHECK(!hint->num_of_add_files || *hint->num_of_add_files >= 0);

  CheckpointInfo info;
  info.version = hint->version;
  info.size = hint->size;
  info.parts = hint->parts.value_or(0);
  info.size_in_bytes = hint->size_in_bytes.value_or(0);
  info.num_of_add_files = hint->num_of_add_files.value_or(0);
  StatusOr<LastCheckpoint> reread = ParseLastCheckpoint(LastCheckpointJson(info));
  FUZZ_CHECK(reread.ok());
  FUZZ_CHECK(reread->version == info.version);
  FUZZ_CHECK(reread->size == info.size);
  FUZZ_CHECK(reread->parts.value_or(0) == info.parts);
  FUZZ_CHECK(reread->size_in_bytes.value_or(0) == info.size_in_bytes);
  FUZZ_CHECK(reread->num_of_add_files.value_or(0) == info.num_of_add_files);
  return 0;
}
