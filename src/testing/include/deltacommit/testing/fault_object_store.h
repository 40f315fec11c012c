// FaultInjectingObjectStore: an ObjectStore decorator that makes the calls of
// a wrapped store fail, lose their reply, slow down or freeze, by rules a test
// installs, and counts calls of each kind (benchmarks read the counts).
//
// The rules are FaultInjector's (deltacommit/testing/fault_injector.h). A call's keys are
// its key (Copy: dst, then src; List: the prefix); messages name the first.
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/testing/port_faults.h"

namespace deltacommit {

enum class ObjectStoreOp {
  kGet,
  kHead,
  kList,
  kPutIfAbsent,
  kPut,
  kCopy,
  kDelete
};
inline constexpr size_t kObjectStoreOpCount = 7;

// "Get", "Head", ...
std::string_view ObjectStoreOpName(ObjectStoreOp op);

using FaultRule = PortFaultRule<ObjectStoreOp>;

class FaultInjectingObjectStore : public ForwardingObjectStore,
                                  public PortFaults<ObjectStoreOp> {
 public:
  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingObjectStore(ObjectStore& base,
                                     Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingObjectStore() override;

  StatusOr<std::string> Get(
      std::string_view key,
      std::optional<ByteRange> range = std::nullopt) override;
  StatusOr<ObjectMeta> Head(std::string_view key) override;
  StatusOr<std::vector<ObjectMeta>> List(
      std::string_view prefix, std::string_view start_after = {}) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status Copy(std::string_view src, std::string_view dst,
              bool if_absent) override;
  Status Delete(std::string_view key) override;
};

}  // namespace deltacommit
