// Serving until the process is told to stop: waits for SIGTERM or SIGINT on
// the calling thread, then stops the server gracefully (HttpServer::Stop()).
//
// Thread-safety: call from one thread (usually main's) while the server
// runs; the signal is caught by Asio, not in a raw signal handler, so
// Stop() runs on an ordinary thread.
#pragma once

#include <functional>

#include "service/http/http_server.h"

namespace deltacommit::http {

// Blocks until SIGTERM or SIGINT arrives, then calls server.Stop() and
// returns the signal's number. `on_waiting`, when set, runs once the
// signals are caught, before waiting (tests use it to know when they may
// send one).
int RunUntilSignal(HttpServer& server,
                   const std::function<void()>& on_waiting = nullptr);

}  // namespace deltacommit::http
