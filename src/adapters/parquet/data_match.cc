// DuckDbDataFileHandler::MatchFiles and MatchRows: which files (from their
// partition values alone) or rows of a snapshot's files a
// delete's condition matches, by file and row index, over the same view
// `t` a query reads (so a delete removes exactly the rows a query with the
// same WHERE would show).
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_view.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace data_internal {
namespace {

// Each file's row count, from its footer.
StatusOr<std::vector<int64_t>> FileRows(Connection& connection,
                                        const std::vector<ScanFile>& files) {
  std::vector<int64_t> out(files.size(), 0);
  if (files.empty()) return out;
  std::string list;
  for (const ScanFile& f : files) list += (list.empty() ? "" : ", ") + SqlString(f.local_path);
  DC_ASSIGN_OR_RETURN(auto counts,
                      connection.QueryPairs("SELECT f.__dc_index, CAST(m.num_rows AS BIGINT) FROM "
                                            "parquet_file_metadata([" +
                                                list +
                                                "]) m JOIN __dc_files f "
                                                "ON f.__dc_file = m.file_name",
                                            "delete: reading the data files' row counts"));
  for (const auto& [index, rows] : counts) {
    if (index >= 0 && static_cast<size_t>(index) < out.size())
      out[static_cast<size_t>(index)] = rows;
  }
  return out;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `condition` may call a volatile function (random(), uuid(), ...,
// as DuckDB lists them): such a condition must be decided row by row, not
// once per file. Conservative: any call-like use of the name counts.
StatusOr<bool> CallsVolatileFunction(Connection& connection, const std::string& condition) {
  DC_ASSIGN_OR_RETURN(TextRows volatile_functions,
                      connection.Query("SELECT DISTINCT function_name FROM duckdb_functions() "
                                       "WHERE stability = 'VOLATILE'",
                                       "delete: listing volatile functions"));
  const std::string text = AsciiLower(condition);
  for (const auto& row : volatile_functions.rows) {
    if (row.empty() || !row[0]) continue;
    const std::string name = AsciiLower(*row[0]);
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      if (at > 0 && IsIdentChar(text[at - 1])) continue;
      size_t after = at + name.size();
      while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after])) != 0) {
        ++after;
      }
      if (after < text.size() && text[after] == '(') return true;
    }
  }
  return false;
}

}  // namespace
}  // namespace data_internal

StatusOr<std::optional<std::vector<bool>>> DuckDbDataFileHandler::MatchFiles(
    const TableLayout& layout, const std::vector<ScanFile>& files, const std::string& condition) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(layout));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  DC_ASSIGN_OR_RETURN(bool is_volatile, CallsVolatileFunction(*connection, condition));
  if (is_volatile || files.empty()) return std::optional<std::vector<bool>>();
  DC_ASSIGN_OR_RETURN(std::string view, PartitionViewSql(*connection, columns, files));
  DC_RETURN_IF_ERROR(connection->Exec("CREATE TEMP VIEW __dc_parts AS " + view,
                                      "delete: creating the view of partition values"));
  // Any error (a data column, the view t, a bad condition) leaves the
  // decision to MatchRows, whose errors are the ones to report.
  auto pairs = connection->QueryPairs(
      "SELECT __dc_index, 0::BIGINT FROM __dc_parts WHERE (\n" + condition + "\n)",
      "the condition");
  if (!pairs.ok()) return std::optional<std::vector<bool>>();
  std::vector<bool> out(files.size(), false);
  for (const auto& [index, unused] : *pairs) {
    if (index < 0 || static_cast<size_t>(index) >= files.size()) {
      return InternalError("delete: a matched file has no index");
    }
    out[static_cast<size_t>(index)] = true;
  }
  return std::optional<std::vector<bool>>(std::move(out));
}

StatusOr<RowMatches> DuckDbDataFileHandler::MatchRows(const TableLayout& layout,
                                                      const std::vector<ScanFile>& files,
                                                      const std::string& condition,
                                                      const std::string& changes_path) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(layout));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  DC_ASSIGN_OR_RETURN(std::string view, ViewSql(*connection, columns, files,
                                                layout.column_mapping_mode, {.row_ids = true}));
  DC_RETURN_IF_ERROR(connection->Exec("CREATE TEMP VIEW __dc_rows AS " + view,
                                      "delete: creating the view over the table's files"));
  // `t` too, for a condition with a subquery over the table.
  DC_RETURN_IF_ERROR(connection->Exec(
      "CREATE TEMP VIEW t AS SELECT * EXCLUDE (__dc_index, __dc_row) FROM __dc_rows",
      "delete: creating the view t"));
  // The condition on lines of its own (a trailing "-- comment" cannot
  // swallow the closing parenthesis), evaluated once: the change data
  // written below are exactly the rows matched.
  DC_ASSIGN_OR_RETURN(auto pairs, connection->QueryPairs("SELECT __dc_index, __dc_row FROM "
                                                         "__dc_rows WHERE (\n" +
                                                             condition + "\n) ORDER BY 1, 2",
                                                         "the condition"));
  RowMatches out;
  out.rows.resize(files.size());
  for (const auto& [index, row] : pairs) {
    if (index < 0 || static_cast<size_t>(index) >= files.size() || row < 0) {
      return InternalError("delete: a matched row has no file or index");
    }
    out.rows[static_cast<size_t>(index)].push_back(static_cast<uint64_t>(row));
  }
  if (files.empty()) return out;
  DC_ASSIGN_OR_RETURN(out.file_rows, FileRows(*connection, files));
  if (!changes_path.empty()) {
    DC_RETURN_IF_ERROR(
        connection->Exec("CREATE TEMP TABLE __dc_matched (__dc_key VARCHAR, __dc_row BIGINT)",
                         "delete: listing the rows matched"));
    for (size_t i = 0; i < files.size(); ++i) {
      if (out.rows[i].empty()) continue;
      DC_RETURN_IF_ERROR(connection->AppendRows("__dc_matched", std::to_string(i), out.rows[i]));
    }
    DC_ASSIGN_OR_RETURN(
        TextRows copied,
        connection->Query("COPY (SELECT r.* EXCLUDE (__dc_index, __dc_row), 'delete' AS " +
                              SqlIdent(kChangeTypeColumn) +
                              " FROM __dc_rows r SEMI JOIN __dc_matched m ON m.__dc_key = "
                              "CAST(r.__dc_index AS VARCHAR) AND m.__dc_row = r.__dc_row) TO " +
                              SqlString(changes_path) + " (FORMAT parquet)",
                          "delete: writing the change data"));
    if (!copied.rows.empty() && !copied.rows[0].empty() && copied.rows[0][0]) {
      out.changes_written = std::stoll(*copied.rows[0][0]);
    }
  }
  return out;
}

}  // namespace deltacommit
