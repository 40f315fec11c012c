// RecordingCommitServiceClient: a CommitServiceClient for tests that records
// every request it receives and answers what the test set: a Commit is
// "ratified" by being recorded (OK at the requested version unless
// SetCommitResult said otherwise), GetPendingCommits answers SetPending's
// value.
//
// Thread-safety: safe for concurrent use (one mutex).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/commit_service_client.h"

namespace deltacommit {

class RecordingCommitServiceClient : public CommitServiceClient {
 public:
  struct PendingQuery {
    std::string table;
    Version start = -1;
    friend bool operator==(const PendingQuery&, const PendingQuery&) = default;
  };

  std::string Describe() const override { return "recording commit service"; }
  std::string Url() const override { return "http://recording"; }
  ServiceCommitResult Commit(const ServiceCommitRequest& request) override;
  StatusOr<PendingCommits> GetPendingCommits(std::string_view table,
                                             Version start) override;

  // What every later Commit answers (nullopt: OK at the requested version).
  void SetCommitResult(std::optional<ServiceCommitResult> result);
  // What every later GetPendingCommits answers (default: none, latest -1).
  void SetPending(StatusOr<PendingCommits> pending);

  std::vector<ServiceCommitRequest> commits() const;
  std::vector<PendingQuery> pending_queries() const;

 private:
  mutable std::mutex mu_;
  std::optional<ServiceCommitResult> commit_result_;     // guarded by mu_
  StatusOr<PendingCommits> pending_ = PendingCommits{};  // guarded by mu_
  std::vector<ServiceCommitRequest> commits_;            // guarded by mu_
  std::vector<PendingQuery> pending_queries_;            // guarded by mu_
};

}  // namespace deltacommit
