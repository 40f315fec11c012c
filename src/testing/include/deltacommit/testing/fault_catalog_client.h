// FaultInjectingCatalogClient: a CatalogClient decorator that makes the
// calls of a wrapped client fail (nothing done), lose their reply (the call
// is applied, then its result says kUnknownOutcome), slow down or freeze,
// by rules a test installs, and counts calls of each kind. Describe() is
// not a remote call and is never faulted.
//
// The rules are FaultInjector's (deltacommit/testing/fault_injector.h). A
// call's keys are the table's full name (catalog.schema.table; the table id
// for StagingTableCredentials), then for Commit the staged file; messages
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

enum class CatalogClientOp {
  kLoadTable,
  kTableCredentials,
  kCreateStagingTable,
  kStagingTableCredentials,
  kCreateTable,
  kCommit,
};
inline constexpr size_t kCatalogClientOpCount = 6;

// "LoadTable", "TableCredentials", ..., "Commit".
std::string_view CatalogClientOpName(CatalogClientOp op);

class FaultInjectingCatalogClient : public ForwardingCatalogClient,
                                    public PortFaults<CatalogClientOp> {
 public:
  // `base` and `sleeper` must outlive this object.
  explicit FaultInjectingCatalogClient(CatalogClient& base, Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultInjectingCatalogClient() override;

  StatusOr<CatalogTable> LoadTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> TableCredentials(const CatalogTableName& name,
                                               std::string_view location,
                                               CatalogAccess access) override;
  StatusOr<CatalogStagingTable> CreateStagingTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> StagingTableCredentials(const std::string& table_id) override;
  Status CreateTable(const CatalogTableName& name, const CatalogNewTable& table) override;
  Status Commit(const CatalogTableName& name, const std::string& table_id,
                const CatalogCommit& commit, std::optional<Version> backfilled) override;
};

}  // namespace deltacommit
