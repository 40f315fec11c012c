#include "deltacommit/testing/fault_injector.h"

#include <algorithm>
#include <utility>

namespace deltacommit {

struct FaultInjector::RuleState {
  Rule rule;
  int64_t matched = 0;     // matching calls seen
  int64_t fired = 0;       // calls the rule acted on
  int64_t frozen_now = 0;  // calls blocked in Freeze() right now
  bool removed = false;    // RemoveRule() ran; matches nothing
  bool released = false;   // kFreeze only
  Status release_result;
};

namespace {

bool Fires(const FaultInjector::Rule& rule, int64_t matched) {
  if (matched < rule.nth) return false;
  return rule.times == FaultInjector::Rule::kEveryCall ||
         matched < rule.nth + rule.times;
}

bool KeysMatch(std::string_view substring,
               std::span<const std::string_view> keys) {
  if (substring.empty()) return true;
  return std::any_of(keys.begin(), keys.end(), [&](std::string_view key) {
    return key.find(substring) != std::string_view::npos;
  });
}

}  // namespace

FaultInjector::FaultInjector(std::span<const std::string_view> op_names,
                             Sleeper& sleeper)
    : op_names_(op_names), sleeper_(sleeper), counts_(op_names.size()) {}

FaultInjector::~FaultInjector() { ClearRules(); }

FaultInjector::RuleId FaultInjector::AddRule(Rule rule) {
  auto state = std::make_shared<RuleState>();
  state->rule = std::move(rule);
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(std::move(state));
  return static_cast<RuleId>(rules_.size() - 1);
}

void FaultInjector::RemoveRule(RuleId id) {
  std::lock_guard<std::mutex> lock(mu_);
  // The entry stays so that RuleIds are never reused.
  RuleState& state = *rules_.at(static_cast<size_t>(id));
  state.removed = true;
  state.released = true;
  cv_.notify_all();
}

void FaultInjector::ClearRules() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& state : rules_) {
    state->removed = true;
    state->released = true;
  }
  cv_.notify_all();
}

int64_t FaultInjector::FiredCount(RuleId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id))->fired;
}

bool FaultInjector::WaitUntilFrozen(RuleId id, int64_t count,
                                    std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  std::shared_ptr<RuleState> state = rules_.at(static_cast<size_t>(id));
  return cv_.wait_for(lock, timeout,
                      [&] { return state->frozen_now >= count; });
}

void FaultInjector::Release(RuleId id, Status result) {
  std::lock_guard<std::mutex> lock(mu_);
  RuleState& state = *rules_.at(static_cast<size_t>(id));
  state.released = true;
  state.release_result = std::move(result);
  cv_.notify_all();
}

int64_t FaultInjector::CallCount(size_t op) const {
  return counts_.at(op).load();
}

int64_t FaultInjector::TotalCallCount() const {
  int64_t total = 0;
  for (const auto& count : counts_) total += count.load();
  return total;
}

void FaultInjector::ResetCallCounts() {
  for (auto& count : counts_) count.store(0);
}

std::vector<std::shared_ptr<FaultInjector::RuleState>> FaultInjector::Match(
    size_t op, std::span<const std::string_view> keys) {
  std::vector<std::shared_ptr<RuleState>> fired;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& state : rules_) {
    const Rule& rule = state->rule;
    if (state->removed || rule.op != op) continue;
    if (!KeysMatch(rule.key_substring, keys)) continue;
    if (!Fires(rule, ++state->matched)) continue;
    // A thawed freeze rule lets everything through.
    if (rule.action == FaultAction::kFreeze && state->released) continue;
    ++state->fired;
    fired.push_back(state);
  }
  return fired;
}

std::optional<Status> FaultInjector::Freeze(RuleState& state) {
  std::unique_lock<std::mutex> lock(mu_);
  ++state.frozen_now;
  cv_.notify_all();
  cv_.wait(lock, [&] { return state.released; });
  --state.frozen_now;
  if (state.release_result.ok()) return std::nullopt;
  return state.release_result;
}

Status FaultInjector::DefaultStatus(
    const Rule& rule, std::span<const std::string_view> keys) const {
  if (!rule.status.ok()) return rule.status;
  std::string call(rule.op < op_names_.size() ? op_names_[rule.op] : "Unknown");
  if (!keys.empty()) call += " \"" + std::string(keys.front()) + "\"";
  if (rule.action == FaultAction::kApplyThenDropReply) {
    return UnknownOutcomeError("injected: reply to " + call +
                               " dropped after it was applied");
  }
  return UnavailableError("injected fault: " + call);
}

FaultVerdict FaultInjector::Decide(size_t op,
                                   std::span<const std::string_view> keys) {
  counts_.at(op).fetch_add(1);
  FaultVerdict verdict;
  // Rules act outside mu_: a delay or freeze must not block other calls.
  for (const auto& state : Match(op, keys)) {
    const Rule& rule = state->rule;
    switch (rule.action) {
      case FaultAction::kDelay:
        sleeper_.Sleep(rule.delay);
        break;
      case FaultAction::kFreeze:
        verdict.fail = Freeze(*state);
        if (verdict.fail) return verdict;
        break;
      case FaultAction::kFail:
        verdict.fail = DefaultStatus(rule, keys);
        return verdict;
      case FaultAction::kApplyThenDropReply:
        if (!verdict.drop_reply) verdict.drop_reply = DefaultStatus(rule, keys);
        break;
    }
  }
  return verdict;
}

}  // namespace deltacommit
