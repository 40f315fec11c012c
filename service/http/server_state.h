// ServerState: what the HTTP server's connections share (options, router,
// worker pool, metrics, logger) and the registry of open connections that
// Stop() walks. Internal to the server.
//
// Thread-safety: the registry and the logger are safe for concurrent use;
// the other members are immutable once the server starts.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "service/http/http_server_options.h"
#include "service/http/json_logger.h"
#include "service/http/router.h"
#include "service/http/server_metrics.h"
#include "service/http/worker_pool.h"

namespace deltacommit::http {

// What Stop() may ask of a connection; both post to its strand and return.
class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  // Close now when idle; otherwise answer the current request with
  // Connection: close, then close.
  virtual void BeginShutdown() = 0;
  // Close now, whatever the connection is doing.
  virtual void ForceClose() = 0;
};

class ServerState {
 public:
  // `metrics` and `logger` may be null; else they must outlive this.
  ServerState(HttpServerOptions options, Router router, Metrics* metrics,
              JsonLogger* logger);

  const HttpServerOptions options;
  const Router router;
  WorkerPool workers;
  ServerMetrics metrics;
  std::atomic<bool> stopping{false};

  // Logs when there is a logger and `level` is enabled.
  void Log(LogLevel level, std::string_view msg,
           const nlohmann::json& fields = nullptr);
  bool LogEnabled(LogLevel level) const;

  // Adds a connection to the registry and returns its id.
  uint64_t Register(std::weak_ptr<ConnectionBase> connection);
  // REQUIRES: `id` from Register(), once, from the connection's destructor.
  void Unregister(uint64_t id);
  size_t connection_count() const;
  // The connections still alive.
  std::vector<std::shared_ptr<ConnectionBase>> Connections() const;
  // True once no connection is left; false if `deadline` passes first.
  bool WaitForNoConnections(std::chrono::steady_clock::time_point deadline);

 private:
  JsonLogger* const logger_;
  mutable std::mutex mu_;
  std::condition_variable empty_;
  std::map<uint64_t, std::weak_ptr<ConnectionBase>> connections_;  // mu_
  uint64_t next_id_ = 1;                                           // mu_
};

}  // namespace deltacommit::http
