#include "deltacommit/testing/fake_clock.h"

namespace deltacommit {

void RecordingSleeper::Sleep(std::chrono::milliseconds duration) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.push_back(duration);
  }
  if (clock_ != nullptr) clock_->Advance(duration);
}

std::vector<std::chrono::milliseconds> RecordingSleeper::sleeps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sleeps_;
}

std::chrono::milliseconds RecordingSleeper::total() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::chrono::milliseconds sum{0};
  for (auto sleep : sleeps_) sum += sleep;
  return sum;
}

void RecordingSleeper::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  sleeps_.clear();
}

}  // namespace deltacommit
