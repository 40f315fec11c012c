// Fuzz target: a variant's two binaries as a data file holds them
// (VariantToJson, src/adapters/parquet/variant_json.cc), which `query` turns
// into JSON text for every variant cell it reads.
//
// Input: a 2-byte little-endian length, then that many bytes of metadata,
// then the value.
//
// Invariants: a refusal is kInvalidArgument starting "malformed variant: ",
// never an exception, a crash or unbounded recursion; what is accepted is
// valid JSON (nlohmann parses it) and decoding it again gives the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "deltacommit/parquet/variant_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltacommit;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.size() < 2) return 0;
  const size_t metadata_size = static_cast<unsigned char>(input[0]) |
                               (static_cast<size_t>(static_cast<unsigned char>(input[1])) << 8);
  const std::string_view rest = input.substr(2);
  const std::string_view metadata = rest.substr(0, metadata_size);
  const std::string_view value = rest.substr(metadata.size());
  StatusOr<std::string> json = VariantToJson(value, metadata);
  if (!json.ok()) {
    FUZZ_CHECK(json.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(json.status().message().starts_with("malformed variant: "));
    return 0;
  }
  FUZZ_CHECK(nlohmann::json::accept(*json));
  StatusOr<std::string> again = VariantToJson(value, metadata);
  FUZZ_CHECK(again.ok() && *again == *json);
  return 0;
}
