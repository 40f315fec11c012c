// The SQLite state store's schema, created or migrated when a file is
// opened. Version 3 (PRAGMA user_version = 3; PRAGMA application_id marks
// the file as a deltacommit state store; a version 1 file gains app_txns, a
// version 1 or 2 file the catalog's tables):
//
//   tables   one row per table with state
//     table_uri          TEXT PRIMARY KEY   normalised table URI
//     latest             INTEGER            highest ratified version
//     published_through  INTEGER            every version <= it is published
//   commits  one row per ratified, not forgotten, version
//     table_uri, version                    PRIMARY KEY
//     staged_file, content_sha256           TEXT
//     size, ratified_at_ms, commit_timestamp_ms  INTEGER
//   app_txns  (version 2) the latest txn per application and table
//     table_uri, app_id                     PRIMARY KEY
//     txn_version, commit_version           INTEGER
//   uc_catalogs, uc_schemas, uc_tables, uc_staging_tables  (version 3) the
//            catalog (service/catalog/catalog_store.h): one row per entry,
//            its JSON in `entry`, its names, id and location as keys
//
// All are STRICT (SQLite checks the column types) and WITHOUT ROWID (rows
// are stored in key order, so a table's commits are contiguous on disk).
//
// Thread-safety: as SqliteDb.
#pragma once

#include "service/state/sqlite_db.h"

namespace deltacommit::service {

inline constexpr int kSqliteSchemaVersion = 4;
// "DCSS" (deltacommit state store), in PRAGMA application_id.
inline constexpr int kSqliteApplicationId = 0x44435353;

// Switches `db` to WAL with synchronous=FULL, then creates the schema in a
// new file or checks an existing one. kFailedPrecondition when the file
// belongs to another application, has a newer schema version than this
// build knows, or cannot use WAL.
Status PrepareStateSchema(SqliteDb& db);

}  // namespace deltacommit::service
