// Small owners and helpers over DuckDB's C API for the data-file adapter:
// an in-memory database with extension auto-install/auto-load off, a
// connection, and queries whose cells come back as text.
//
// Thread-safety: a Database may be shared; a Connection serves one thread.
#pragma once


#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/memory_columns.h"
#include "deltacommit/status.h"

namespace deltacommit::data_internal {

// Rows of text cells (nullopt for NULL), with the column names and types.
struct TextRows {
  std::vector<std::string> columns;
  std::vector<duckdb_type> types;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

// Who hears how far a long statement is: `stage` and DuckDB's estimate of
// the percentage done (-1 when it has none), about every 250 ms.
struct Progress {
  std::function<void(std::string_view stage, double percent)> report;
  std::string_view stage;
};

// The SQL function every Database has that gives a variant column's JSON
// text (VariantToJson) from its two BLOB fields:
// __dc_variant_json(value, metadata) -> JSON; NULL for NULL, an error naming
// the malformation for a malformed variant.
inline constexpr char kVariantJsonFunction[] = "__dc_variant_json";

class Database {
 public:
  // kInvalidArgument naming a setting DuckDB refuses; kInternal if it
  // cannot open. `memory_limit` (a DuckDB size, e.g. "1GB"; empty: DuckDB's default of
  // 80% of RAM) bounds what DuckDB keeps in memory; beyond it, it spills to
  // `temp_directory` (empty: DuckDB's ".tmp" in the working directory).
  static StatusOr<std::unique_ptr<Database>> Open(const std::string& memory_limit = {},
                                                  const std::string& temp_directory = {});
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
  // (which names the bad value or SQL); callers add what they know. With
  // progress.report set, the statement runs on a worker thread while this
  // one reports its progress.
  Status Exec(const std::string& sql, std::string_view what, const Progress& progress = {});
  StatusOr<TextRows> Query(const std::string& sql, std::string_view what,
                           const Progress& progress = {});
  // Whether `statement` (one, as the user wrote it) is a query whose rows
  // can be read as a subquery (SELECT, also DESCRIBE, SHOW, SUMMARIZE,
  // PIVOT) rather than a statement of its own (COPY, EXPLAIN, SET, CREATE,
  // ...). It is parsed and bound, not run: kInvalidArgument carries DuckDB's
  // message about the statement as written, once (duckdb_query repeats the
  // line of a parser error, and would name our wrapping of it).
  StatusOr<bool> IsQuery(const std::string& statement, std::string_view what);
  // Runs `statement` (one, as the user wrote it), each part parsed and
  // bound once; errors as IsQuery gives them, or DuckDB's run-time message.
  Status ExecStatement(const std::string& statement, std::string_view what);
  // Runs `statement`, one query giving two BIGINT columns (kInvalidArgument
  // when `statement` holds several, or its columns are not BIGINT), and
  // gives its rows as pairs, read chunk by chunk (no text per cell); NULL
  // reads as -1.
  StatusOr<std::vector<std::pair<int64_t, int64_t>>> QueryPairs(const std::string& statement,
                                                                std::string_view what);
  // Appends a row (`text`, n) for each n of `numbers` to `table`, a temp
  // table of this connection with a VARCHAR and a BIGINT column, through
  // DuckDB's appender (no SQL text per row). kInvalidArgument naming
  // `table` and DuckDB's message.
  Status AppendRows(const std::string& table, std::string_view text,
                    const std::vector<uint64_t>& numbers);
  // Appends the rows of `columns` (one length) to `table`, a temp table of
  // this connection whose columns are theirs in order, typed by their kinds.
  Status AppendColumns(const std::string& table, const std::vector<MemoryColumn>& columns);

 private:
  Connection() = default;
  // duckdb_query, reporting progress when asked.
  duckdb_state Run(const std::string& sql, duckdb_result* result, const Progress& progress);
  bool progress_enabled_ = false;
  duckdb_connection connection_ = nullptr;
};

// Owns a prepared statement (destroyed whether preparing succeeded or not).
struct Prepared {
  duckdb_prepared_statement handle = nullptr;
  Prepared() = default;
  ~Prepared() { duckdb_destroy_prepare(&handle); }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
};

// A DuckDB error message as the C API returns it (null when it has none).
std::string ErrorText(const char* error);

// A SQL string literal / a quoted identifier.
std::string SqlString(std::string_view text);
std::string SqlIdent(std::string_view name);

}  // namespace deltacommit::data_internal
