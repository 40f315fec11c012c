// RecordingStepHooks: StepHooks for tests. Records every step reached, in
// order, and can crash the protocol at a named step: the nth arrival at that
// step returns a given Status, which the protocol passes straight back to its
// caller having left the store as a crashed process would. A crash sweep runs
// one writer per (step, nth) it recorded in a clean run.
//
// An optional callback runs at every step (after recording, before any
// injected failure) so a test can freeze a writer there or race another
// writer in.
//
// Thread-safety: safe for concurrent use; the callback runs without the lock
// held, so it may block.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/step_hooks.h"

namespace deltacommit {

class RecordingStepHooks : public StepHooks {
 public:
  using Callback = std::function<Status(std::string_view step)>;

  Status AtStep(std::string_view step) override;

  // The `nth` (1-based) arrival at `step` returns `status` (once).
  // REQUIRES: !status.ok().
  void FailAt(std::string step, Status status, int64_t nth = 1);
  // Runs `callback` at every step; a non-OK result aborts the protocol.
  void SetCallback(Callback callback);

  // Steps reached so far, in order (failed ones included).
  std::vector<std::string> steps() const;
  // How many times `step` was reached.
  int64_t Count(std::string_view step) const;
  // Forgets recorded steps, failures and the callback.
  void Clear();

 private:
  struct Failure {
    std::string step;
    int64_t nth = 1;
    Status status;
  };

  std::optional<Status> InjectedFailure(std::string_view step, int64_t arrival);

  mutable std::mutex mu_;
  std::vector<std::string> steps_;  // guarded by mu_
  std::vector<Failure> failures_;   // guarded by mu_
  Callback callback_;               // guarded by mu_
};

}  // namespace deltacommit
