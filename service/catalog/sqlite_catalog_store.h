// SqliteCatalogStore: the CatalogStore in the state store's SQLite file
// (the uc_* tables of service/state/sqlite_schema.h), so one file holds a
// single instance's commits and its catalog, and one backup covers both.
//
// Each write is one BEGIN IMMEDIATE transaction: the checks (the schema
// exists, a staging table is not finalised, updated_at is as expected) and
// the write see one state, also across processes on one file. Names, ids
// and locations are unique by the schema's keys, so a second writer of the
// same name finds it taken even when the checks raced.
//
// Thread-safety: safe for concurrent use; one connection, serialised by a
// mutex (catalog calls are rare beside commits).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "service/catalog/catalog_store.h"
#include "service/state/sqlite_db.h"

namespace deltacommit::service {

class SqliteCatalogStore : public CatalogStore {
 public:
  // Opens or creates the file and its schema, as SqliteStateStore::Open
  // does (the same errors).
  static StatusOr<std::unique_ptr<SqliteCatalogStore>> Open(const std::string& path,
                                                            int busy_timeout_ms = 5000);

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
  explicit SqliteCatalogStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT (or BEGIN for reads),
  // rolling back when it fails. REQUIRES: mu_ held.
  template <typename Body>
  auto InTransaction(bool write, Body body) -> decltype(body());

  // REQUIRES: mu_ held.
  StatusOr<bool> SchemaExists(const std::string& catalog, const std::string& schema);
  StatusOr<std::optional<StagingTableEntry>> ReadStaging(const char* sql, const std::string& key);
  StatusOr<std::optional<TableEntry>> ReadTable(const char* sql, const std::string& a,
                                                const std::string& b = {},
                                                const std::string& c = {});
  Status WriteTable(const char* sql, const TableEntry& table);

  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace deltacommit::service
