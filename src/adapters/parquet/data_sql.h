// Small owners and helpers over DuckDB's C API for the data-file adapter:
// an in-memory database with extension auto-install/auto-load off, a
// connection, and queries whose cells come back as text.
//
// Thread-safety: a Database may be shared; a Connection serves one thread.
#pragma once

#include <duckdb.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::data_internal {

// Rows of text cells (nullopt for NULL), with the column names.
struct TextRows {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

class Database {
 public:
  // kInternal if DuckDB refuses to open or to take the settings.
  static StatusOr<std::unique_ptr<Database>> Open();
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  duckdb_database get() const { return db_; }

 private:
  Database() = default;
  duckdb_database db_ = nullptr;
};

class Connection {
 public:
  // kInternal if DuckDB refuses; sets the session time zone to UTC so
  // timestamps print and serialize in UTC.
  static StatusOr<std::unique_ptr<Connection>> Open(const Database& db);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs `sql`. On failure kInvalidArgument: `what`, then DuckDB's message
  // (which names the bad value or SQL); callers add what they know.
  Status Exec(const std::string& sql, std::string_view what);
  StatusOr<TextRows> Query(const std::string& sql, std::string_view what);

 private:
  Connection() = default;
  duckdb_connection connection_ = nullptr;
};

// A SQL string literal / a quoted identifier.
std::string SqlString(std::string_view text);
std::string SqlIdent(std::string_view name);

}  // namespace deltacommit::data_internal
