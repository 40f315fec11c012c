// ASCII helpers shared by the protocol code: header names, S3 and Delta
// property values compared the way their specifications say (ASCII case
// only; no locale).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace deltacommit {

// True when `a` and `b` differ at most in the case of ASCII letters.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// `s` with its ASCII letters in lower case (HTTP header names, config keys).
std::string AsciiLower(std::string_view s);

}  // namespace deltacommit
