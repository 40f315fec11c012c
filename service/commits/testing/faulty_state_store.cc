#include "service/commits/testing/faulty_state_store.h"

#include <array>
#include <utility>

namespace deltacommit::service::testing {
namespace {

// Indexed by StateStoreOp.
constexpr std::array<std::string_view, kStateStoreOpCount> kStateStoreOpNames = {
    "Ratify",       "Get",
    "Latest",       "ListFrom",
    "Unpublished",  "MarkPublishedThrough",
    "LatestAppTxn", "ForgetPublishedBefore"};

}  // namespace

std::string_view StateStoreOpName(StateStoreOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kStateStoreOpNames.size() ? kStateStoreOpNames[index] : "Unknown";
}

FaultyStateStore::FaultyStateStore(StateStore& base, Sleeper& sleeper)
    : ForwardingStateStore(base), PortFaults(kStateStoreOpNames, sleeper) {}

FaultyStateStore::~FaultyStateStore() { ClearRules(); }

void FaultyStateStore::SetDown(bool down) {
  std::lock_guard<std::mutex> lock(mu_);
  if (down == !down_rules_.empty()) return;
  if (!down) {
    for (RuleId id : down_rules_) RemoveRule(id);
    down_rules_.clear();
    return;
  }
  for (size_t i = 0; i < kStateStoreOpCount; ++i) {
    down_rules_.push_back(
        FailEveryCall(static_cast<StateStoreOp>(i), "",
                      UnavailableError("test state store is down")));
  }
}

void FaultyStateStore::DropRatifyReplies(int n) {
  if (n <= 0) return;
  Rule rule;
  rule.op = StateStoreOp::kRatify;
  rule.times = n;
  rule.action = FaultAction::kApplyThenDropReply;
  rule.status = UnknownOutcomeError("test: the Ratify reply was lost");
  AddRule(std::move(rule));
}

std::string FaultyStateStore::Describe() const {
  return "faulty " + ForwardingStateStore::Describe();
}

Status FaultyStateStore::Ratify(const CommitRecord& record,
                                RatifyConflict* conflict) {
  // Not Intercept: a lost reply also clears `conflict`.
  const std::array<std::string_view, 1> keys = {record.table};
  FaultVerdict verdict = Decide(StateStoreOp::kRatify, keys);
  if (verdict.fail) return *std::move(verdict.fail);
  Status status = ForwardingStateStore::Ratify(record, conflict);
  if (!verdict.drop_reply) return status;
  if (conflict != nullptr) *conflict = RatifyConflict{};
  return *std::move(verdict.drop_reply);
}

StatusOr<std::optional<CommitRecord>> FaultyStateStore::Get(
    const std::string& table, Version version) {
  return Intercept<StatusOr<std::optional<CommitRecord>>>(
      StateStoreOp::kGet, {table},
      [&] { return ForwardingStateStore::Get(table, version); });
}

StatusOr<std::optional<CommitRecord>> FaultyStateStore::Latest(
    const std::string& table) {
  return Intercept<StatusOr<std::optional<CommitRecord>>>(
      StateStoreOp::kLatest, {table},
      [&] { return ForwardingStateStore::Latest(table); });
}

StatusOr<std::vector<CommitRecord>> FaultyStateStore::ListFrom(
    const std::string& table, Version start, int64_t limit) {
  return Intercept<StatusOr<std::vector<CommitRecord>>>(
      StateStoreOp::kListFrom, {table},
      [&] { return ForwardingStateStore::ListFrom(table, start, limit); });
}

StatusOr<std::vector<CommitRecord>> FaultyStateStore::Unpublished(
    const std::string& table, int64_t limit) {
  return Intercept<StatusOr<std::vector<CommitRecord>>>(
      StateStoreOp::kUnpublished, {table},
      [&] { return ForwardingStateStore::Unpublished(table, limit); });
}

Status FaultyStateStore::MarkPublishedThrough(const std::string& table,
                                              Version version) {
  return Intercept<Status>(StateStoreOp::kMarkPublishedThrough, {table}, [&] {
    return ForwardingStateStore::MarkPublishedThrough(table, version);
  });
}

StatusOr<std::optional<AppliedTxn>> FaultyStateStore::LatestAppTxn(
    const std::string& table, std::string_view app_id) {
  return Intercept<StatusOr<std::optional<AppliedTxn>>>(
      StateStoreOp::kLatestAppTxn, {table, app_id},
      [&] { return ForwardingStateStore::LatestAppTxn(table, app_id); });
}

StatusOr<int64_t> FaultyStateStore::ForgetPublishedBefore(
    const std::string& table, Version version) {
  return Intercept<StatusOr<int64_t>>(
      StateStoreOp::kForgetPublishedBefore, {table}, [&] {
        return ForwardingStateStore::ForgetPublishedBefore(table, version);
      });
}

}  // namespace deltacommit::service::testing
