#include "deltacommit/testing/recording_step_hooks.h"

#include <algorithm>
#include <utility>

namespace deltacommit {

Status RecordingStepHooks::AtStep(std::string_view step) {
  Callback callback;
  int64_t arrival = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    steps_.emplace_back(step);
    arrival = std::count(steps_.begin(), steps_.end(), step);
    callback = callback_;
  }
  if (callback) DC_RETURN_IF_ERROR(callback(step));
  std::optional<Status> failure = InjectedFailure(step, arrival);
  return failure ? *std::move(failure) : OkStatus();
}

std::optional<Status> RecordingStepHooks::InjectedFailure(std::string_view step,
                                                          int64_t arrival) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Failure& failure : failures_) {
    if (failure.step == step && failure.nth == arrival) return failure.status;
  }
  return std::nullopt;
}

void RecordingStepHooks::FailAt(std::string step, Status status, int64_t nth) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.push_back({std::move(step), nth, std::move(status)});
}

void RecordingStepHooks::SetCallback(Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  callback_ = std::move(callback);
}

std::vector<std::string> RecordingStepHooks::steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_;
}

int64_t RecordingStepHooks::Count(std::string_view step) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::count(steps_.begin(), steps_.end(), step);
}

void RecordingStepHooks::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  steps_.clear();
  failures_.clear();
  callback_ = nullptr;
}

}  // namespace deltacommit
