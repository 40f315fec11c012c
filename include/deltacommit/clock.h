// Clock and Sleeper ports: time is injected so tests control it (backoff is
// checked without sleeping; timestamps are deterministic).
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>

namespace deltacommit {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time, epoch milliseconds.
  virtual int64_t NowMillis() = 0;
};

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void Sleep(std::chrono::milliseconds duration) = 0;
};

// The real ones.
Clock& SystemClock();
Sleeper& RealSleeper();

}  // namespace deltacommit
