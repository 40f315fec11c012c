// The production Clock and Sleeper. They are stateless, so one shared instance
// of each is enough; callers still receive them by reference so tests can
// substitute fakes.
#include "deltacommit/clock.h"

#include <chrono>
#include <thread>

namespace deltacommit {
namespace {

class SystemClockImpl final : public Clock {
 public:
  int64_t NowMillis() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

class RealSleeperImpl final : public Sleeper {
 public:
  void Sleep(std::chrono::milliseconds duration) override {
    if (duration.count() > 0) std::this_thread::sleep_for(duration);
  }
};

}  // namespace

Clock& SystemClock() {
  static SystemClockImpl clock;
  return clock;
}

Sleeper& RealSleeper() {
  static RealSleeperImpl sleeper;
  return sleeper;
}

}  // namespace deltacommit
