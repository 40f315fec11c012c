#include "service/http/server_state.h"

#include <utility>

namespace deltacommit::http {

ServerState::ServerState(HttpServerOptions options_in, Router router_in,
                         Metrics* metrics_registry, JsonLogger* logger)
    : options(std::move(options_in)),
      router(std::move(router_in)),
      workers(options.worker_threads == 0 ? 1 : options.worker_threads,
              options.max_queued_requests),
      metrics(metrics_registry),
      logger_(logger) {}

void ServerState::Log(LogLevel level, std::string_view msg,
                      const nlohmann::json& fields) {
  if (logger_ != nullptr) logger_->Log(level, msg, fields);
}

bool ServerState::LogEnabled(LogLevel level) const {
  return logger_ != nullptr && logger_->Enabled(level);
}

uint64_t ServerState::Register(std::weak_ptr<ConnectionBase> connection) {
  metrics.ConnectionOpened();
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = next_id_++;
  connections_.emplace(id, std::move(connection));
  return id;
}

void ServerState::Unregister(uint64_t id) {
  metrics.ConnectionClosed();
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(id);
  if (connections_.empty()) empty_.notify_all();
}

size_t ServerState::connection_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return connections_.size();
}

std::vector<std::shared_ptr<ConnectionBase>> ServerState::Connections() const {
  std::vector<std::shared_ptr<ConnectionBase>> alive;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, weak] : connections_) {
    if (auto connection = weak.lock()) alive.push_back(std::move(connection));
  }
  return alive;
}

bool ServerState::WaitForNoConnections(
    std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return empty_.wait_until(lock, deadline,
                           [this] { return connections_.empty(); });
}

}  // namespace deltacommit::http
