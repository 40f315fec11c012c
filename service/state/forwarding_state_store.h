// ForwardingStateStore: passes every call to a wrapped StateStore, so a
// decorator or test double derives from it and overrides only the calls it
// changes (as the core's ports do, deltacommit/forwarding_ports.h).
//
// It either borrows the wrapped store (the caller keeps it alive) or owns
// it; base() is the wrapped store either way.
//
// Thread-safety: as safe as the wrapped store.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/state/state_store.h"

namespace deltacommit::service {

class ForwardingStateStore : public StateStore {
 public:
  // `base` must outlive this object.
  explicit ForwardingStateStore(StateStore& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingStateStore(std::unique_ptr<StateStore> base)
      : ForwardingStateStore(*base) {
    owned_ = std::move(base);
  }

  StateStore& base() const { return base_; }

  std::string Describe() const override;
  Status Ratify(const CommitRecord& record, RatifyConflict* conflict) override;
  StatusOr<std::optional<CommitRecord>> Get(const std::string& table,
                                            Version version) override;
  StatusOr<std::optional<CommitRecord>> Latest(
      const std::string& table) override;
  StatusOr<std::vector<CommitRecord>> ListFrom(const std::string& table,
                                               Version start,
                                               int64_t limit) override;
  StatusOr<std::vector<CommitRecord>> Unpublished(const std::string& table,
                                                  int64_t limit) override;
  Status MarkPublishedThrough(const std::string& table,
                              Version version) override;
  StatusOr<std::optional<AppliedTxn>> LatestAppTxn(
      const std::string& table, std::string_view app_id) override;
  StatusOr<int64_t> ForgetPublishedBefore(const std::string& table,
                                          Version version) override;

 private:
  StateStore& base_;
  std::unique_ptr<StateStore> owned_;  // null when borrowed
};

}  // namespace deltacommit::service
