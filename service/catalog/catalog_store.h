// CatalogStore: the port to the names the commit service serves as a Unity
// Catalog (docs/unity-catalog.md): catalogs, the schemas in them, and the
// tables in those, each table a Delta table at a storage location, plus the
// staging tables a client creates before it writes version 0 of a managed
// table. The commits of a table are not here: they are the StateStore's,
// keyed by the table's storage location, so a catalog-managed table has one
// commit history whichever API (ours or Unity Catalog's) wrote it.
//
// Names are compared exactly (no case folding) and checked with
// ValidateCatalogName (catalog_entries.h) by the caller; locations are
// normalised table URIs (service/config/table_uri.h).
//
// Codes every call may return besides those listed: kUnavailable (the store
// cannot be reached or is busy), kPermissionDenied, kUnauthenticated,
// kDataLoss (a stored value this code did not write), kInvalidArgument (an
// entry that ValidateEntry refuses).
//
// Thread-safety: implementations are safe for concurrent use, also by
// several store objects (service instances) on the same backing store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"

namespace deltacommit::service {

class CatalogStore {
 public:
  virtual ~CatalogStore() = default;

  // e.g. "SQLite file /var/lib/deltacommit/state.db".
  virtual std::string Describe() const = 0;

  // Catalogs. Create: kAlreadyExists when the name is taken.
  virtual Status CreateCatalog(const CatalogEntry& catalog) = 0;
  virtual StatusOr<std::optional<CatalogEntry>> GetCatalog(const std::string& name) = 0;
  // Ascending by name.
  virtual StatusOr<std::vector<CatalogEntry>> ListCatalogs() = 0;
  // kNotFound; kFailedPrecondition when it still holds schemas (the
  // message names one).
  virtual Status DeleteCatalog(const std::string& name) = 0;

  // Schemas. Create: kNotFound when the catalog does not exist,
  // kAlreadyExists when the name is taken in it.
  virtual Status CreateSchema(const SchemaEntry& schema) = 0;
  virtual StatusOr<std::optional<SchemaEntry>> GetSchema(const std::string& catalog,
                                                         const std::string& name) = 0;
  // Ascending by name; kNotFound when the catalog does not exist.
  virtual StatusOr<std::vector<SchemaEntry>> ListSchemas(const std::string& catalog) = 0;
  // kNotFound; kFailedPrecondition when it still holds tables (the message
  // names one).
  virtual Status DeleteSchema(const std::string& catalog, const std::string& name) = 0;

  // Staging tables: a table id and location handed to one client, which
  // writes version 0 there and then creates the table (CreateTable with
  // `staging`). Several may share a name. kNotFound when the schema does not
  // exist; kAlreadyExists when a staging table or a table has its id or
  // location. A staging table stays (finalised or not) when its table is
  // deleted, and does not keep its schema from being deleted.
  virtual Status CreateStagingTable(const StagingTableEntry& staging) = 0;
  virtual StatusOr<std::optional<StagingTableEntry>> GetStagingTable(
      const std::string& table_id) = 0;
  // The staging table at `location` (a normalised URI), if any.
  virtual StatusOr<std::optional<StagingTableEntry>> FindStagingTableByLocation(
      const std::string& location) = 0;

  // Registers `table`. When `staging_id` is set, the staging table of that
  // id is marked finalised in the same step and `table.table_id` must be
  // that id (kInvalidArgument otherwise). Checked in this order, the first
  // that fails answers:
  //   kNotFound           the schema does not exist
  //   kAlreadyExists      a table of that name exists in the schema, or one
  //                       with that id, or one at that location (the message
  //                       names it)
  //   kNotFound           no staging table has that id
  //   kFailedPrecondition the staging table was finalised already
  virtual Status CreateTable(const TableEntry& table,
                             const std::optional<std::string>& staging_id) = 0;
  virtual StatusOr<std::optional<TableEntry>> GetTable(const TableName& name) = 0;
  virtual StatusOr<std::optional<TableEntry>> GetTableById(const std::string& table_id) = 0;
  // Up to `limit` tables of the schema with names after `after` (empty:
  // from the first), ascending by name: pages for ListTables' page token.
  // kNotFound when the schema does not exist; kInvalidArgument for a limit
  // below 1.
  virtual StatusOr<std::vector<TableEntry>> ListTables(const std::string& catalog,
                                                       const std::string& schema,
                                                       const std::string& after, int64_t limit) = 0;
  // Replaces the table of `table.table_id` by `table` (same name, id and
  // location; the metadata the APIs update) only if its stored updated_at_ms
  // is still `expected_updated_at_ms`: a compare-and-set, so two updates
  // made from one read cannot both land.
  //   kNotFound           no table has that id
  //   kInvalidArgument    `table` has another name or location than stored
  //                       (checked before updated_at)
  //   kFailedPrecondition the table changed since (updated_at_ms differs)
  virtual Status UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) = 0;
  // Renames within the same schema, setting updated_at_ms. kInvalidArgument
  // for a new name ValidateCatalogName refuses; kNotFound; kAlreadyExists
  // when the new name is taken. The same name is OK and writes nothing.
  virtual Status RenameTable(const TableName& from, const std::string& new_name,
                             int64_t updated_at_ms) = 0;
  // kNotFound. The table's commit state (StateStore) and files are not
  // touched here.
  virtual Status DeleteTable(const TableName& name) = 0;

  // The id of the metastore these names make up (Unity Catalog's
  // metastore_summary; Delta Spark finds a table's catalog by it): a random
  // UUID made the first time any store object on the backing store asks
  // (create if absent), the same for every instance sharing it afterwards.
  virtual StatusOr<std::string> MetastoreId() = 0;
};

}  // namespace deltacommit::service
