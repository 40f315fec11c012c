// Fuzz target: a variant's two binaries as a data file holds them
// (VariantToJson, src/adapters/parquet/variant_json.cc), which `query` turns
// into JSON text for every variant cell it reads.
//
// Input: a 2-byte little-endian length, then that many bytes of metadata,
// then the value.
//
// Invariants: a refusal is kInvalidArgument starting "malformed variant: ",
// never an exception, a crash or unbounded recursion; what is accepted is
// valid JSON (nlohmann parses it) of the kind the value's header names: an
// object, an array, a string for a short string.
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
  const nlohmann::json parsed = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!parsed.is_discarded());
  switch (static_cast<unsigned char>(value[0]) & 3) {  // accepted: there is a header
    case 1:
      FUZZ_CHECK(parsed.is_string());
      break;
    case 2:
      FUZZ_CHECK(parsed.is_object());
      break;
    case 3:
      FUZZ_CHECK(parsed.is_array());
      break;
    default:
      break;
  }
  return 0;
}
