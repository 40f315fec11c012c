// FaultyCatalogStore: the fault-injecting CatalogStore decorator for tests,
// beside FaultyStateStore: calls fail, lose their reply (the call takes
// effect, then answers kUnknownOutcome), slow down or freeze by the rules of
// deltacommit/testing/fault_injector.h, and are counted by kind. Without
// rules it forwards every call, so it keeps the contract of the store it
// wraps (the contract suite runs it).
//
// A call's key is the name or id it acts on ("catalog.schema.table" for
// tables, the table id for id lookups, the location for location lookups).
//
// Thread-safety: safe for concurrent use; rules may be added or released
// while calls are in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/testing/port_faults.h"
#include "service/catalog/forwarding_catalog_store.h"

namespace deltacommit::service::testing {

enum class CatalogStoreOp {
  kCreateCatalog,
  kGetCatalog,
  kListCatalogs,
  kDeleteCatalog,
  kCreateSchema,
  kGetSchema,
  kListSchemas,
  kDeleteSchema,
  kCreateStagingTable,
  kGetStagingTable,
  kFindStagingTableByLocation,
  kCreateTable,
  kGetTable,
  kGetTableById,
  kListTables,
  kUpdateTable,
  kRenameTable,
  kDeleteTable,
  kMetastoreId,
};
inline constexpr size_t kCatalogStoreOpCount = 19;

// "CreateCatalog", "GetCatalog", ...
std::string_view CatalogStoreOpName(CatalogStoreOp op);

class FaultyCatalogStore : public ForwardingCatalogStore, public PortFaults<CatalogStoreOp> {
 public:
  // `base` and `sleeper` must outlive this.
  explicit FaultyCatalogStore(CatalogStore& base, Sleeper& sleeper = RealSleeper());
  // Releases frozen calls so no thread is left blocked on a dead object.
  ~FaultyCatalogStore() override;

  Status CreateCatalog(const CatalogEntry& catalog) override;
  StatusOr<std::optional<CatalogEntry>> GetCatalog(const std::string& name) override;
  StatusOr<std::vector<CatalogEntry>> ListCatalogs() override;
  Status DeleteCatalog(const std::string& name) override;
  Status CreateSchema(const SchemaEntry& schema) override;
  StatusOr<std::optional<SchemaEntry>> GetSchema(const std::string& catalog,
                                                 const std::string& name) override;
  StatusOr<std::vector<SchemaEntry>> ListSchemas(const std::string& catalog) override;
  Status DeleteSchema(const std::string& catalog, const std::string& name) override;
  Status CreateStagingTable(const StagingTableEntry& staging) override;
  StatusOr<std::optional<StagingTableEntry>> GetStagingTable(const std::string& table_id) override;
  StatusOr<std::optional<StagingTableEntry>> FindStagingTableByLocation(
      const std::string& location) override;
  Status CreateTable(const TableEntry& table,
                     const std::optional<std::string>& staging_id) override;
  StatusOr<std::optional<TableEntry>> GetTable(const TableName& name) override;
  StatusOr<std::optional<TableEntry>> GetTableById(const std::string& table_id) override;
  StatusOr<std::vector<TableEntry>> ListTables(const std::string& catalog,
                                               const std::string& schema, const std::string& after,
                                               int64_t limit) override;
  Status UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) override;
  Status RenameTable(const TableName& from, const std::string& new_name,
                     int64_t updated_at_ms) override;
  Status DeleteTable(const TableName& name) override;
  StatusOr<std::string> MetastoreId() override;
  std::string Describe() const override;
};

}  // namespace deltacommit::service::testing
