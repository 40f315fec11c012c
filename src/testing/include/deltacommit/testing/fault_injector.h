// FaultInjector: the rules of the FaultInjecting* port wrappers (and of
// FaultyStateStore), written once: which calls fail, lose their reply, slow
// down or freeze, and how many calls of each kind arrived. A wrapper uses it
// through PortFaults<Op> (deltacommit/testing/port_faults.h), for the enum `Op` that
// names the port's calls (ObjectStoreOp, CoordinationTableOp, ...).
//
// A rule matches calls of one kind with a key that contains a substring (each
// wrapper says which of its arguments are its keys) and fires on the
// nth..(nth+times-1)th of them. When several rules fire on one call they act
// in the order they were added: delays and freezes first as met, then the
// first kFail ends the call.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit {

enum class FaultAction {
  kFail,                // return `status`; the wrapped port is not called
  kApplyThenDropReply,  // call the wrapped port, then return `status`
  kDelay,               // sleep `delay` on the injected Sleeper, then go on
  kFreeze,              // block until Release(), then go on (or fail)
};

// One rule for the calls of a port named by `Op`.
template <typename Op>
struct PortFaultRule {
  static constexpr int64_t kEveryCall = -1;

  Op op{};
  std::string key_substring;  // empty matches every call
  int64_t nth = 1;            // first matching call it fires on, 1-based
  int64_t times = 1;  // matching calls it fires on from nth, or kEveryCall
  FaultAction action = FaultAction::kFail;
  // Result of kFail / kApplyThenDropReply. OK means the default: kUnavailable
  // for kFail, kUnknownOutcome for kApplyThenDropReply.
  Status status;
  std::chrono::milliseconds delay{0};  // kDelay only
};

// What the rules decided for one call, after its delays and freezes ran.
struct FaultVerdict {
  std::optional<Status> fail;        // return this, skip the call
  std::optional<Status> drop_reply;  // make the call, return this instead
};

class FaultInjector {
 public:
  using RuleId = int;
  using Rule = PortFaultRule<size_t>;  // `op` is the index of the kind

  // `op_names[i]` names kind i in messages; it and `sleeper` must outlive
  // this object.
  FaultInjector(std::span<const std::string_view> op_names, Sleeper& sleeper);
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjector();

  RuleId AddRule(Rule rule);
  // Rule `id` matches nothing from now on; calls it froze go on.
  void RemoveRule(RuleId id);
  void ClearRules();  // RemoveRule on every rule
  int64_t FiredCount(RuleId id) const;
  bool WaitUntilFrozen(RuleId id, int64_t count,
                       std::chrono::milliseconds timeout);
  void Release(RuleId id, Status result);

  int64_t CallCount(size_t op) const;
  int64_t TotalCallCount() const;
  void ResetCallCounts();

  // Counts a call of kind `op` on `keys` (the first names it in messages),
  // runs the delays and freezes of the rules that fire on it, and returns
  // what the others decided.
  FaultVerdict Decide(size_t op, std::span<const std::string_view> keys);

 private:
  struct RuleState;

  std::vector<std::shared_ptr<RuleState>> Match(
      size_t op, std::span<const std::string_view> keys);
  std::optional<Status> Freeze(RuleState& state);
  Status DefaultStatus(const Rule& rule,
                       std::span<const std::string_view> keys) const;

  const std::span<const std::string_view> op_names_;
  Sleeper& sleeper_;
  std::vector<std::atomic<int64_t>> counts_;  // index = op
  mutable std::mutex mu_;
  std::condition_variable cv_;  // freeze state changes
  std::vector<std::shared_ptr<RuleState>>
      rules_;  // guarded by mu_; index = RuleId
};

}  // namespace deltacommit
