#include "testing/fault_object_store.h"

#include <utility>

namespace deltacommit {

struct FaultInjectingObjectStore::RuleState {
  FaultRule rule;
  int64_t matched = 0;     // matching calls seen
  int64_t fired = 0;       // calls the rule acted on
  int64_t frozen_now = 0;  // calls blocked in Freeze() right now
  bool removed = false;    // ClearRules() ran; matches nothing
  bool released = false;   // kFreeze only
  Status release_result;
};

namespace {

constexpr size_t Index(ObjectStoreOp op) { return static_cast<size_t>(op); }

bool Fires(const FaultRule& rule, int64_t matched) {
  if (matched < rule.nth) return false;
  return rule.times == FaultRule::kEveryCall || matched < rule.nth + rule.times;
}

Status DefaultStatus(const FaultRule& rule, ObjectStoreOp op,
                     std::string_view key) {
  if (!rule.status.ok()) return rule.status;
  const std::string call =
      std::string(ObjectStoreOpName(op)) + " \"" + std::string(key) + "\"";
  if (rule.action == FaultAction::kApplyThenDropReply) {
    return UnknownOutcomeError("injected: reply to " + call +
                               " dropped after it was applied");
  }
  return UnavailableError("injected fault: " + call);
}

}  // namespace

std::string_view ObjectStoreOpName(ObjectStoreOp op) {
  switch (op) {
    case ObjectStoreOp::kGet:
      return "Get";
    case ObjectStoreOp::kHead:
      return "Head";
    case ObjectStoreOp::kList:
      return "List";
    case ObjectStoreOp::kPutIfAbsent:
      return "PutIfAbsent";
    case ObjectStoreOp::kPut:
      return "Put";
    case ObjectStoreOp::kCopy:
      return "Copy";
    case ObjectStoreOp::kDelete:
      return "Delete";
  }
  return "Unknown";
}

FaultInjectingObjectStore::FaultInjectingObjectStore(ObjectStore& base,
                                                     Sleeper& sleeper)
    : ForwardingObjectStore(base), sleeper_(sleeper) {}

FaultInjectingObjectStore::~FaultInjectingObjectStore() { ClearRules(); }

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::AddRule(
    FaultRule rule) {
  auto state = std::make_shared<RuleState>();
  state->rule = std::move(rule);
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(std::move(state));
  return static_cast<RuleId>(rules_.size() - 1);
}

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::FailNthCall(
    ObjectStoreOp op, int64_t nth, Status status) {
  FaultRule rule;
  rule.op = op;
  rule.nth = nth;
  rule.status = std::move(status);
  return AddRule(std::move(rule));
}

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::FailEveryCall(
    ObjectStoreOp op, std::string key_substring, Status status) {
  FaultRule rule;
  rule.op = op;
  rule.key_substring = std::move(key_substring);
  rule.times = FaultRule::kEveryCall;
  rule.status = std::move(status);
  return AddRule(std::move(rule));
}

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::DropReplyOnNthCall(
    ObjectStoreOp op, int64_t nth) {
  FaultRule rule;
  rule.op = op;
  rule.nth = nth;
  rule.action = FaultAction::kApplyThenDropReply;
  return AddRule(std::move(rule));
}

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::DelayEveryCall(
    ObjectStoreOp op, std::chrono::milliseconds delay) {
  FaultRule rule;
  rule.op = op;
  rule.times = FaultRule::kEveryCall;
  rule.action = FaultAction::kDelay;
  rule.delay = delay;
  return AddRule(std::move(rule));
}

FaultInjectingObjectStore::RuleId FaultInjectingObjectStore::FreezeNthCall(
    ObjectStoreOp op, int64_t nth, std::string key_substring) {
  FaultRule rule;
  rule.op = op;
  rule.key_substring = std::move(key_substring);
  rule.nth = nth;
  rule.action = FaultAction::kFreeze;
  return AddRule(std::move(rule));
}

void FaultInjectingObjectStore::ClearRules() {
  std::lock_guard<std::mutex> lock(mu_);
  // Entries stay so that RuleIds are never reused.
  for (auto& state : rules_) {
    state->removed = true;
    state->released = true;
  }
  cv_.notify_all();
}

int64_t FaultInjectingObjectStore::FiredCount(RuleId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id))->fired;
}

bool FaultInjectingObjectStore::WaitUntilFrozen(
    RuleId id, int64_t count, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  std::shared_ptr<RuleState> state = rules_.at(static_cast<size_t>(id));
  return cv_.wait_for(lock, timeout,
                      [&] { return state->frozen_now >= count; });
}

void FaultInjectingObjectStore::Release(RuleId id, Status result) {
  std::lock_guard<std::mutex> lock(mu_);
  RuleState& state = *rules_.at(static_cast<size_t>(id));
  state.released = true;
  state.release_result = std::move(result);
  cv_.notify_all();
}

int64_t FaultInjectingObjectStore::CallCount(ObjectStoreOp op) const {
  return counts_[Index(op)].load();
}

int64_t FaultInjectingObjectStore::TotalCallCount() const {
  int64_t total = 0;
  for (const auto& count : counts_) total += count.load();
  return total;
}

void FaultInjectingObjectStore::ResetCallCounts() {
  for (auto& count : counts_) count.store(0);
}

std::vector<std::shared_ptr<FaultInjectingObjectStore::RuleState>>
FaultInjectingObjectStore::Match(ObjectStoreOp op, std::string_view key,
                                 std::string_view other_key) {
  std::vector<std::shared_ptr<RuleState>> fired;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& state : rules_) {
    const FaultRule& rule = state->rule;
    if (state->removed || rule.op != op) continue;
    const bool key_matches =
        key.find(rule.key_substring) != std::string_view::npos ||
        (!other_key.empty() &&
         other_key.find(rule.key_substring) != std::string_view::npos);
    if (!key_matches) continue;
    if (!Fires(rule, ++state->matched)) continue;
    // A thawed freeze rule lets everything through.
    if (rule.action == FaultAction::kFreeze && state->released) continue;
    ++state->fired;
    fired.push_back(state);
  }
  return fired;
}

std::optional<Status> FaultInjectingObjectStore::Freeze(RuleState& state) {
  std::unique_lock<std::mutex> lock(mu_);
  ++state.frozen_now;
  cv_.notify_all();
  cv_.wait(lock, [&] { return state.released; });
  --state.frozen_now;
  if (state.release_result.ok()) return std::nullopt;
  return state.release_result;
}

FaultInjectingObjectStore::Verdict FaultInjectingObjectStore::Decide(
    ObjectStoreOp op, std::string_view key, std::string_view other_key) {
  counts_[Index(op)].fetch_add(1);
  Verdict verdict;
  // Rules act outside mu_: a delay or freeze must not block other calls.
  for (const auto& state : Match(op, key, other_key)) {
    const FaultRule& rule = state->rule;
    switch (rule.action) {
      case FaultAction::kDelay:
        sleeper_.Sleep(rule.delay);
        break;
      case FaultAction::kFreeze:
        verdict.fail = Freeze(*state);
        if (verdict.fail) return verdict;
        break;
      case FaultAction::kFail:
        verdict.fail = DefaultStatus(rule, op, key);
        return verdict;
      case FaultAction::kApplyThenDropReply:
        if (!verdict.drop_reply)
          verdict.drop_reply = DefaultStatus(rule, op, key);
        break;
    }
  }
  return verdict;
}

template <typename Result, typename Call>
Result FaultInjectingObjectStore::Intercept(ObjectStoreOp op,
                                            std::string_view key,
                                            std::string_view other_key,
                                            Call call) {
  Verdict verdict = Decide(op, key, other_key);
  if (verdict.fail) return Result(*std::move(verdict.fail));
  Result result = call();
  if (verdict.drop_reply) return Result(*std::move(verdict.drop_reply));
  return result;
}

StatusOr<std::string> FaultInjectingObjectStore::Get(
    std::string_view key, std::optional<ByteRange> range) {
  return Intercept<StatusOr<std::string>>(ObjectStoreOp::kGet, key, {}, [&] {
    return ForwardingObjectStore::Get(key, range);
  });
}

StatusOr<ObjectMeta> FaultInjectingObjectStore::Head(std::string_view key) {
  return Intercept<StatusOr<ObjectMeta>>(ObjectStoreOp::kHead, key, {}, [&] {
    return ForwardingObjectStore::Head(key);
  });
}

StatusOr<std::vector<ObjectMeta>> FaultInjectingObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  return Intercept<StatusOr<std::vector<ObjectMeta>>>(
      ObjectStoreOp::kList, prefix, {},
      [&] { return ForwardingObjectStore::List(prefix, start_after); });
}

Status FaultInjectingObjectStore::PutIfAbsent(std::string_view key,
                                              std::string_view data) {
  return Intercept<Status>(ObjectStoreOp::kPutIfAbsent, key, {}, [&] {
    return ForwardingObjectStore::PutIfAbsent(key, data);
  });
}

Status FaultInjectingObjectStore::Put(std::string_view key,
                                      std::string_view data) {
  return Intercept<Status>(ObjectStoreOp::kPut, key, {}, [&] {
    return ForwardingObjectStore::Put(key, data);
  });
}

Status FaultInjectingObjectStore::Copy(std::string_view src,
                                       std::string_view dst, bool if_absent) {
  return Intercept<Status>(ObjectStoreOp::kCopy, dst, src, [&] {
    return ForwardingObjectStore::Copy(src, dst, if_absent);
  });
}

Status FaultInjectingObjectStore::Delete(std::string_view key) {
  return Intercept<Status>(ObjectStoreOp::kDelete, key, {},
                           [&] { return ForwardingObjectStore::Delete(key); });
}

}  // namespace deltacommit
