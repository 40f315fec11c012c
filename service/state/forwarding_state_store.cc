#include "service/state/forwarding_state_store.h"

namespace deltacommit::service {

std::string ForwardingStateStore::Describe() const { return base_.Describe(); }

Status ForwardingStateStore::Ratify(const CommitRecord& record,
                                    RatifyConflict* conflict) {
  return base_.Ratify(record, conflict);
}

StatusOr<std::optional<CommitRecord>> ForwardingStateStore::Get(
    const std::string& table, Version version) {
  return base_.Get(table, version);
}

StatusOr<std::optional<CommitRecord>> ForwardingStateStore::Latest(
    const std::string& table) {
  return base_.Latest(table);
}

StatusOr<std::vector<CommitRecord>> ForwardingStateStore::ListFrom(
    const std::string& table, Version start, int64_t limit) {
  return base_.ListFrom(table, start, limit);
}

StatusOr<std::vector<CommitRecord>> ForwardingStateStore::Unpublished(
    const std::string& table, int64_t limit) {
  return base_.Unpublished(table, limit);
}

Status ForwardingStateStore::MarkPublishedThrough(const std::string& table,
                                                  Version version) {
  return base_.MarkPublishedThrough(table, version);
}

StatusOr<std::optional<AppliedTxn>> ForwardingStateStore::LatestAppTxn(
    const std::string& table, std::string_view app_id) {
  return base_.LatestAppTxn(table, app_id);
}

StatusOr<int64_t> ForwardingStateStore::ForgetPublishedBefore(
    const std::string& table, Version version) {
  return base_.ForgetPublishedBefore(table, version);
}

}  // namespace deltacommit::service
