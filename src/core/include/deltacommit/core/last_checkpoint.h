// The `_delta_log/_last_checkpoint` hint (PROTOCOL.md "Last Checkpoint
// File"): a JSON object naming a recent checkpoint, so that a reader can list
// the log from that version instead of from 0. It is only a hint: a reader
// checks the checkpoint it names against the listing (snapshot.cc) and
// lists the whole log when it is missing, does not parse, or is stale.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

struct LastCheckpoint {
  Version version = -1;                  // of the checkpoint
  int64_t size = 0;                      // actions in it, all parts
  std::optional<int32_t> parts;          // multi-part: the number of parts
  std::optional<int64_t> size_in_bytes;  // of its file(s)
  std::optional<int64_t> num_of_add_files;
};

// Parses the content of `_last_checkpoint`. Strict about the fields it
// knows: "version" (an integer >= 0) and "size" (>= 0) are required;
// "parts" (>= 1), "sizeInBytes" and "numOfAddFiles" (>= 0) are integers when
// present and not null. Other fields ("checkpointSchema", "checksum",
// "v2Checkpoint", and any a later protocol adds) are accepted and ignored:
// the checksum is not verified, since the listing verifies the hint anyway.
// kInvalidArgument naming the field: not a JSON object, a duplicate key (the
// protocol makes such a file invalid), or a known field of the wrong type
// or range.
StatusOr<LastCheckpoint> ParseLastCheckpoint(std::string_view json);

}  // namespace deltacommit
