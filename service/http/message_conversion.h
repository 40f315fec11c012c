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

// The checks of a request's header that must run as soon as it is read,
// before any body byte is read or a 100-continue is sent. `parser_chunked`
// is whether the parser will decode the body as chunked.
//
// The framing must be unambiguous, or a front proxy and this server could
// split the byte stream into different requests (request smuggling):
//   kInvalidArgument (400; the caller closes the connection):
//     Transfer-Encoding (all its lines are one list, RFC 9110 5.3) whose
//     last coding is not chunked, that names chunked twice, or has an
//     element that is not a bare token (RFC 9112 6.3); Transfer-Encoding
//     with Content-Length, or in an HTTP/1.0 request (RFC 9112 6.1); more
//     than one Content-Length, or one that is not a single number; a
//     Transfer-Encoding the parser does not read as chunked. Also more
//     than one Authorization header (a proxy and a handler could check
//     different ones) or Host header (RFC 9110 7.2).
//   kUnimplemented (501; the caller closes): a coding before the final
//     chunked (gzip, deflate, identity, ...): we decode only chunked.
// Messages name the header, never a value: only a 501 names the coding.
Status CheckRequestHeader(const BeastRequest& header, bool parser_chunked);

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
