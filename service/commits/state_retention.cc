#include "service/commits/state_retention.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace deltacommit::service {

StateRetention::StateRetention(StateStore& state, RetentionOptions options,
                               std::shared_ptr<spdlog::logger> logger)
    : state_(state),
      options_{options.keep_published, std::max<int64_t>(options.every, 1)},
      logger_(logger ? std::move(logger) : spdlog::default_logger()) {
  if (options_.keep_published < 0) return;
  thread_ = std::thread([this] { Run(); });
}

StateRetention::~StateRetention() { Stop(); }

void StateRetention::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    due_.clear();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StateRetention::Published(const std::string& table, Version version) {
  if (options_.keep_published < 0 || (version + 1) % options_.every != 0) {
    return;
  }
  const Version below = version + 1 - options_.keep_published;
  if (below <= 0) return;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    Version& queued = due_[table];
    queued = std::max(queued, below);
  }
  cv_.notify_all();
}

void StateRetention::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !due_.empty(); });
    if (stopping_) return;
    auto next = due_.begin();
    const std::string table = next->first;
    const Version below = next->second;
    due_.erase(next);
    running_ = true;
    lock.unlock();
    StatusOr<int64_t> forgotten = state_.ForgetPublishedBefore(table, below);
    if (forgotten.ok()) {
      logger_->debug("forgot {} published commit records of {} below version {}", *forgotten, table,
                     below);
    } else {
      logger_->warn(
          "could not forget the published commit records of {} below version {} "
          "(tried again after {} more versions): {}",
          table, below, options_.every, forgotten.status().ToString());
    }
    lock.lock();
    running_ = false;
    if (forgotten.ok()) forgotten_ += *forgotten;
    cv_.notify_all();
  }
}

bool StateRetention::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return due_.empty() && !running_; });
}

int64_t StateRetention::forgotten() const {
  std::lock_guard lock(mu_);
  return forgotten_;
}

}  // namespace deltacommit::service
