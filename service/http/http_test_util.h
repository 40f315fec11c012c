// Test helpers for the HTTP server: a raw-socket HTTP/1.1 client (for what
// a well-behaved client cannot do: stall mid-request, send oversized
// headers, watch the connection close) and a server started on an
// ephemeral port of 127.0.0.1.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/http.h"
#include "service/http/http_server.h"

namespace deltacommit::http::testing {

struct RawResponse {
  int status = 0;
  HeaderList headers;  // names lower-cased
  std::string body;
  std::string Header(std::string_view name) const;  // "" when absent
};

// One TCP connection to 127.0.0.1:port. Not thread-safe.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port);  // connected() tells if it worked
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  // False when the peer refused part of it (closed, reset).
  bool Send(std::string_view bytes);
  // The next response (body by Content-Length), or nullopt when the
  // connection closes or `timeout` passes first.
  std::optional<RawResponse> ReadResponse(
      std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True when the peer closes (EOF or reset) within `timeout`; bytes that
  // arrive meanwhile are dropped.
  bool WaitForClose(
      std::chrono::milliseconds timeout = std::chrono::seconds(5));

 private:
  // Reads more into buffer_; false on EOF, error or timeout.
  bool Fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string buffer_;
};

// A JsonLogger whose lines the test reads while server threads write them.
class LogCapture {
 public:
  LogCapture();
  JsonLogger& logger() { return logger_; }
  std::string text() const;  // every line so far

 private:
  mutable std::mutex mu_;
  std::string text_;  // guarded by mu_
  JsonLogger logger_;
};

// True once `condition` holds, polling for up to 5 s: the server counts and
// logs a request once its answer is written, which may be just after the
// client has read it.
bool Eventually(const std::function<bool()>& condition);

// "GET /path HTTP/1.1" with Host and the given extra header lines (each
// ending in "\r\n") and body (with its Content-Length when not empty).
std::string RawRequest(std::string_view method, std::string_view target,
                       std::string_view extra_headers = "",
                       std::string_view body = "");

// Starts a server on 127.0.0.1 and an ephemeral port; fails the test (and
// returns null) if it cannot.
std::unique_ptr<HttpServer> StartTestServer(HttpServerOptions options,
                                            Router router,
                                            Metrics* metrics = nullptr,
                                            JsonLogger* logger = nullptr);

// "http://127.0.0.1:<port><target>".
std::string LocalUrl(uint16_t port, std::string_view target);

// One request through the project's libcurl client.
StatusOr<aws::HttpResponse> Send(aws::HttpClient& client, std::string method,
                                 std::string url, std::string body = "");

}  // namespace deltacommit::http::testing
