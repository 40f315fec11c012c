#include "service/catalog/forwarding_catalog_store.h"

namespace deltacommit::service {

std::string ForwardingCatalogStore::Describe() const { return base_.Describe(); }

Status ForwardingCatalogStore::CreateCatalog(const CatalogEntry& catalog) {
  return base_.CreateCatalog(catalog);
}

StatusOr<std::optional<CatalogEntry>> ForwardingCatalogStore::GetCatalog(const std::string& name) {
  return base_.GetCatalog(name);
}

StatusOr<std::vector<CatalogEntry>> ForwardingCatalogStore::ListCatalogs() {
  return base_.ListCatalogs();
}

Status ForwardingCatalogStore::DeleteCatalog(const std::string& name) {
  return base_.DeleteCatalog(name);
}

Status ForwardingCatalogStore::CreateSchema(const SchemaEntry& schema) {
  return base_.CreateSchema(schema);
}

StatusOr<std::optional<SchemaEntry>> ForwardingCatalogStore::GetSchema(const std::string& catalog,
                                                                       const std::string& name) {
  return base_.GetSchema(catalog, name);
}

StatusOr<std::vector<SchemaEntry>> ForwardingCatalogStore::ListSchemas(const std::string& catalog) {
  return base_.ListSchemas(catalog);
}

Status ForwardingCatalogStore::DeleteSchema(const std::string& catalog, const std::string& name) {
  return base_.DeleteSchema(catalog, name);
}

Status ForwardingCatalogStore::CreateStagingTable(const StagingTableEntry& staging) {
  return base_.CreateStagingTable(staging);
}

StatusOr<std::optional<StagingTableEntry>> ForwardingCatalogStore::GetStagingTable(
    const std::string& table_id) {
  return base_.GetStagingTable(table_id);
}

StatusOr<std::optional<StagingTableEntry>> ForwardingCatalogStore::FindStagingTableByLocation(
    const std::string& location) {
  return base_.FindStagingTableByLocation(location);
}

Status ForwardingCatalogStore::CreateTable(const TableEntry& table,
                                           const std::optional<std::string>& staging_id) {
  return base_.CreateTable(table, staging_id);
}

StatusOr<std::optional<TableEntry>> ForwardingCatalogStore::GetTable(const TableName& name) {
  return base_.GetTable(name);
}

StatusOr<std::optional<TableEntry>> ForwardingCatalogStore::GetTableById(
    const std::string& table_id) {
  return base_.GetTableById(table_id);
}

StatusOr<std::vector<TableEntry>> ForwardingCatalogStore::ListTables(const std::string& catalog,
                                                                     const std::string& schema,
                                                                     const std::string& after,
                                                                     int64_t limit) {
  return base_.ListTables(catalog, schema, after, limit);
}

Status ForwardingCatalogStore::UpdateTable(const TableEntry& table,
                                           int64_t expected_updated_at_ms) {
  return base_.UpdateTable(table, expected_updated_at_ms);
}

Status ForwardingCatalogStore::RenameTable(const TableName& from, const std::string& new_name,
                                           int64_t updated_at_ms) {
  return base_.RenameTable(from, new_name, updated_at_ms);
}

Status ForwardingCatalogStore::DeleteTable(const TableName& name) {
  return base_.DeleteTable(name);
}

StatusOr<std::string> ForwardingCatalogStore::MetastoreId() { return base_.MetastoreId(); }

}  // namespace deltacommit::service
