#include "service/catalog/sqlite_catalog_store.h"

#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "service/catalog/catalog_entry_codec.h"
#include "service/state/sqlite_schema.h"

namespace deltacommit::service {
namespace {

constexpr char kSelectTableByName[] =
    "SELECT entry FROM uc_tables WHERE catalog = ?1 AND schema_name = ?2 AND "
    "name = ?3";
constexpr char kSelectTableById[] = "SELECT entry FROM uc_tables WHERE table_id = ?1";
constexpr char kSelectTableByLocation[] = "SELECT entry FROM uc_tables WHERE location = ?1";
constexpr char kInsertTable[] =
    "INSERT INTO uc_tables (table_id, catalog, schema_name, name, location, "
    "updated_at_ms, "
    "entry) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr char kReplaceTable[] =
    "UPDATE uc_tables SET catalog = ?2, schema_name = ?3, name = ?4, location "
    "= ?5, "
    "updated_at_ms = ?6, entry = ?7 WHERE table_id = ?1";
constexpr char kSelectStagingById[] = "SELECT entry FROM uc_staging_tables WHERE table_id = ?1";
constexpr char kSelectStagingByLocation[] =
    "SELECT entry FROM uc_staging_tables WHERE location = ?1";

std::string Where(const SqliteDb& db, std::string_view table, std::string_view key) {
  return "SQLite file " + db.path() + " table " + std::string(table) + " row " +
         QuoteForMessage(key);
}

// Steps `statement` (bound by the caller) to its one text column, if any.
StatusOr<std::optional<std::string>> SingleText(SqliteStatement& statement) {
  DC_ASSIGN_OR_RETURN(bool row, statement.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(statement.ColumnText(0));
}

// Every row's first column, in the query's order.
StatusOr<std::vector<std::string>> AllTexts(SqliteStatement& statement) {
  std::vector<std::string> texts;
  for (;;) {
    DC_ASSIGN_OR_RETURN(bool row, statement.Step());
    if (!row) return texts;
    texts.push_back(statement.ColumnText(0));
  }
}

}  // namespace

StatusOr<std::unique_ptr<SqliteCatalogStore>> SqliteCatalogStore::Open(const std::string& path,
                                                                       int busy_timeout_ms) {
  DC_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, busy_timeout_ms));
  DC_RETURN_IF_ERROR(PrepareStateSchema(*db));
  return std::unique_ptr<SqliteCatalogStore>(new SqliteCatalogStore(std::move(db)));
}

std::string SqliteCatalogStore::Describe() const { return "SQLite file " + db_->path(); }

template <typename Body>
auto SqliteCatalogStore::InTransaction(bool write, Body body) -> decltype(body()) {
  DC_RETURN_IF_ERROR(db_->Exec(write ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto result = body();
  if (!result.ok()) {
    db_->Exec("ROLLBACK").IgnoreError();
    return result;
  }
  Status committed = db_->Exec("COMMIT");
  if (!committed.ok()) {
    db_->Exec("ROLLBACK").IgnoreError();  // SQLite may have rolled back already
    return SqliteCommitOutcome(std::move(committed), write);
  }
  return result;
}

StatusOr<bool> SqliteCatalogStore::SchemaExists(const std::string& catalog,
                                                const std::string& schema) {
  DC_ASSIGN_OR_RETURN(SqliteStatement select,
                      db_->Prepare("SELECT 1 FROM uc_schemas WHERE catalog = ?1 AND name = ?2"));
  select.Bind(1, catalog);
  select.Bind(2, schema);
  return select.Step();
}

// --- catalogs ---------------------------------------------------------------

Status SqliteCatalogStore::CreateCatalog(const CatalogEntry& catalog) {
  DC_RETURN_IF_ERROR(ValidateEntry(catalog));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement select,
                        db_->Prepare("SELECT 1 FROM uc_catalogs WHERE name = ?1"));
    select.Bind(1, catalog.name);
    DC_ASSIGN_OR_RETURN(bool taken, select.Step());
    if (taken) return EntryExistsError("catalog", catalog.name);
    DC_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO uc_catalogs (name, entry) VALUES (?1, ?2)"));
    insert.Bind(1, catalog.name);
    insert.Bind(2, EncodeEntry(catalog));
    return insert.Run();
  });
}

StatusOr<std::optional<CatalogEntry>> SqliteCatalogStore::GetCatalog(const std::string& name) {
  std::lock_guard lock(mu_);
  DC_ASSIGN_OR_RETURN(SqliteStatement select,
                      db_->Prepare("SELECT entry FROM uc_catalogs WHERE name = ?1"));
  select.Bind(1, name);
  DC_ASSIGN_OR_RETURN(std::optional<std::string> json, SingleText(select));
  if (!json) return std::optional<CatalogEntry>();
  DC_ASSIGN_OR_RETURN(CatalogEntry entry,
                      DecodeCatalogEntry(*json, Where(*db_, "uc_catalogs", name)));
  return std::optional<CatalogEntry>(std::move(entry));
}

StatusOr<std::vector<CatalogEntry>> SqliteCatalogStore::ListCatalogs() {
  std::lock_guard lock(mu_);
  DC_ASSIGN_OR_RETURN(SqliteStatement select,
                      db_->Prepare("SELECT entry FROM uc_catalogs ORDER BY name"));
  DC_ASSIGN_OR_RETURN(std::vector<std::string> rows, AllTexts(select));
  std::vector<CatalogEntry> catalogs;
  for (const std::string& json : rows) {
    DC_ASSIGN_OR_RETURN(CatalogEntry entry,
                        DecodeCatalogEntry(json, Where(*db_, "uc_catalogs", "")));
    catalogs.push_back(std::move(entry));
  }
  return catalogs;
}

Status SqliteCatalogStore::DeleteCatalog(const std::string& name) {
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement schemas,
                        db_->Prepare("SELECT name FROM uc_schemas WHERE catalog = ?1 LIMIT 1"));
    schemas.Bind(1, name);
    DC_ASSIGN_OR_RETURN(std::optional<std::string> schema, SingleText(schemas));
    if (schema) {
      return FailedPreconditionError("catalog " + QuoteForMessage(name) + " still has schema " +
                                     QuoteForMessage(*schema) + ": delete its schemas first");
    }
    DC_ASSIGN_OR_RETURN(SqliteStatement remove,
                        db_->Prepare("DELETE FROM uc_catalogs WHERE name = ?1"));
    remove.Bind(1, name);
    DC_RETURN_IF_ERROR(remove.Run());
    if (db_->Changes() == 0) return EntryMissingError("catalog", name);
    return OkStatus();
  });
}

// --- schemas ----------------------------------------------------------------

Status SqliteCatalogStore::CreateSchema(const SchemaEntry& schema) {
  DC_RETURN_IF_ERROR(ValidateEntry(schema));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement catalog,
                        db_->Prepare("SELECT 1 FROM uc_catalogs WHERE name = ?1"));
    catalog.Bind(1, schema.catalog);
    DC_ASSIGN_OR_RETURN(bool catalog_exists, catalog.Step());
    if (!catalog_exists) return EntryMissingError("catalog", schema.catalog);
    DC_ASSIGN_OR_RETURN(bool taken, SchemaExists(schema.catalog, schema.name));
    if (taken) return EntryExistsError("schema", schema.catalog + "." + schema.name);
    DC_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO uc_schemas (catalog, name, "
                                     "entry) VALUES (?1, ?2, ?3)"));
    insert.Bind(1, schema.catalog);
    insert.Bind(2, schema.name);
    insert.Bind(3, EncodeEntry(schema));
    return insert.Run();
  });
}

StatusOr<std::optional<SchemaEntry>> SqliteCatalogStore::GetSchema(const std::string& catalog,
                                                                   const std::string& name) {
  std::lock_guard lock(mu_);
  DC_ASSIGN_OR_RETURN(
      SqliteStatement select,
      db_->Prepare("SELECT entry FROM uc_schemas WHERE catalog = ?1 AND name = ?2"));
  select.Bind(1, catalog);
  select.Bind(2, name);
  DC_ASSIGN_OR_RETURN(std::optional<std::string> json, SingleText(select));
  if (!json) return std::optional<SchemaEntry>();
  DC_ASSIGN_OR_RETURN(SchemaEntry entry,
                      DecodeSchemaEntry(*json, Where(*db_, "uc_schemas", catalog + "." + name)));
  return std::optional<SchemaEntry>(std::move(entry));
}

StatusOr<std::vector<SchemaEntry>> SqliteCatalogStore::ListSchemas(const std::string& catalog) {
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::vector<SchemaEntry>> {
    DC_ASSIGN_OR_RETURN(SqliteStatement exists,
                        db_->Prepare("SELECT 1 FROM uc_catalogs WHERE name = ?1"));
    exists.Bind(1, catalog);
    DC_ASSIGN_OR_RETURN(bool catalog_exists, exists.Step());
    if (!catalog_exists) return EntryMissingError("catalog", catalog);
    DC_ASSIGN_OR_RETURN(
        SqliteStatement select,
        db_->Prepare("SELECT entry FROM uc_schemas WHERE catalog = ?1 ORDER BY name"));
    select.Bind(1, catalog);
    DC_ASSIGN_OR_RETURN(std::vector<std::string> rows, AllTexts(select));
    std::vector<SchemaEntry> schemas;
    for (const std::string& json : rows) {
      DC_ASSIGN_OR_RETURN(SchemaEntry entry,
                          DecodeSchemaEntry(json, Where(*db_, "uc_schemas", catalog)));
      schemas.push_back(std::move(entry));
    }
    return schemas;
  });
}

Status SqliteCatalogStore::DeleteSchema(const std::string& catalog, const std::string& name) {
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement tables,
                        db_->Prepare("SELECT name FROM uc_tables WHERE catalog "
                                     "= ?1 AND schema_name = ?2 LIMIT 1"));
    tables.Bind(1, catalog);
    tables.Bind(2, name);
    DC_ASSIGN_OR_RETURN(std::optional<std::string> table, SingleText(tables));
    if (table) {
      return FailedPreconditionError("schema " + QuoteForMessage(catalog + "." + name) +
                                     " still has table " + QuoteForMessage(*table) +
                                     ": delete its tables first");
    }
    DC_ASSIGN_OR_RETURN(SqliteStatement remove,
                        db_->Prepare("DELETE FROM uc_schemas WHERE catalog = ?1 AND name = ?2"));
    remove.Bind(1, catalog);
    remove.Bind(2, name);
    DC_RETURN_IF_ERROR(remove.Run());
    if (db_->Changes() == 0) return EntryMissingError("schema", catalog + "." + name);
    return OkStatus();
  });
}

// --- staging tables ---------------------------------------------------------

StatusOr<std::optional<StagingTableEntry>> SqliteCatalogStore::ReadStaging(const char* sql,
                                                                           const std::string& key) {
  DC_ASSIGN_OR_RETURN(SqliteStatement select, db_->Prepare(sql));
  select.Bind(1, key);
  DC_ASSIGN_OR_RETURN(std::optional<std::string> json, SingleText(select));
  if (!json) return std::optional<StagingTableEntry>();
  DC_ASSIGN_OR_RETURN(StagingTableEntry entry,
                      DecodeStagingTableEntry(*json, Where(*db_, "uc_staging_tables", key)));
  return std::optional<StagingTableEntry>(std::move(entry));
}

Status SqliteCatalogStore::CreateStagingTable(const StagingTableEntry& staging) {
  DC_RETURN_IF_ERROR(ValidateEntry(staging));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(bool schema, SchemaExists(staging.catalog, staging.schema));
    if (!schema) return EntryMissingError("schema", staging.catalog + "." + staging.schema);
    DC_ASSIGN_OR_RETURN(std::optional<StagingTableEntry> same_id,
                        ReadStaging(kSelectStagingById, staging.table_id));
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table_with_id,
                        ReadTable(kSelectTableById, staging.table_id));
    if (same_id || table_with_id) return EntryExistsError("table id", staging.table_id);
    DC_ASSIGN_OR_RETURN(std::optional<StagingTableEntry> same_location,
                        ReadStaging(kSelectStagingByLocation, staging.location));
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table_at,
                        ReadTable(kSelectTableByLocation, staging.location));
    if (same_location || table_at) return EntryExistsError("table location", staging.location);
    DC_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO uc_staging_tables (table_id, location, "
                                     "finalized, entry) VALUES (?1, ?2, ?3, ?4)"));
    insert.Bind(1, staging.table_id);
    insert.Bind(2, staging.location);
    insert.Bind(3, int64_t{staging.finalized ? 1 : 0});
    insert.Bind(4, EncodeEntry(staging));
    return insert.Run();
  });
}

StatusOr<std::optional<StagingTableEntry>> SqliteCatalogStore::GetStagingTable(
    const std::string& table_id) {
  std::lock_guard lock(mu_);
  return ReadStaging(kSelectStagingById, table_id);
}

StatusOr<std::optional<StagingTableEntry>> SqliteCatalogStore::FindStagingTableByLocation(
    const std::string& location) {
  std::lock_guard lock(mu_);
  return ReadStaging(kSelectStagingByLocation, location);
}

// --- tables -----------------------------------------------------------------

StatusOr<std::optional<TableEntry>> SqliteCatalogStore::ReadTable(const char* sql,
                                                                  const std::string& a,
                                                                  const std::string& b,
                                                                  const std::string& c) {
  DC_ASSIGN_OR_RETURN(SqliteStatement select, db_->Prepare(sql));
  select.Bind(1, a);
  if (!b.empty()) select.Bind(2, b);
  if (!c.empty()) select.Bind(3, c);
  DC_ASSIGN_OR_RETURN(std::optional<std::string> json, SingleText(select));
  if (!json) return std::optional<TableEntry>();
  DC_ASSIGN_OR_RETURN(TableEntry entry, DecodeTableEntry(*json, Where(*db_, "uc_tables", a)));
  return std::optional<TableEntry>(std::move(entry));
}

Status SqliteCatalogStore::WriteTable(const char* sql, const TableEntry& table) {
  DC_ASSIGN_OR_RETURN(SqliteStatement write, db_->Prepare(sql));
  write.Bind(1, table.table_id);
  write.Bind(2, table.name.catalog);
  write.Bind(3, table.name.schema);
  write.Bind(4, table.name.name);
  write.Bind(5, table.storage_location);
  write.Bind(6, table.updated_at_ms);
  write.Bind(7, EncodeEntry(table));
  return write.Run();
}

Status SqliteCatalogStore::CreateTable(const TableEntry& table,
                                       const std::optional<std::string>& staging_id) {
  DC_RETURN_IF_ERROR(ValidateEntry(table));
  if (staging_id && *staging_id != table.table_id) {
    return InvalidArgumentError("table id " + QuoteForMessage(table.table_id) +
                                " is not the id of its staging table " +
                                QuoteForMessage(*staging_id));
  }
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    const TableName& name = table.name;
    DC_ASSIGN_OR_RETURN(bool schema, SchemaExists(name.catalog, name.schema));
    if (!schema) return EntryMissingError("schema", name.catalog + "." + name.schema);
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> same_name,
                        ReadTable(kSelectTableByName, name.catalog, name.schema, name.name));
    if (same_name) return EntryExistsError("table", name.FullName());
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> same_id,
                        ReadTable(kSelectTableById, table.table_id));
    if (same_id) return EntryExistsError("table id", table.table_id);
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> same_location,
                        ReadTable(kSelectTableByLocation, table.storage_location));
    if (same_location) {
      return AlreadyExistsError("table " + same_location->name.FullName() + " is already at " +
                                QuoteForMessage(table.storage_location));
    }
    if (staging_id) {
      DC_ASSIGN_OR_RETURN(std::optional<StagingTableEntry> staging,
                          ReadStaging(kSelectStagingById, *staging_id));
      if (!staging) return EntryMissingError("staging table", *staging_id);
      if (staging->finalized) {
        return StagingFinalizedError(*staging_id);
      }
      staging->finalized = true;
      DC_ASSIGN_OR_RETURN(SqliteStatement finalize,
                          db_->Prepare("UPDATE uc_staging_tables SET finalized "
                                       "= 1, entry = ?2 WHERE table_id = ?1"));
      finalize.Bind(1, staging->table_id);
      finalize.Bind(2, EncodeEntry(*staging));
      DC_RETURN_IF_ERROR(finalize.Run());
    }
    return WriteTable(kInsertTable, table);
  });
}

StatusOr<std::optional<TableEntry>> SqliteCatalogStore::GetTable(const TableName& name) {
  std::lock_guard lock(mu_);
  return ReadTable(kSelectTableByName, name.catalog, name.schema, name.name);
}

StatusOr<std::optional<TableEntry>> SqliteCatalogStore::GetTableById(const std::string& table_id) {
  std::lock_guard lock(mu_);
  return ReadTable(kSelectTableById, table_id);
}

StatusOr<std::vector<TableEntry>> SqliteCatalogStore::ListTables(const std::string& catalog,
                                                                 const std::string& schema,
                                                                 const std::string& after,
                                                                 int64_t limit) {
  if (limit < 1) return InvalidArgumentError("list limit " + std::to_string(limit) + " is below 1");
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::vector<TableEntry>> {
    DC_ASSIGN_OR_RETURN(bool exists, SchemaExists(catalog, schema));
    if (!exists) return EntryMissingError("schema", catalog + "." + schema);
    DC_ASSIGN_OR_RETURN(SqliteStatement select,
                        db_->Prepare("SELECT entry FROM uc_tables WHERE catalog = ?1 AND "
                                     "schema_name = ?2 AND name > ?3 ORDER BY name LIMIT ?4"));
    select.Bind(1, catalog);
    select.Bind(2, schema);
    select.Bind(3, after);
    select.Bind(4, limit);
    DC_ASSIGN_OR_RETURN(std::vector<std::string> rows, AllTexts(select));
    std::vector<TableEntry> tables;
    for (const std::string& json : rows) {
      DC_ASSIGN_OR_RETURN(TableEntry entry,
                          DecodeTableEntry(json, Where(*db_, "uc_tables", catalog + "." + schema)));
      tables.push_back(std::move(entry));
    }
    return tables;
  });
}

Status SqliteCatalogStore::UpdateTable(const TableEntry& table, int64_t expected_updated_at_ms) {
  DC_RETURN_IF_ERROR(ValidateEntry(table));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> stored,
                        ReadTable(kSelectTableById, table.table_id));
    if (!stored) return EntryMissingError("table id", table.table_id);
    if (stored->name != table.name || stored->storage_location != table.storage_location) {
      return InvalidArgumentError("an update of table " + stored->name.FullName() +
                                  " cannot change its name or location");
    }
    if (stored->updated_at_ms != expected_updated_at_ms) {
      return FailedPreconditionError("table " + stored->name.FullName() +
                                     " changed since it was read");
    }
    return WriteTable(kReplaceTable, table);
  });
}

Status SqliteCatalogStore::RenameTable(const TableName& from, const std::string& new_name,
                                       int64_t updated_at_ms) {
  DC_RETURN_IF_ERROR(ValidateCatalogName("table", new_name));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table,
                        ReadTable(kSelectTableByName, from.catalog, from.schema, from.name));
    if (!table) return EntryMissingError("table", from.FullName());
    if (new_name == from.name) return OkStatus();
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> taken,
                        ReadTable(kSelectTableByName, from.catalog, from.schema, new_name));
    if (taken) return EntryExistsError("table", taken->name.FullName());
    table->name.name = new_name;
    table->updated_at_ms = updated_at_ms;
    return WriteTable(kReplaceTable, *table);
  });
}

Status SqliteCatalogStore::DeleteTable(const TableName& name) {
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement remove,
                        db_->Prepare("DELETE FROM uc_tables WHERE catalog = ?1 AND schema_name = "
                                     "?2 AND name = ?3"));
    remove.Bind(1, name.catalog);
    remove.Bind(2, name.schema);
    remove.Bind(3, name.name);
    DC_RETURN_IF_ERROR(remove.Run());
    if (db_->Changes() == 0) return EntryMissingError("table", name.FullName());
    return OkStatus();
  });
}

StatusOr<std::string> SqliteCatalogStore::MetastoreId() {
  std::lock_guard lock(mu_);
  std::string id;
  Status made = InTransaction(true, [&]() -> Status {
    DC_ASSIGN_OR_RETURN(SqliteStatement insert,
                        db_->Prepare("INSERT INTO uc_metastore (singleton, id) VALUES (0, ?1) "
                                     "ON CONFLICT (singleton) DO NOTHING"));
    insert.Bind(1, NewUuid());
    DC_RETURN_IF_ERROR(insert.Run());
    DC_ASSIGN_OR_RETURN(SqliteStatement select,
                        db_->Prepare("SELECT id FROM uc_metastore WHERE singleton = 0"));
    DC_ASSIGN_OR_RETURN(std::optional<std::string> stored, SingleText(select));
    if (!stored) return InternalError(Describe() + ": uc_metastore has no row after its insert");
    id = *stored;
    return OkStatus();
  });
  if (!made.ok()) return made;
  return id;
}

}  // namespace deltacommit::service
