// HTTP for AWS calls: request/response values and the HttpClient port, with
// a libcurl implementation (connection reuse, connect and request timeouts).
//
// Transport failures are classified so callers can retry safely:
//   kUnavailable     the request was certainly not sent (connect/resolve
//                    failure): safe to retry any request.
//   kUnknownOutcome  the request may have reached the server (timeout or
//                    connection lost after sending): only idempotent
//                    requests may be retried; a write must be read back.
//   kDeadlineExceeded  the overall deadline passed before sending.
//
// Thread-safety: HttpClient implementations are safe for concurrent use.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::aws {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD, PUT, POST, DELETE
  std::string url;             // absolute, already percent-encoded
  HttpHeaders headers;         // names as given; compared case-insensitively
  std::string body;
};

struct HttpResponse {
  long status = 0;
  HttpHeaders headers;  // names lower-cased
  std::string body;
  // First header named `name` (case-insensitive), or empty.
  std::string Header(std::string_view name) const;
};

struct HttpOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds request_timeout{30000};
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Any HTTP status is a successful exchange (the caller maps 4xx/5xx);
  // only transport failures are errors, classified as above.
  virtual StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
};

// libcurl, one connection pool shared by all threads of the process.
std::unique_ptr<HttpClient> NewCurlHttpClient(HttpOptions options = {});

}  // namespace deltacommit::aws
