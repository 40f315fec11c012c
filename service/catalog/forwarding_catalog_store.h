// ForwardingCatalogStore: passes every call to a wrapped CatalogStore, so a
// decorator or test double derives from it and overrides only the calls it
// changes (as ForwardingStateStore does for the StateStore).
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
#include <vector>

#include "service/catalog/catalog_store.h"

namespace deltacommit::service {

class ForwardingCatalogStore : public CatalogStore {
 public:
  // `base` must outlive this object.
  explicit ForwardingCatalogStore(CatalogStore& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingCatalogStore(std::unique_ptr<CatalogStore> base)
      : ForwardingCatalogStore(*base) {
    owned_ = std::move(base);
  }

  CatalogStore& base() const { return base_; }

  std::string Describe() const override;
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

 private:
  CatalogStore& base_;
  std::unique_ptr<CatalogStore> owned_;  // null when borrowed
};

}  // namespace deltacommit::service
