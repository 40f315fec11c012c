// Request and Response: what the HTTP server hands a handler and what the
// handler returns. Plain values; the server fills every Request field before
// a handler runs and adds Content-Length, Content-Type (when the handler set
// none), X-Request-Id and Connection to a Response.
//
// Thread-safety: values; const methods are safe to call concurrently.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/core/ascii.h"

namespace deltacommit::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET", "POST", ... as received
  std::string target;  // path and query, as received (still percent-encoded)
  std::string path;    // the target without the query (still percent-encoded)
  std::string route;   // the matched pattern: "/v1/tables/{table}/commits"
  std::map<std::string, std::string> path_params;  // {name} -> decoded value
  HeaderList query;    // decoded (name, value) pairs, in order
  HeaderList headers;  // names lower-cased, in order
  std::string body;
  std::string peer;        // "127.0.0.1:54321" or "[::1]:54321"
  std::string request_id;  // echoed as X-Request-Id

  // First header named `name` (case-insensitive).
  std::optional<std::string_view> Header(std::string_view name) const;
  // First query parameter named `name` (exact).
  std::optional<std::string_view> QueryParam(std::string_view name) const;
  // The path parameter `name`, or nullopt when the route has none.
  std::optional<std::string_view> PathParam(std::string_view name) const;
};

struct Response {
  int status = 200;
  HeaderList headers;  // must not contain CR or LF (answered 500 otherwise)
  std::string body;

  // A response with Content-Type: application/json.
  static Response Json(int status, std::string body);
};

// {"error":{"code":...,"message":...}} with Content-Type: application/json.
Response ErrorResponse(int status, std::string_view code,
                       std::string_view message);

// Case-insensitive ASCII comparison, for header names.
using deltacommit::EqualsIgnoreCase;

}  // namespace deltacommit::http
