// PortFaults<Op>: the rules API of a fault-injecting port wrapper over
// FaultInjector (deltacommit/testing/fault_injector.h), typed by the enum `Op` that
// names the port's calls.
//
// Thread-safety: safe for concurrent use, as FaultInjector.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "deltacommit/clock.h"
#include "deltacommit/status.h"
#include "deltacommit/testing/fault_injector.h"

namespace deltacommit {

// The rules API of a fault-injecting wrapper of a port whose calls `Op`
// names (0..op_names.size()-1); the wrapper derives from it and from the
// port's forwarding wrapper, and runs each call through Intercept.
template <typename Op>
class PortFaults {
 public:
  using RuleId = FaultInjector::RuleId;
  using Rule = PortFaultRule<Op>;

  RuleId AddRule(Rule rule) {
    FaultInjector::Rule untyped{
        Index(rule.op), std::move(rule.key_substring), rule.nth,  rule.times,
        rule.action,    std::move(rule.status),        rule.delay};
    return injector_.AddRule(std::move(untyped));
  }
  // Shorthands for AddRule.
  RuleId FailNthCall(Op op, int64_t nth, Status status = OkStatus()) {
    Rule rule = RuleFor(op);
    rule.nth = nth;
    rule.status = std::move(status);
    return AddRule(std::move(rule));
  }
  RuleId FailEveryCall(Op op, std::string key_substring,
                       Status status = OkStatus()) {
    Rule rule = RuleFor(op);
    rule.key_substring = std::move(key_substring);
    rule.times = Rule::kEveryCall;
    rule.status = std::move(status);
    return AddRule(std::move(rule));
  }
  // The nth call takes effect, then answers kUnknownOutcome.
  RuleId DropReplyOnNthCall(Op op, int64_t nth) {
    Rule rule = RuleFor(op);
    rule.nth = nth;
    rule.action = FaultAction::kApplyThenDropReply;
    return AddRule(std::move(rule));
  }
  RuleId DelayEveryCall(Op op, std::chrono::milliseconds delay) {
    Rule rule = RuleFor(op);
    rule.times = Rule::kEveryCall;
    rule.action = FaultAction::kDelay;
    rule.delay = delay;
    return AddRule(std::move(rule));
  }
  RuleId FreezeNthCall(Op op, int64_t nth, std::string key_substring = {}) {
    Rule rule = RuleFor(op);
    rule.key_substring = std::move(key_substring);
    rule.nth = nth;
    rule.action = FaultAction::kFreeze;
    return AddRule(std::move(rule));
  }
  // Rule `id` stops matching; calls it froze go on.
  void RemoveRule(RuleId id) { injector_.RemoveRule(id); }
  // Removes every rule, releasing calls they froze.
  void ClearRules() { injector_.ClearRules(); }

  // How many calls rule `id` has fired on.
  int64_t FiredCount(RuleId id) const { return injector_.FiredCount(id); }
  // Waits until `count` calls are frozen by rule `id` at once; false if
  // `timeout` (real time) passes first.
  bool WaitUntilFrozen(
      RuleId id, int64_t count = 1,
      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return injector_.WaitUntilFrozen(id, count, timeout);
  }
  // Thaws rule `id`: its frozen calls go on and it freezes no more. With a
  // non-OK `result` they return it without reaching the wrapped port, as if
  // the caller had crashed while frozen.
  void Release(RuleId id, Status result = OkStatus()) {
    injector_.Release(id, std::move(result));
  }

  // Calls received (including faulted ones) since construction or reset.
  int64_t CallCount(Op op) const { return injector_.CallCount(Index(op)); }
  int64_t TotalCallCount() const { return injector_.TotalCallCount(); }
  void ResetCallCounts() { injector_.ResetCallCounts(); }

 protected:
  PortFaults(std::span<const std::string_view> op_names, Sleeper& sleeper)
      : injector_(op_names, sleeper) {}
  // Not a port: never deleted through this base.
  ~PortFaults() = default;

  FaultVerdict Decide(Op op, std::span<const std::string_view> keys) {
    return injector_.Decide(Index(op), keys);
  }

  // Runs `call` (the forwarded call) under the rules for a call of `op` on
  // `keys`. Result is Status or a StatusOr.
  template <typename Result, typename Call>
  Result Intercept(Op op, std::span<const std::string_view> keys, Call call) {
    FaultVerdict verdict = Decide(op, keys);
    if (verdict.fail) return Result(*std::move(verdict.fail));
    Result result = call();
    if (verdict.drop_reply) return Result(*std::move(verdict.drop_reply));
    return result;
  }
  template <typename Result, typename Call>
  Result Intercept(Op op, std::initializer_list<std::string_view> keys,
                   Call call) {
    return Intercept<Result>(op, std::span(keys.begin(), keys.size()), call);
  }

 private:
  static constexpr size_t Index(Op op) { return static_cast<size_t>(op); }
  static Rule RuleFor(Op op) {
    Rule rule;
    rule.op = op;
    return rule;
  }

  FaultInjector injector_;
};

}  // namespace deltacommit
