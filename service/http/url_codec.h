// Percent-decoding of request targets (RFC 3986) and query strings
// (application/x-www-form-urlencoded: '+' is a space there).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/core/percent_encoding.h"
#include "deltacommit/status.h"
#include "service/http/http_message.h"

namespace deltacommit::http {

// PercentDecode itself is in deltacommit/core/percent_encoding.h.
using deltacommit::PercentDecode;

// "a=1&b=x%20y&c" -> {("a","1"), ("b","x y"), ("c","")}; empty pieces
// ("a=1&&b=2") are skipped. kInvalidArgument on a bad escape.
StatusOr<HeaderList> ParseQuery(std::string_view query);

// Splits a request target into path and query at the first '?'.
struct SplitTarget {
  std::string_view path;
  std::string_view query;  // without the '?'; empty when there is none
};
SplitTarget SplitRequestTarget(std::string_view target);

}  // namespace deltacommit::http
