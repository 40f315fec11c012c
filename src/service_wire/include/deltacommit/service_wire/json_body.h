// The strict reading of a request body that must be one JSON object, shared
// by every JSON API the service speaks (ours, and Unity Catalog's): one rule
// for what a malformed body is told.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit::service_wire {

// Parses `body`, which must be one JSON object nesting objects and arrays
// at most `max_depth` deep. kInvalidArgument, naming the problem without
// quoting the body (which may hold a secret): not JSON (with the byte
// offset, or "it ends early"), a number out of range, deeper than
// `max_depth` ("no field of <what> does"), a key repeated in one object
// (which a parser would silently resolve to its last value), or a value
// that is not an object. Nesting beyond the limit is not even built, so a
// hostile body cannot make destruction recurse deeply.
StatusOr<nlohmann::json> ParseJsonObject(std::string_view body, int max_depth,
                                         std::string_view what);

// "an integer", "a fraction", "null", "an object", "an array", "a string",
// "a boolean": for messages.
std::string JsonTypeName(const nlohmann::json& value);

// kInvalidArgument: field "<field>" must be <wanted>, not <JsonTypeName>
// (never the value itself).
Status WrongType(std::string_view field, std::string_view wanted, const nlohmann::json& value);

}  // namespace deltacommit::service_wire
