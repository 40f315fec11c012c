#include "deltacommit/testing/recording_commit_service_client.h"

namespace deltacommit {

ServiceCommitResult RecordingCommitServiceClient::Commit(
    const ServiceCommitRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  commits_.push_back(request);
  if (commit_result_) return *commit_result_;
  ServiceCommitResult result;
  result.version = request.version;
  return result;
}

StatusOr<PendingCommits> RecordingCommitServiceClient::GetPendingCommits(
    std::string_view table, Version start) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_queries_.push_back({std::string(table), start});
  return pending_;
}

void RecordingCommitServiceClient::SetCommitResult(
    std::optional<ServiceCommitResult> result) {
  std::lock_guard<std::mutex> lock(mu_);
  commit_result_ = std::move(result);
}

void RecordingCommitServiceClient::SetPending(
    StatusOr<PendingCommits> pending) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_ = std::move(pending);
}

std::vector<ServiceCommitRequest> RecordingCommitServiceClient::commits()
    const {
  std::lock_guard<std::mutex> lock(mu_);
  return commits_;
}

std::vector<RecordingCommitServiceClient::PendingQuery>
RecordingCommitServiceClient::pending_queries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_queries_;
}

}  // namespace deltacommit
