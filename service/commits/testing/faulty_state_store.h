// FaultyStateStore: a StateStore decorator for tests that makes calls fail
// (the store down) or applies a Ratify and loses its reply (kUnknownOutcome).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "service/state/state_store.h"

namespace deltacommit::service::testing {

class FaultyStateStore : public StateStore {
 public:
  // `base` must outlive this.
  explicit FaultyStateStore(StateStore& base) : base_(base) {}

  // Every call fails with kUnavailable while set.
  void SetDown(bool down) { down_ = down; }
  // The next `n` Ratify calls are applied, then answer kUnknownOutcome.
  void DropRatifyReplies(int n) { drop_ratify_replies_ = n; }
  int64_t RatifyCalls() const { return ratify_calls_.load(); }

  std::string Describe() const override { return "faulty " + base_.Describe(); }
  Status Ratify(const CommitRecord& record, RatifyConflict* conflict) override;
  StatusOr<std::optional<CommitRecord>> Get(const std::string& table, Version version) override;
  StatusOr<std::optional<CommitRecord>> Latest(const std::string& table) override;
  StatusOr<std::vector<CommitRecord>> ListFrom(const std::string& table, Version start,
                                               int64_t limit) override;
  StatusOr<std::vector<CommitRecord>> Unpublished(const std::string& table,
                                                  int64_t limit) override;
  Status MarkPublishedThrough(const std::string& table, Version version) override;
  StatusOr<int64_t> ForgetPublishedBefore(const std::string& table, Version version) override;
  StatusOr<std::optional<AppliedTxn>> LatestAppTxn(const std::string& table,
                                                   std::string_view app_id) override;

 private:
  Status Down() const;

  StateStore& base_;
  std::atomic<bool> down_{false};
  std::atomic<int> drop_ratify_replies_{0};
  std::atomic<int64_t> ratify_calls_{0};
};

}  // namespace deltacommit::service::testing
