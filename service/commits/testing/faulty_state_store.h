// FaultyStateStore: the fault-injecting StateStore decorator for tests. It
// makes calls fail, lose their reply (the call takes effect, then answers
// kUnknownOutcome: a Ratify that may have been applied), slow down or
// freeze, by the rules of deltacommit/testing/fault_injector.h, and counts calls of each
// kind. SetDown and DropRatifyReplies are shorthands for such rules; like
// every rule they act in the order they were added.
//
// A call's key is its table (LatestAppTxn: then the app id).
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/testing/port_faults.h"
#include "service/state/forwarding_state_store.h"

namespace deltacommit::service::testing {

enum class StateStoreOp {
  kRatify,
  kGet,
  kLatest,
  kListFrom,
  kUnpublished,
  kMarkPublishedThrough,
  kLatestAppTxn,
  kForgetPublishedBefore,
};
inline constexpr size_t kStateStoreOpCount = 8;

// "Ratify", "Get", ...
std::string_view StateStoreOpName(StateStoreOp op);

class FaultyStateStore : public ForwardingStateStore,
                         public PortFaults<StateStoreOp> {
 public:
  // `base` and `sleeper` must outlive this.
  explicit FaultyStateStore(StateStore& base, Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultyStateStore() override;

  // Every call fails with kUnavailable while set (one kFail rule per kind).
  void SetDown(bool down);
  // The next `n` Ratify calls are applied, then answer kUnknownOutcome.
  void DropRatifyReplies(int n);
  // Ratify calls received, faulted ones included.
  int64_t RatifyCalls() const { return CallCount(StateStoreOp::kRatify); }

  std::string Describe() const override;
  // A lost reply leaves `conflict` empty: it tells nothing.
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
  std::mutex mu_;
  std::vector<RuleId> down_rules_;  // guarded by mu_; empty when not down
};

}  // namespace deltacommit::service::testing
