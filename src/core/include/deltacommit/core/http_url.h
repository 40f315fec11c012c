// The URL of a service the client talks to over HTTP (the commit service,
// a catalog): checked before anything is sent, and normalised.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit {

// `url` without trailing '/' when it is http(s)://host[:port][/path] with
// no user info, query, fragment, spaces or control characters.
// kInvalidArgument names `option` (e.g. "--service-url") and quotes the
// URL with any user info left out; user info is refused pointing at
// `token_option`, where the secret belongs.
StatusOr<std::string> NormalizeHttpUrl(std::string_view url, std::string_view option,
                                       std::string_view token_option);

}  // namespace deltacommit
