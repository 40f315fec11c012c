#include "service/http/message_conversion.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "deltacommit/log_path.h"
#include "service/http/url_codec.h"

namespace deltacommit::http {
namespace {

namespace beast_http = boost::beast::http;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// RFC 9110 token characters.
bool IsToken(std::string_view s) {
  static constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           kSpecials.find(c) != std::string_view::npos;
  });
}

// "http://host/a?b" (absolute form, which HTTP/1.1 servers must accept)
// -> "/a?b"; anything else unchanged.
std::string_view OriginForm(std::string_view target) {
  size_t scheme = target.find("://");
  if (target.empty() || target.front() == '/' ||
      scheme == std::string_view::npos) {
    return target;
  }
  size_t slash = target.find('/', scheme + 3);
  return slash == std::string_view::npos ? std::string_view("/")
                                         : target.substr(slash);
}

}  // namespace

StatusOr<Request> ToRequest(BeastRequest& message) {
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  SplitTarget split = SplitRequestTarget(OriginForm(request.target));
  request.path = std::string(split.path);
  DC_ASSIGN_OR_RETURN(request.query, ParseQuery(split.query));
  for (const auto& field : message) {
    request.headers.emplace_back(Lower(field.name_string()),
                                 std::string(field.value()));
  }
  request.body = std::move(message.body());
  return request;
}

std::string RequestIdFor(const BeastRequest& message) {
  auto it = message.find("X-Request-Id");
  if (it != message.end()) {
    std::string_view id = it->value();
    bool valid = !id.empty() && id.size() <= 64 &&
                 std::all_of(id.begin(), id.end(), [](char c) {
                   return std::isalnum(static_cast<unsigned char>(c)) ||
                          c == '.' || c == '_' || c == '-';
                 });
    if (valid) return std::string(id);
  }
  return NewUuid();
}

Status ValidateResponse(const Response& response) {
  if (response.status < 200 || response.status > 599) {
    return InvalidArgumentError("status " + std::to_string(response.status) +
                                " is not a final HTTP status (200-599)");
  }
  for (const auto& [name, value] : response.headers) {
    if (!IsToken(name)) {
      return InvalidArgumentError("header name '" + name +
                                  "' is not an HTTP token");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) !=
        std::string::npos) {
      return InvalidArgumentError("header '" + name +
                                  "' has a value with CR, LF or NUL");
    }
  }
  return OkStatus();
}

BeastResponse ToBeastResponse(Response response, std::string_view request_id,
                              bool keep_alive) {
  BeastResponse message;
  message.version(11);
  message.result(static_cast<unsigned>(response.status));
  for (auto& [name, value] : response.headers) {
    message.insert(name, value);
  }
  if (!response.body.empty() &&
      message.find(beast_http::field::content_type) == message.end()) {
    message.set(beast_http::field::content_type, "application/json");
  }
  message.set("X-Request-Id", request_id);
  message.keep_alive(keep_alive);
  message.body() = std::move(response.body);
  message.prepare_payload();
  return message;
}

}  // namespace deltacommit::http
