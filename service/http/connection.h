// One accepted HTTP/1.1 connection, plain or TLS: reads requests one at a
// time (so pipelined requests are answered in order), hands each to the
// router and the worker pool, writes the answer, and enforces the limits and
// timeouts of HttpServerOptions. All of a connection's work runs on its
// strand; a handler runs on a worker thread and its answer is posted back,
// so an idle connection holds no thread.
//
// Life cycle:
//   [TLS handshake] -> idle (idle_timeout) -> reading (request_timeout)
//   -> handling (no limit; the worker pool bounds the work) -> writing
//   (write_timeout) -> idle again on keep-alive, else closing: the write
//   side is shut and unread input dropped for up to linger_timeout, so the
//   client reads the answer rather than a reset.
// A header that fails CheckRequestHeader (ambiguous framing, a repeated
// Authorization or Host) is answered 400 or 501 as soon as it is read, and
// the connection closes: its body is never read, nor what follows parsed.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "service/http/server_state.h"

namespace deltacommit::http {

// Serves `socket` until it closes. With `tls`, a TLS handshake comes first.
// With `reject`, the connection is answered 503 without reading a request
// and closed (the server is at max_connections). The connection registers
// itself in `state` and unregisters when it is destroyed.
void StartConnection(std::shared_ptr<ServerState> state,
                     boost::asio::ip::tcp::socket socket,
                     boost::asio::ssl::context* tls, bool reject);

}  // namespace deltacommit::http
