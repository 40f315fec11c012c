// Fuzz target: an HTTP/1.1 request as the commit service receives it: bytes
// parsed by Boost.Beast with the server's limits, then the server's own
// handling before a handler runs: the request id (http::RequestIdFor), the
// conversion with query decoding (http::ToRequest), the router with the
// service's routes (http::Router::Find), the bearer token
// (service::ParseBearerToken, service::Authenticator), the {table} path
// parameter (service::NormalizeTableUri) and the error answer quoting the
// path (http::ErrorResponse, ValidateResponse, ToBeastResponse).
// Invariants: the request id is a safe header value; a found route has a
// handler and its parameters; an accepted bearer token is a non-empty part
// of the header within the length limit; an error answer is always sendable.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "service/config/auth.h"
#include "service/config/table_uri.h"
#include "service/http/message_conversion.h"
#include "service/http/router.h"
#include "service/http/url_codec.h"

namespace {

using namespace deltacommit;
namespace beast_http = boost::beast::http;

// The server's defaults (service::ServerConfig), smaller bodies to stay fast.
constexpr uint32_t kHeaderLimit = 16 * 1024;
constexpr uint64_t kBodyLimit = 64 * 1024;

const http::Router& ServiceRouter() {
  static const http::Router* router = [] {
    auto* r = new http::Router();
    const http::Handler handler = [](const http::Request&) { return http::Response(); };
    for (const auto& [method, pattern] :
         {std::pair{"POST", "/v1/commits"}, {"GET", "/v1/tables/{table}/commits"},
          {"GET", "/healthz"}, {"GET", "/readyz"}, {"GET", "/metrics"}}) {
      FUZZ_CHECK(r->Add(method, pattern, handler).ok());
    }
    return r;
  }();
  return *router;
}

const service::Authenticator& ServiceAuthenticator() {
  static const service::Authenticator* authenticator = [] {
    service::TokenConfig token;
    token.name = "fuzz";
    token.sha256_hex = service::HashToken("fuzz-token-0123456789");
    token.tables = {"s3://bucket"};
    token.may_commit = true;
    return new service::Authenticator({token});
  }();
  return *authenticator;
}

// Feeds `bytes` to `parser` as a connection would; true when a whole
// request was read.
bool ReadRequest(std::string_view bytes, beast_http::request_parser<beast_http::string_body>& parser) {
  parser.header_limit(kHeaderLimit);
  parser.body_limit(kBodyLimit);
  parser.eager(true);
  boost::beast::error_code ec;
  while (!bytes.empty() && !parser.is_done()) {
    const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec == beast_http::error::need_more) break;
    if (ec) return false;
    bytes.remove_prefix(used);
    if (used == 0) break;
  }
  // The connection closes: what Beast's read does at end of stream.
  if (!parser.is_done() && parser.got_some()) {
    parser.put_eof(ec);
    if (ec) return false;
  }
  return parser.is_done();
}

bool IsRequestIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == '-';
}

void CheckAnswerable(const http::Response& response, std::string_view request_id) {
  FUZZ_CHECK(http::ValidateResponse(response).ok());
  (void)http::ToBeastResponse(response, request_id, /*keep_alive=*/false);
}

void CheckAuthorization(const http::Request& request) {
  const std::optional<std::string_view> header = request.Header("authorization");
  StatusOr<std::string_view> token = service::ParseBearerToken(header);
  if (token.ok()) {
    FUZZ_CHECK(header.has_value());
    FUZZ_CHECK(!token->empty() && token->size() <= service::kMaxBearerTokenLength);
    FUZZ_CHECK(header->find(*token) != std::string_view::npos);
  } else {
    FUZZ_CHECK(token.status().code() == StatusCode::kUnauthenticated);
  }
  (void)ServiceAuthenticator().Authenticate(header);
}

void CheckRoute(const http::Request& request, std::string_view request_id) {
  const http::Router::Match match = ServiceRouter().Find(request.method, request.path);
  switch (match.kind) {
    case http::Router::MatchKind::kFound:
      FUZZ_CHECK(match.handler != nullptr && !match.route.empty());
      if (match.route == "/v1/tables/{table}/commits") {
        FUZZ_CHECK(match.params.count("table") == 1);
        (void)service::NormalizeTableUri(match.params.at("table"));
      }
      break;
    case http::Router::MatchKind::kMethodNotAllowed:
      FUZZ_CHECK(!match.allow.empty());
      break;
    case http::Router::MatchKind::kBadPath:
      FUZZ_CHECK(!match.error.empty());
      CheckAnswerable(http::ErrorResponse(400, "bad_request", match.error), request_id);
      break;
    case http::Router::MatchKind::kNotFound:
      CheckAnswerable(http::ErrorResponse(404, "not_found", "no route for " + request.path),
                      request_id);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  beast_http::request_parser<beast_http::string_body> parser;
  if (!ReadRequest(bytes, parser)) return 0;
  http::BeastRequest& message = parser.get();
  const std::string request_id = http::RequestIdFor(message);
  FUZZ_CHECK(!request_id.empty() && request_id.size() <= 64);
  for (char c : request_id) FUZZ_CHECK(IsRequestIdChar(c));
  StatusOr<http::Request> request = http::ToRequest(message);
  if (!request.ok()) {
    FUZZ_CHECK(request.status().code() == StatusCode::kInvalidArgument);
    CheckAnswerable(http::ErrorResponse(400, "bad_request", request.status().message()),
                    request_id);
    return 0;
  }
  if (request->target.starts_with('/')) {  // origin form: path, then '?' and the query
    FUZZ_CHECK(request->target == request->path ||
               request->target.starts_with(request->path + "?"));
  }
  CheckAuthorization(*request);
  CheckRoute(*request, request_id);
  return 0;
}
