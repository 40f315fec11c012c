#include "deltacommit/core/read_ahead.h"

#include <algorithm>
#include <utility>

namespace deltacommit {

ReadAhead::ReadAhead(LogStore& log, std::vector<std::string> keys, int concurrency)
    : ReadAhead([&log](const std::string& key) { return log.Read(key); }, std::move(keys),
                concurrency) {}

ReadAhead::ReadAhead(Fetch fetch, std::vector<std::string> keys, int concurrency)
    : fetch_(std::move(fetch)),
      keys_(std::move(keys)),
      window_(2 * static_cast<size_t>(std::max(concurrency, 1))),
      results_(keys_.size()) {
  // One file, or one read at a time: the reader's own thread reads, and no
  // thread is started for nothing.
  const size_t threads = std::min(static_cast<size_t>(std::max(concurrency, 1)), keys_.size());
  if (threads <= 1) return;
  workers_.reserve(threads);
  for (size_t t = 0; t < threads; ++t) workers_.emplace_back([this] { Work(); });
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ReadAhead::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || next_ >= keys_.size() || next_ < taken_ + window_; });
    if (stopping_ || next_ >= keys_.size()) return;
    const size_t i = next_++;
    lock.unlock();
    StatusOr<std::string> content = fetch_(keys_[i]);
    lock.lock();
    results_[i].emplace(std::move(content));
    cv_.notify_all();
  }
}

StatusOr<std::string> ReadAhead::Take(size_t i) {
  if (workers_.empty()) return fetch_(keys_[i]);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return results_[i].has_value(); });
  StatusOr<std::string> content = std::move(*results_[i]);
  results_[i].reset();
  taken_ = i + 1;
  lock.unlock();
  cv_.notify_all();  // the window moved: a worker may start the next read
  return content;
}

}  // namespace deltacommit
