#include "service/commits/testing/faulty_state_store.h"

namespace deltacommit::service::testing {

Status FaultyStateStore::Down() const {
  return down_ ? UnavailableError("test state store is down") : OkStatus();
}

Status FaultyStateStore::Ratify(const CommitRecord& record, RatifyConflict* conflict) {
  ++ratify_calls_;
  DC_RETURN_IF_ERROR(Down());
  Status status = base_.Ratify(record, conflict);
  if (drop_ratify_replies_.fetch_sub(1) > 0) {
    return UnknownOutcomeError("test: the Ratify reply was lost");
  }
  return status;
}

StatusOr<std::optional<CommitRecord>> FaultyStateStore::Get(const std::string& table,
                                                            Version version) {
  DC_RETURN_IF_ERROR(Down());
  return base_.Get(table, version);
}

StatusOr<std::optional<CommitRecord>> FaultyStateStore::Latest(const std::string& table) {
  DC_RETURN_IF_ERROR(Down());
  return base_.Latest(table);
}

StatusOr<std::vector<CommitRecord>> FaultyStateStore::ListFrom(const std::string& table,
                                                               Version start, int64_t limit) {
  DC_RETURN_IF_ERROR(Down());
  return base_.ListFrom(table, start, limit);
}

StatusOr<std::vector<CommitRecord>> FaultyStateStore::Unpublished(const std::string& table,
                                                                  int64_t limit) {
  DC_RETURN_IF_ERROR(Down());
  return base_.Unpublished(table, limit);
}

Status FaultyStateStore::MarkPublishedThrough(const std::string& table, Version version) {
  DC_RETURN_IF_ERROR(Down());
  return base_.MarkPublishedThrough(table, version);
}

StatusOr<int64_t> FaultyStateStore::ForgetPublishedBefore(const std::string& table,
                                                          Version version) {
  DC_RETURN_IF_ERROR(Down());
  return base_.ForgetPublishedBefore(table, version);
}

StatusOr<std::optional<AppliedTxn>> FaultyStateStore::LatestAppTxn(const std::string& table,
                                                                   std::string_view app_id) {
  DC_RETURN_IF_ERROR(Down());
  return base_.LatestAppTxn(table, app_id);
}

}  // namespace deltacommit::service::testing
