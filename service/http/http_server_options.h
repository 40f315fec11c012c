// HttpServerOptions: every setting of the HTTP server, with its default.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace deltacommit::http {

// PEM files for HTTPS; the certificate file may hold a chain (leaf first).
struct TlsFiles {
  std::string certificate_file;
  std::string private_key_file;
};

struct HttpServerOptions {
  std::string address = "127.0.0.1";  // an IPv4 or IPv6 literal
  uint16_t port = 0;                  // 0: an ephemeral port (see port())
  // Pending connections the kernel queues before accept(); capped by
  // net.core.somaxconn.
  int listen_backlog = SOMAXCONN;
  // Open connections at most. One more is accepted, answered 503
  // (unavailable, Connection: close) without reading its request, and
  // closed: a client sees a clear refusal rather than a hanging connect.
  size_t max_connections = 10000;
  size_t io_threads = 2;       // accept, read and write; never block
  size_t worker_threads = 16;  // run the blocking handlers
  // Requests waiting for a worker at most; beyond that: 503 unavailable.
  size_t max_queued_requests = 256;
  size_t max_header_bytes = 16 * 1024;         // request line + headers; 431
  uint64_t max_body_bytes = 16 * 1024 * 1024;  // 413, refused on the header
  // From a request's first byte until it is fully read; 408 when it passes.
  std::chrono::milliseconds request_timeout{30'000};
  // A keep-alive connection with no request for this long is closed.
  std::chrono::milliseconds idle_timeout{60'000};
  // Writing one response (and a TLS handshake) at most.
  std::chrono::milliseconds write_timeout{30'000};
  // Stop(): how long in-flight requests may take to finish before their
  // connections are closed.
  std::chrono::milliseconds drain_timeout{30'000};
  // After an error answer that closes the connection (400, 408, 413, 431),
  // unread request bytes are read and dropped for this long so that the
  // client receives the answer instead of a reset.
  std::chrono::milliseconds linger_timeout{2'000};
  std::optional<TlsFiles> tls;  // HTTPS when set
};

}  // namespace deltacommit::http
