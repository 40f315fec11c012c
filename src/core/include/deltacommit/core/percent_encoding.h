// Percent-decoding (RFC 3986 %XY escapes): request targets, query strings
// (application/x-www-form-urlencoded, where '+' is a space) and the
// URI-encoded file paths of Delta actions.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit {

// Decodes %XY escapes; with `plus_is_space`, '+' becomes ' '.
// kInvalidArgument names the offset and quotes (shortened) the text when a
// '%' is not followed by two hex digits.
StatusOr<std::string> PercentDecode(std::string_view encoded, bool plus_is_space = false);

}  // namespace deltacommit
