// Conversions between Beast's HTTP messages and the server's Request and
// Response values.
//
// Thread-safety: pure functions.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <string>
#include <string_view>

#include "deltacommit/status.h"
#include "service/http/http_message.h"

namespace deltacommit::http {

using BeastRequest =
    boost::beast::http::request<boost::beast::http::string_body>;
using BeastResponse =
    boost::beast::http::response<boost::beast::http::string_body>;

// Method, target, path, decoded query, lower-cased headers and body of
// `message` (moved out); route and path parameters are left to the router.
// kInvalidArgument: a malformed percent-escape in the query.
StatusOr<Request> ToRequest(BeastRequest& message);

// The client's X-Request-Id when it is 1-64 characters of [A-Za-z0-9._-],
// else a new UUID.
std::string RequestIdFor(const BeastRequest& message);

// kInvalidArgument when a handler's response cannot be sent as is: a status
// outside 200-599, or a header name that is not an HTTP token or a value
// with CR, LF or NUL (which would let a value forge headers). The message
// names the header, never its value.
Status ValidateResponse(const Response& response);

// The response on the wire: the handler's status, headers and body, plus
// Content-Length, Content-Type application/json when a non-empty body has
// none, X-Request-Id and the keep-alive decision.
// REQUIRES: ValidateResponse(response) is OK.
BeastResponse ToBeastResponse(Response response, std::string_view request_id,
                              bool keep_alive);

}  // namespace deltacommit::http
