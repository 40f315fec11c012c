// DuckDbDataFileHandler::MatchRows: which rows of a snapshot's files a
// delete's condition matches, by file and row index, over the same view
// `t` a query reads (so a delete removes exactly the rows a query with the
// same WHERE would show).
#include <string>
#include <utility>
#include <vector>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_view.h"
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

}  // namespace
}  // namespace data_internal

StatusOr<RowMatches> DuckDbDataFileHandler::MatchRows(const TableLayout& layout,
                                                      const std::vector<ScanFile>& files,
                                                      const std::string& condition) {
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
  // The condition on lines of its own: a trailing "-- comment" cannot
  // swallow the closing parenthesis.
  DC_ASSIGN_OR_RETURN(auto pairs, connection->QueryPairs("SELECT __dc_index, __dc_row FROM "
                                                         "__dc_rows WHERE (\n" +
                                                             condition + "\n) ORDER BY 1, 2",
                                                         "delete: the condition"));
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
  return out;
}

}  // namespace deltacommit
