#include "service/commits/testing/faulty_catalog_store.h"

#include <array>

namespace deltacommit::service::testing {
namespace {

// Indexed by CatalogStoreOp.
constexpr std::array<std::string_view, kCatalogStoreOpCount> kCatalogStoreOpNames = {
    "CreateCatalog",
    "GetCatalog",
    "ListCatalogs",
    "DeleteCatalog",
    "CreateSchema",
    "GetSchema",
    "ListSchemas",
    "DeleteSchema",
    "CreateStagingTable",
    "GetStagingTable",
    "FindStagingTableByLocation",
    "CreateTable",
    "GetTable",
    "GetTableById",
    "ListTables",
    "UpdateTable",
    "RenameTable",
    "DeleteTable",
    "MetastoreId",
};

}  // namespace

std::string_view CatalogStoreOpName(CatalogStoreOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kCatalogStoreOpNames.size() ? kCatalogStoreOpNames[index] : "Unknown";
}

FaultyCatalogStore::FaultyCatalogStore(CatalogStore& base, Sleeper& sleeper)
    : ForwardingCatalogStore(base), PortFaults(kCatalogStoreOpNames, sleeper) {}

FaultyCatalogStore::~FaultyCatalogStore() { ClearRules(); }

std::string FaultyCatalogStore::Describe() const {
  return "faulty " + ForwardingCatalogStore::Describe();
}

Status FaultyCatalogStore::CreateCatalog(const CatalogEntry& catalog) {
  const std::string key = catalog.name;
  return Intercept<Status>(CatalogStoreOp::kCreateCatalog, {key},
                           [&] { return ForwardingCatalogStore::CreateCatalog(catalog); });
}

StatusOr<std::optional<CatalogEntry>> FaultyCatalogStore::GetCatalog(const std::string& name) {
  const std::string key = name;
  return Intercept<StatusOr<std::optional<CatalogEntry>>>(
      CatalogStoreOp::kGetCatalog, {key}, [&] { return ForwardingCatalogStore::GetCatalog(name); });
}

StatusOr<std::vector<CatalogEntry>> FaultyCatalogStore::ListCatalogs() {
  const std::string key = "";
  return Intercept<StatusOr<std::vector<CatalogEntry>>>(
      CatalogStoreOp::kListCatalogs, {key}, [&] { return ForwardingCatalogStore::ListCatalogs(); });
}

Status FaultyCatalogStore::DeleteCatalog(const std::string& name) {
  const std::string key = name;
  return Intercept<Status>(CatalogStoreOp::kDeleteCatalog, {key},
                           [&] { return ForwardingCatalogStore::DeleteCatalog(name); });
}

Status FaultyCatalogStore::CreateSchema(const SchemaEntry& schema) {
  const std::string key = schema.catalog + "." + schema.name;
  return Intercept<Status>(CatalogStoreOp::kCreateSchema, {key},
                           [&] { return ForwardingCatalogStore::CreateSchema(schema); });
}

StatusOr<std::optional<SchemaEntry>> FaultyCatalogStore::GetSchema(const std::string& catalog,
                                                                   const std::string& name) {
  const std::string key = catalog + "." + name;
  return Intercept<StatusOr<std::optional<SchemaEntry>>>(CatalogStoreOp::kGetSchema, {key}, [&] {
    return ForwardingCatalogStore::GetSchema(catalog, name);
  });
}

StatusOr<std::vector<SchemaEntry>> FaultyCatalogStore::ListSchemas(const std::string& catalog) {
  const std::string key = catalog;
  return Intercept<StatusOr<std::vector<SchemaEntry>>>(CatalogStoreOp::kListSchemas, {key}, [&] {
    return ForwardingCatalogStore::ListSchemas(catalog);
  });
}

Status FaultyCatalogStore::DeleteSchema(const std::string& catalog, const std::string& name) {
  const std::string key = catalog + "." + name;
  return Intercept<Status>(CatalogStoreOp::kDeleteSchema, {key},
                           [&] { return ForwardingCatalogStore::DeleteSchema(catalog, name); });
}

Status FaultyCatalogStore::CreateStagingTable(const StagingTableEntry& staging) {
  const std::string key = staging.table_id;
  return Intercept<Status>(CatalogStoreOp::kCreateStagingTable, {key},
                           [&] { return ForwardingCatalogStore::CreateStagingTable(staging); });
}

StatusOr<std::optional<StagingTableEntry>> FaultyCatalogStore::GetStagingTable(
    const std::string& table_id) {
  const std::string key = table_id;
  return Intercept<StatusOr<std::optional<StagingTableEntry>>>(
      CatalogStoreOp::kGetStagingTable, {key},
      [&] { return ForwardingCatalogStore::GetStagingTable(table_id); });
}

StatusOr<std::optional<StagingTableEntry>> FaultyCatalogStore::FindStagingTableByLocation(
    const std::string& location) {
  const std::string key = location;
  return Intercept<StatusOr<std::optional<StagingTableEntry>>>(
      CatalogStoreOp::kFindStagingTableByLocation, {key},
      [&] { return ForwardingCatalogStore::FindStagingTableByLocation(location); });
}

Status FaultyCatalogStore::CreateTable(const TableEntry& table,
                                       const std::optional<std::string>& staging_id) {
  const std::string key = table.name.FullName();
  return Intercept<Status>(CatalogStoreOp::kCreateTable, {key},
                           [&] { return ForwardingCatalogStore::CreateTable(table, staging_id); });
}

StatusOr<std::optional<TableEntry>> FaultyCatalogStore::GetTable(const TableName& name) {
  const std::string key = name.FullName();
  return Intercept<StatusOr<std::optional<TableEntry>>>(
      CatalogStoreOp::kGetTable, {key}, [&] { return ForwardingCatalogStore::GetTable(name); });
}

StatusOr<std::optional<TableEntry>> FaultyCatalogStore::GetTableById(const std::string& table_id) {
  const std::string key = table_id;
  return Intercept<StatusOr<std::optional<TableEntry>>>(CatalogStoreOp::kGetTableById, {key}, [&] {
    return ForwardingCatalogStore::GetTableById(table_id);
  });
}

StatusOr<std::vector<TableEntry>> FaultyCatalogStore::ListTables(const std::string& catalog,
                                                                 const std::string& schema,
                                                                 const std::string& after,
                                                                 int64_t limit) {
  const std::string key = catalog + "." + schema;
  return Intercept<StatusOr<std::vector<TableEntry>>>(CatalogStoreOp::kListTables, {key}, [&] {
    return ForwardingCatalogStore::ListTables(catalog, schema, after, limit);
  });
}

Status FaultyCatalogStore::UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) {
  const std::string key = table.name.FullName();
  return Intercept<Status>(CatalogStoreOp::kUpdateTable, {key}, [&] {
    return ForwardingCatalogStore::UpdateTable(table, expected_updated_at_ms);
  });
}

Status FaultyCatalogStore::RenameTable(const TableName& from, const std::string& new_name,
                                       int64_t updated_at_ms) {
  const std::string key = from.FullName();
  return Intercept<Status>(CatalogStoreOp::kRenameTable, {key}, [&] {
    return ForwardingCatalogStore::RenameTable(from, new_name, updated_at_ms);
  });
}

Status FaultyCatalogStore::DeleteTable(const TableName& name) {
  const std::string key = name.FullName();
  return Intercept<Status>(CatalogStoreOp::kDeleteTable, {key},
                           [&] { return ForwardingCatalogStore::DeleteTable(name); });
}

StatusOr<std::string> FaultyCatalogStore::MetastoreId() {
  return Intercept<StatusOr<std::string>>(CatalogStoreOp::kMetastoreId, {""},
                                          [&] { return ForwardingCatalogStore::MetastoreId(); });
}

}  // namespace deltacommit::service::testing
