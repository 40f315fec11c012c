// Fuzz target: a deletion vector as a table's log or DV file holds it: the
// RoaringBitmapArray (DecodeRoaringBitmapArray, src/table/deletion_vectors.cc,
// portable and native formats, through CRoaring) and Z85 text (Z85Decode),
// which `query` and `delete` read for every file with a DV.
//
// Input: a 1-byte cardinality bound, then the bytes.
//
// Invariants: a refusal is kInvalidArgument, never an exception or a crash;
// rows come back only when their count is the stated cardinality, strictly
// ascending; rows encoded again (EncodeRoaringBitmapArray) decode to the
// same rows; Z85 text that decodes encodes back to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/table/deletion_vectors.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltacommit;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  // Small cardinalities, so that an accepted bitmap lists few rows.
  const int64_t cardinality = static_cast<unsigned char>(input[0]);
  const std::string_view bytes = input.substr(1);
  StatusOr<std::vector<uint64_t>> rows = DecodeRoaringBitmapArray(bytes, cardinality);
  if (rows.ok()) {
    FUZZ_CHECK(static_cast<int64_t>(rows->size()) == cardinality);
    for (size_t i = 1; i < rows->size(); ++i) FUZZ_CHECK((*rows)[i - 1] < (*rows)[i]);
    const std::string encoded = EncodeRoaringBitmapArray(*rows);
    StatusOr<std::vector<uint64_t>> again = DecodeRoaringBitmapArray(encoded, cardinality);
    FUZZ_CHECK(again.ok() && *again == *rows);
  } else {
    FUZZ_CHECK(rows.status().code() == StatusCode::kInvalidArgument);
  }
  StatusOr<std::string> z85 = Z85Decode(bytes);
  if (z85.ok()) {
    FUZZ_CHECK(Z85Encode(*z85) == bytes);
  } else {
    FUZZ_CHECK(z85.status().code() == StatusCode::kInvalidArgument);
  }
  return 0;
}
