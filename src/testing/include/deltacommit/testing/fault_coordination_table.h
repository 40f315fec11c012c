// FaultInjectingCoordinationTable: a CoordinationTable decorator that makes
// the calls of a wrapped table fail, lose their reply (PutIfAbsent and Put
// take effect, then answer kUnknownOutcome), slow down or freeze, by rules a
// test installs, and counts calls of each kind.
//
// The rules are FaultInjector's (deltacommit/testing/fault_injector.h). A call's keys are
// the entry's file_name, then its table_path (GetLatest, ListPage: the
// table_path only); messages name the first.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/clock.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/testing/port_faults.h"

namespace deltacommit {

enum class CoordinationTableOp {
  kPutIfAbsent,
  kPut,
  kGet,
  kGetLatest,
  kListPage
};
inline constexpr size_t kCoordinationTableOpCount = 5;

// "PutIfAbsent", "Put", ...
std::string_view CoordinationTableOpName(CoordinationTableOp op);

class FaultInjectingCoordinationTable : public ForwardingCoordinationTable,
                                        public PortFaults<CoordinationTableOp> {
 public:
  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingCoordinationTable(CoordinationTable& base,
                                           Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingCoordinationTable() override;

  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(
      const std::string& table_path, const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(
      const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                     const std::string& start_after,
                                     int limit) override;
};

}  // namespace deltacommit
