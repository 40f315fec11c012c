#include "deltacommit/step_hooks.h"

namespace deltacommit {
namespace {

class NoStepHooksImpl final : public StepHooks {
 public:
  Status AtStep(std::string_view /*step*/) override { return OkStatus(); }
};

}  // namespace

StepHooks& NoStepHooks() {
  // Stateless, so sharing one instance across threads is safe.
  static NoStepHooksImpl hooks;
  return hooks;
}

}  // namespace deltacommit
