#include "adapters/parquet/data_sql.h"

#include "adapters/parquet/duckdb_handles.h"

#include <utility>

namespace deltacommit::data_internal {
namespace {

using parquet_internal::Result;

Status Failed(std::string_view what, duckdb_result* result) {
  const char* error = duckdb_result_error(result);
  // DuckDB's messages on bad input data name the value and the file; ours
  // name the operation in front.
  return InvalidArgumentError(std::string(what) + ": " +
                              (error != nullptr ? error : "unknown DuckDB error"));
}

}  // namespace

StatusOr<std::unique_ptr<Database>> Database::Open() {
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) != DuckDBSuccess) {
    return InternalError("duckdb: cannot create a configuration");
  }
  // Nothing may be downloaded at run time: Parquet, CSV and JSON are built
  // in, and a file needing another extension must fail instead.
  const bool set =
      duckdb_set_config(config, "autoinstall_known_extensions", "false") == DuckDBSuccess &&
      duckdb_set_config(config, "autoload_known_extensions", "false") == DuckDBSuccess;
  std::unique_ptr<Database> db(new Database());
  char* error = nullptr;
  const bool opened = set && duckdb_open_ext(nullptr, &db->db_, config, &error) == DuckDBSuccess;
  duckdb_destroy_config(&config);
  if (!opened) {
    std::string message = "duckdb: cannot open an in-memory database";
    if (!set) message += ": extension settings refused";
    if (error != nullptr) message += std::string(": ") + error;
    duckdb_free(error);
    return InternalError(std::move(message));
  }
  return db;
}

Database::~Database() {
  if (db_ != nullptr) duckdb_close(&db_);
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const Database& db) {
  std::unique_ptr<Connection> c(new Connection());
  if (duckdb_connect(db.get(), &c->connection_) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  DC_RETURN_IF_ERROR(c->Exec("SET TimeZone = 'UTC'", "duckdb: setting the time zone"));
  return c;
}

Connection::~Connection() {
  if (connection_ != nullptr) duckdb_disconnect(&connection_);
}

Status Connection::Exec(const std::string& sql, std::string_view what) {
  Result result;
  if (duckdb_query(connection_, sql.c_str(), result.out()) != DuckDBSuccess) {
    return Failed(what, result.out());
  }
  return OkStatus();
}

StatusOr<TextRows> Connection::Query(const std::string& sql, std::string_view what) {
  Result result;
  if (duckdb_query(connection_, sql.c_str(), result.out()) != DuckDBSuccess) {
    return Failed(what, result.out());
  }
  TextRows out;
  const idx_t columns = duckdb_column_count(result.out());
  for (idx_t c = 0; c < columns; ++c) out.columns.emplace_back(duckdb_column_name(result.out(), c));
  const idx_t rows = duckdb_row_count(result.out());
  out.rows.reserve(rows);
  for (idx_t r = 0; r < rows; ++r) {
    std::vector<std::optional<std::string>> row;
    row.reserve(columns);
    for (idx_t c = 0; c < columns; ++c) {
      if (duckdb_value_is_null(result.out(), c, r)) {
        row.emplace_back(std::nullopt);
        continue;
      }
      char* text = duckdb_value_varchar(result.out(), c, r);
      row.emplace_back(text != nullptr ? std::string(text) : std::string());
      duckdb_free(text);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::string SqlString(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string SqlIdent(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace deltacommit::data_internal
