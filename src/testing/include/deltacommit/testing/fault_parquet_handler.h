// FaultInjectingParquetHandler: a ParquetHandler decorator that makes the
// calls of a wrapped handler fail, lose their reply (WriteCheckpoint writes
// the file, then answers kUnknownOutcome), slow down or freeze, by rules a
// test installs, and counts calls of each kind.
//
// The rules are FaultInjector's (deltacommit/testing/fault_injector.h). A call's keys are
// its checkpoint keys (ReadCheckpointActions and ReadCheckpoint, one read
// of every part in order, both under kReadCheckpointActions; the two
// writes, of their one key, under kWriteCheckpoint);
// messages name the first.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/testing/port_faults.h"

namespace deltacommit {

enum class ParquetHandlerOp { kReadCheckpointActions, kWriteCheckpoint };
inline constexpr size_t kParquetHandlerOpCount = 2;

// "ReadCheckpointActions", "WriteCheckpoint".
std::string_view ParquetHandlerOpName(ParquetHandlerOp op);

class FaultInjectingParquetHandler : public ForwardingParquetHandler,
                                     public PortFaults<ParquetHandlerOp> {
 public:
  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingParquetHandler(ParquetHandler& base,
                                        Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingParquetHandler() override;

  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override;
  StatusOr<std::vector<Action>> ReadCheckpoint(ObjectStore& store,
                                               const std::vector<std::string>& keys) override;
  Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                 const ActionBatch& apply) override;
  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<Action>& actions) override;
  StatusOr<int64_t> WriteCheckpointActions(
      ObjectStore& store, const std::string& key,
      const std::vector<std::string>& action_lines) override;
};

}  // namespace deltacommit
