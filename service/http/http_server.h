// HttpServer: the commit service's HTTP/1.1 server (Boost.Beast on
// Boost.Asio, optional TLS).
//
// A few I/O threads accept connections and read and write them
// asynchronously, so an idle keep-alive connection costs a descriptor and
// some memory but no thread. Each complete request is routed on the I/O
// thread and its handler, a blocking function, runs on a bounded worker
// pool; the answer is posted back to the connection. Requests of one
// connection are handled one at a time, so pipelined requests are answered
// in order. Limits and timeouts are in HttpServerOptions; the server answers
// its own errors with {"error":{"code":...,"message":...}}:
//   400 bad_request        malformed request line, headers or query escape
//   404 not_found          no route for the path
//   405 method_not_allowed with an Allow header
//   408 request_timeout    request not fully received in request_timeout
//   413 too_large          body over max_body_bytes, refused on the header
//   431 headers_too_large  request line and headers over max_header_bytes
//   500 internal           the handler threw or returned a bad response
//   503 unavailable        worker queue full, or max_connections reached
// 400, 408, 413 and 431 close the connection after the answer.
//
// Thread-safety: Start() once, before anything else; port() and stopping()
// from any thread; Stop() from any thread except the server's own I/O and
// worker threads (a signal-handling thread is fine; see run_until_signal.h).
#pragma once

#include <cstdint>
#include <memory>

#include "deltacommit/status.h"
#include "service/http/http_server_options.h"
#include "service/http/json_logger.h"
#include "service/http/metrics.h"
#include "service/http/router.h"

namespace deltacommit::http {

class HttpServer {
 public:
  // `metrics` (where the server registers its metrics, see
  // server_metrics.h) and `logger` (access and event log) may be null;
  // otherwise they must outlive the server.
  HttpServer(HttpServerOptions options, Router router, Metrics* metrics,
             JsonLogger* logger);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Loads the TLS files, raises the open-file limit to its hard limit,
  // binds, listens and starts the threads.
  // kInvalidArgument: a bad address or TLS file (the message names it);
  // kUnavailable: the address cannot be bound (in use, not local).
  // REQUIRES: called at most once.
  Status Start();

  // The bound port (the ephemeral one when options.port was 0); 0 before
  // Start().
  uint16_t port() const;

  // Graceful shutdown: stops accepting (new connections are refused), closes
  // idle connections, lets requests in flight finish and be answered with
  // Connection: close for up to drain_timeout, then closes what is left and
  // returns. A handler still running past the deadline is waited for (it
  // cannot be interrupted) but its answer is dropped. Idempotent; a
  // concurrent call waits for the first.
  void Stop();

  // True from the start of Stop(): /readyz answers 503.
  bool stopping() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace deltacommit::http
