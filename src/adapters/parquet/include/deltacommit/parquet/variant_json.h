// Variant values (Delta's `variant` type, stored as Parquet's Variant
// binary encoding: a `metadata` dictionary and a self-describing `value`)
// as JSON text, which is how `query` shows them: objects (keys in the
// encoding's sorted order), arrays, strings, booleans, null and numbers
// (decimals with every digit); dates, times, timestamps (UTC, "+00:00"),
// UUIDs and binary (base64) as JSON strings; NaN and infinities as the
// strings "NaN", "Infinity", "-Infinity".
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit {

// The JSON text of the variant (`value`, `metadata`). kInvalidArgument
// naming what is malformed: a header, an offset or a length past the end,
// a field id outside the dictionary, a string that is not UTF-8, an unknown
// type, nesting deeper than 256, more than 64 MiB of JSON (values sharing
// bytes can make a small variant decode to exponentially more).
StatusOr<std::string> VariantToJson(std::string_view value, std::string_view metadata);

}  // namespace deltacommit
