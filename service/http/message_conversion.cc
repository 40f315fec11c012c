#include "service/http/message_conversion.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <utility>
#include <vector>

#include "deltacommit/core/ascii.h"
#include "deltacommit/log_path.h"
#include "service/http/url_codec.h"

namespace deltacommit::http {
namespace {

namespace beast_http = boost::beast::http;

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

// Fields that are at most once in a request, so that no two readers of it
// (a proxy, this server, a handler) can pick different ones.
constexpr std::pair<beast_http::field, std::string_view> kSingletonFields[] = {
    {beast_http::field::authorization, "Authorization"},
    {beast_http::field::host, "Host"},
};

// A bound on what a message quotes from a header (a token may be long).
std::string Excerpt(std::string_view s) {
  constexpr size_t kMax = 64;
  return s.size() <= kMax ? std::string(s)
                          : std::string(s.substr(0, kMax)) + "...";
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// The codings of every Transfer-Encoding line in order, lower-cased, empty
// list elements skipped (RFC 9110 5.6.1). kInvalidArgument for an element
// that is not a bare token: a coding with parameters is refused too, since
// chunked takes none and we decode no other coding anyway.
StatusOr<std::vector<std::string>> TransferCodings(const BeastRequest& header) {
  std::vector<std::string> codings;
  auto [begin, end] = header.equal_range(beast_http::field::transfer_encoding);
  for (auto line = begin; line != end; ++line) {
    std::string_view rest = line->value();
    while (true) {
      size_t comma = rest.find(',');
      std::string_view element = TrimOws(rest.substr(0, comma));
      if (!element.empty() && !IsToken(element)) {
        return InvalidArgumentError(
            "malformed Transfer-Encoding: an element is not a transfer coding "
            "name");
      }
      if (!element.empty()) codings.push_back(AsciiLower(element));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return codings;
}

// RFC 9112 6.1 and 6.3: the body is delimited by chunked, as the last and
// only coding we accept; anything else could be framed differently by
// whoever forwarded the request.
Status CheckTransferEncoding(const BeastRequest& header, bool parser_chunked) {
  if (header.find(beast_http::field::transfer_encoding) == header.end()) {
    return OkStatus();
  }
  if (header.version() < 11) {
    return InvalidArgumentError(
        "Transfer-Encoding in an HTTP/1.0 request: its framing cannot be "
        "trusted (RFC 9112 6.1)");
  }
  if (header.find(beast_http::field::content_length) != header.end()) {
    return InvalidArgumentError(
        "both Transfer-Encoding and Content-Length: the body's length is "
        "ambiguous (RFC 9112 6.3)");
  }
  DC_ASSIGN_OR_RETURN(std::vector<std::string> codings,
                      TransferCodings(header));
  if (std::count(codings.begin(), codings.end(), "chunked") > 1) {
    return InvalidArgumentError(
        "Transfer-Encoding names chunked more than once (RFC 9112 7)");
  }
  if (codings.empty() || codings.back() != "chunked") {
    return InvalidArgumentError(
        "Transfer-Encoding does not end in chunked: the body's length cannot "
        "be determined (RFC 9112 6.3)");
  }
  if (codings.size() > 1) {
    return UnimplementedError("Transfer-Encoding " + Excerpt(codings.front()) +
                              " is not supported: this server decodes only "
                              "chunked; send the body without that coding");
  }
  // Belt and braces: what we accepted must be what the parser will read.
  if (!parser_chunked) {
    return InvalidArgumentError(
        "malformed Transfer-Encoding: the body's framing is ambiguous");
  }
  return OkStatus();
}

// The parser refuses two different lengths; we also refuse a repeated
// length ("5, 5" or two lines), which RFC 9110 8.6 allows a server to.
Status CheckContentLength(const BeastRequest& header) {
  auto [begin, end] = header.equal_range(beast_http::field::content_length);
  if (begin == end) return OkStatus();
  std::string_view value = begin->value();
  bool number = !value.empty() &&
                std::all_of(value.begin(), value.end(),
                            [](char c) { return c >= '0' && c <= '9'; });
  if (std::next(begin) != end || !number) {
    return InvalidArgumentError(
        "more than one Content-Length, or one that is not a single number "
        "(RFC 9112 6.3)");
  }
  return OkStatus();
}

Status CheckSingletonFields(const BeastRequest& header) {
  for (const auto& [field, name] : kSingletonFields) {
    if (header.count(field) > 1) {
      return InvalidArgumentError("more than one " + std::string(name) +
                                  " header");
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckRequestHeader(const BeastRequest& header, bool parser_chunked) {
  DC_RETURN_IF_ERROR(CheckTransferEncoding(header, parser_chunked));
  DC_RETURN_IF_ERROR(CheckContentLength(header));
  return CheckSingletonFields(header);
}

StatusOr<Request> ToRequest(BeastRequest& message) {
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  SplitTarget split = SplitRequestTarget(OriginForm(request.target));
  request.path = std::string(split.path);
  DC_ASSIGN_OR_RETURN(request.query, ParseQuery(split.query));
  for (const auto& field : message) {
    request.headers.emplace_back(AsciiLower(field.name_string()),
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
