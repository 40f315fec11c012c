#include "service/state/sqlite_schema.h"

#include <charconv>
#include <chrono>
#include <thread>
#include <string>
#include <system_error>

namespace deltacommit::service {
namespace {

constexpr char kCreateV1[] = R"sql(
CREATE TABLE tables (
  table_uri TEXT PRIMARY KEY NOT NULL,
  latest INTEGER NOT NULL CHECK (latest >= 0),
  published_through INTEGER NOT NULL CHECK (published_through >= -1)
) STRICT, WITHOUT ROWID;
CREATE TABLE commits (
  table_uri TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 0),
  staged_file TEXT NOT NULL,
  content_sha256 TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size >= 0),
  ratified_at_ms INTEGER NOT NULL,
  commit_timestamp_ms INTEGER NOT NULL,
  PRIMARY KEY (table_uri, version)
) STRICT, WITHOUT ROWID;
)sql";

// Version 2: issue 9's appends answer a writer's retry by its txn.
constexpr char kCreateV2[] = R"sql(
CREATE TABLE app_txns (
  table_uri TEXT NOT NULL,
  app_id TEXT NOT NULL,
  txn_version INTEGER NOT NULL,
  commit_version INTEGER NOT NULL CHECK (commit_version >= 0),
  PRIMARY KEY (table_uri, app_id)
) STRICT, WITHOUT ROWID;
)sql";

// Version 3: issue 19's catalog (service/catalog/sqlite_catalog_store.h).
// Each row keeps its entry as the JSON of catalog_entry_codec.h; the other
// columns are its keys.
constexpr char kCreateV3[] = R"sql(
CREATE TABLE uc_catalogs (
  name TEXT PRIMARY KEY NOT NULL,
  entry TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE uc_schemas (
  catalog TEXT NOT NULL,
  name TEXT NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (catalog, name)
) STRICT, WITHOUT ROWID;
CREATE TABLE uc_tables (
  table_id TEXT PRIMARY KEY NOT NULL,
  catalog TEXT NOT NULL,
  schema_name TEXT NOT NULL,
  name TEXT NOT NULL,
  location TEXT NOT NULL UNIQUE,
  updated_at_ms INTEGER NOT NULL,
  entry TEXT NOT NULL,
  UNIQUE (catalog, schema_name, name)
) STRICT, WITHOUT ROWID;
CREATE TABLE uc_staging_tables (
  table_id TEXT PRIMARY KEY NOT NULL,
  location TEXT NOT NULL UNIQUE,
  finalized INTEGER NOT NULL CHECK (finalized IN (0, 1)),
  entry TEXT NOT NULL
) STRICT, WITHOUT ROWID;
)sql";

// Version 4: the metastore's id (CatalogStore::MetastoreId), one row.
constexpr char kCreateV4[] = R"sql(
CREATE TABLE uc_metastore (
  singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 0),
  id TEXT NOT NULL
) STRICT;
)sql";

StatusOr<int> QueryInt(SqliteDb& db, const char* sql) {
  DC_ASSIGN_OR_RETURN(std::string text, db.QueryText(sql));
  int value = 0;
  auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return InternalError("SQLite file " + db.path() + ": " + sql +
                         " returned '" + text + "'");
  }
  return value;
}

Status NotOurs(const SqliteDb& db, const std::string& why) {
  return FailedPreconditionError("SQLite file " + db.path() +
                                 " is not a deltacommit state store (" + why +
                                 "); choose another path");
}

// Inside BEGIN IMMEDIATE, so two processes opening a new file at once do not
// both create the schema.
Status CreateOrCheck(SqliteDb& db) {
  DC_ASSIGN_OR_RETURN(int application_id,
                      QueryInt(db, "PRAGMA application_id"));
  DC_ASSIGN_OR_RETURN(int version, QueryInt(db, "PRAGMA user_version"));
  if (application_id != 0 && application_id != kSqliteApplicationId) {
    return NotOurs(db,
                   "its application_id is " + std::to_string(application_id));
  }
  if (version > kSqliteSchemaVersion) {
    return FailedPreconditionError(
        "SQLite file " + db.path() + " has state store schema version " +
        std::to_string(version) + ", newer than this deltacommit knows (" +
        std::to_string(kSqliteSchemaVersion) + "): run a newer deltacommit");
  }
  if (version == kSqliteSchemaVersion) return OkStatus();
  if (version == 0) {
    DC_ASSIGN_OR_RETURN(int objects,
                        QueryInt(db, "SELECT count(*) FROM sqlite_schema"));
    if (objects != 0)
      return NotOurs(db, "it has other tables and no schema version");
    DC_RETURN_IF_ERROR(db.Exec(kCreateV1));
  }
  if (version < 2) DC_RETURN_IF_ERROR(db.Exec(kCreateV2));
  if (version < 3) DC_RETURN_IF_ERROR(db.Exec(kCreateV3));
  DC_RETURN_IF_ERROR(db.Exec(kCreateV4));  // from version 0, 1, 2 or 3
  return db.Exec(
      ("PRAGMA application_id = " + std::to_string(kSqliteApplicationId) +
       "; PRAGMA user_version = " + std::to_string(kSqliteSchemaVersion))
          .c_str());
}

// Switching a new file to WAL takes an exclusive lock, and SQLite answers
// SQLITE_BUSY at once, without its busy handler, when another connection
// opening the file at the same moment holds a shared lock (waiting could
// deadlock). Retried here for as long as the busy timeout; found by the
// TSan run of SqliteStateStoreTest.ProcessesOpeningANewFileAtOnceAllSucceed.
StatusOr<std::string> SwitchToWal(SqliteDb& db) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(db.busy_timeout_ms());
  for (;;) {
    StatusOr<std::string> mode = db.QueryText("PRAGMA journal_mode = WAL");
    if (mode.ok() || mode.status().code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return mode;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Status PrepareStateSchema(SqliteDb& db) {
  // WAL: readers do not block the writer; FULL: a commit is fsynced before
  // COMMIT returns, so an acknowledged ratification survives power loss.
  DC_ASSIGN_OR_RETURN(std::string mode, SwitchToWal(db));
  if (mode != "wal") {
    return FailedPreconditionError(
        "SQLite file " + db.path() +
        ": cannot use write-ahead logging (journal mode stays " + mode +
        "); the file must be on a local filesystem");
  }
  DC_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  DC_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  Status status = CreateOrCheck(db);
  if (status.ok()) status = db.Exec("COMMIT");
  if (!status.ok()) db.Exec("ROLLBACK").IgnoreError();
  return status;
}

}  // namespace deltacommit::service
