// FakeClock and RecordingSleeper: time under a test's control. Code that
// backs off sleeps through a Sleeper; giving it a RecordingSleeper over a
// FakeClock makes the backoff visible (the recorded sleeps) and instant,
// while timestamps still move forward consistently.
//
// Thread-safety: both are safe for concurrent use.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "deltacommit/clock.h"

namespace deltacommit {

class FakeClock : public Clock {
 public:
  // 2023-11-14T22:13:20Z: a fixed, plausible default.
  static constexpr int64_t kDefaultStartMillis = 1'700'000'000'000;

  explicit FakeClock(int64_t start_millis = kDefaultStartMillis)
      : now_millis_(start_millis) {}

  int64_t NowMillis() override { return now_millis_.load(); }
  void SetMillis(int64_t millis) { now_millis_.store(millis); }
  void Advance(std::chrono::milliseconds duration) {
    now_millis_.fetch_add(duration.count());
  }

 private:
  std::atomic<int64_t> now_millis_;
};

class RecordingSleeper : public Sleeper {
 public:
  // `clock`, if not null, is advanced by each sleep and must outlive this.
  explicit RecordingSleeper(FakeClock* clock = nullptr) : clock_(clock) {}

  // Records `duration` and advances the clock; returns at once.
  void Sleep(std::chrono::milliseconds duration) override;

  std::vector<std::chrono::milliseconds> sleeps() const;
  std::chrono::milliseconds total() const;
  void Clear();

 private:
  FakeClock* const clock_;
  mutable std::mutex mu_;
  std::vector<std::chrono::milliseconds> sleeps_;  // guarded by mu_
};

}  // namespace deltacommit
