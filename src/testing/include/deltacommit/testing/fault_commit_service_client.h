// FaultInjectingCommitServiceClient: a CommitServiceClient decorator that
// makes the calls of a wrapped client fail (a result with that status,
// nothing committed), lose their reply (the commit is ratified, then the
// result says kUnknownOutcome), slow down or freeze, by rules a test
// installs, and counts calls of each kind. Describe() and Url() are not
// remote calls and are never faulted.
//
// The rules are FaultInjector's (deltacommit/testing/fault_injector.h). A call's keys are
// the table, then for Commit the staged_file (coordinated mode); messages
// name the first.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <string_view>

#include "deltacommit/clock.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/testing/port_faults.h"

namespace deltacommit {

enum class CommitServiceClientOp { kCommit, kGetPendingCommits };
inline constexpr size_t kCommitServiceClientOpCount = 2;

// "Commit", "GetPendingCommits".
std::string_view CommitServiceClientOpName(CommitServiceClientOp op);

class FaultInjectingCommitServiceClient
    : public ForwardingCommitServiceClient,
      public PortFaults<CommitServiceClientOp> {
 public:
  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingCommitServiceClient(CommitServiceClient& base,
                                             Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingCommitServiceClient() override;

  // A faulted result carries only its status (version -1, nothing merged).
  ServiceCommitResult Commit(const ServiceCommitRequest& request) override;
  StatusOr<PendingCommits> GetPendingCommits(std::string_view table,
                                             Version start) override;
};

}  // namespace deltacommit
