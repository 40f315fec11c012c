// StepHooks: named points inside each commit protocol ("local/before-put",
// "s3ddb/after-temp-put", ...). A test installs hooks to crash a writer at a
// step (return a non-OK Status: the protocol stops right there, leaving the
// store as a crashed process would), to freeze it, or to count steps.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit {

class StepHooks {
 public:
  virtual ~StepHooks() = default;
  // Called when the protocol reaches `step`. A non-OK result aborts the
  // protocol at that point and is returned to its caller unchanged.
  virtual Status AtStep(std::string_view step) = 0;
};

// Hooks that do nothing (the production default).
StepHooks& NoStepHooks();

// Calls hooks->AtStep(step) if hooks is not null.
inline Status RunStep(StepHooks* hooks, std::string_view step) {
  return hooks == nullptr ? OkStatus() : hooks->AtStep(step);
}

}  // namespace deltacommit
