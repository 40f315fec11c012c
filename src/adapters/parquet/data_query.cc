// DuckDbDataFileHandler::Query: the view `t` over a snapshot's files, the
// user's statements run in order, and the last one's rows given back as
// text or JSON rows, or written to a local file.
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_view.h"
#include "adapters/parquet/sql_statements.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace data_internal {
namespace {

// A query as a subquery of ours, on lines of its own so that a trailing
// "-- comment" cannot swallow the closing parenthesis.
std::string Subquery(const std::string& statement) { return "(\n" + statement + "\n) __dc_q"; }

// The result's columns, as DESCRIBE gives them (a name may repeat).
struct ResultColumns {
  std::vector<std::string> names;
  std::vector<std::string> types;
};

StatusOr<ResultColumns> DescribeQuery(Connection& connection, const std::string& statement) {
  DC_ASSIGN_OR_RETURN(TextRows described,
                      connection.Query("DESCRIBE (\n" + statement + "\n)", "query"));
  ResultColumns out;
  for (const auto& row : described.rows) {
    if (row.size() < 2) continue;
    out.names.push_back(row[0].value_or(""));
    out.types.push_back(row[1].value_or(""));
  }
  return out;
}

// Structs, maps, unions, lists (T[]) and arrays (T[n]).
bool IsNested(std::string_view type) {
  return type.starts_with("STRUCT(") || type.starts_with("MAP(") || type.starts_with("UNION(") ||
         type.ends_with("]");
}

// The result's columns by position (names may repeat), nested ones as
// JSON, the others through `cast` (empty: as they are).
std::string SelectColumns(const ResultColumns& columns, const std::string& statement,
                          std::string_view cast) {
  std::string select;
  for (size_t i = 0; i < columns.names.size(); ++i) {
    const std::string ref = "#" + std::to_string(i + 1);
    std::string expr = IsNested(columns.types[i]) ? "CAST(to_json(" + ref + ") AS VARCHAR)"
                       : cast.empty()             ? ref
                                      : "CAST(" + ref + " AS " + std::string(cast) + ")";
    select += (i ? ", " : "") + expr + " AS " + SqlIdent(columns.names[i]);
  }
  return "SELECT " + select + " FROM " + Subquery(statement);
}

// The output file's format: as given, else from its extension.
StatusOr<std::string> OutputFormat(const QueryOutputFile& output) {
  std::string format = AsciiLower(output.format);
  if (format.empty()) {
    const size_t dot = output.path.rfind('.');
    const size_t slash = output.path.rfind('/');
    const std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash)
                                ? ""
                                : AsciiLower(output.path.substr(dot + 1));
    if (ext == "parquet" || ext == "csv") format = ext;
    if (ext == "json" || ext == "jsonl" || ext == "ndjson") format = "json";
    if (format.empty()) {
      return InvalidArgumentError("output file \"" + output.path +
                                  "\": cannot tell its format from the name; name it *.parquet, "
                                  "*.csv or *.json, or give the format (parquet, csv, json)");
    }
  }
  if (format != "parquet" && format != "csv" && format != "json") {
    return InvalidArgumentError("output format \"" + output.format +
                                "\" is not one of parquet, csv, json");
  }
  return format;
}

// A temporary file beside the output (same file system, so that it can be
// renamed or linked into place), removed unless published.
class PendingOutput {
 public:
  static StatusOr<PendingOutput> Create(const std::string& path) {
    std::string tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
      return InvalidArgumentError("output file \"" + path +
                                  "\": cannot create a file beside it: " + std::strerror(errno));
    }
    ::close(fd);
    return PendingOutput(std::move(tmp));
  }
  PendingOutput(PendingOutput&& other) noexcept : tmp_(std::exchange(other.tmp_, "")) {}
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput() {
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }
  const std::string& path() const { return tmp_; }

  // Moves the file to `output.path`: rename(2) replaces an old file; without
  // overwrite, link(2) refuses one that exists, even one made meanwhile.
  Status Publish(const QueryOutputFile& output) {
    const std::string& dest = output.path;
    if (output.overwrite ? ::rename(tmp_.c_str(), dest.c_str()) == 0
                         : ::link(tmp_.c_str(), dest.c_str()) == 0) {
      if (output.overwrite) tmp_.clear();
      return OkStatus();
    }
    if (errno == EEXIST) {
      return InvalidArgumentError("output file \"" + dest +
                                  "\" exists already; it is replaced only when asked "
                                  "(query --overwrite; overwrite=True in Python)");
    }
    return InvalidArgumentError("output file \"" + dest + "\": " + std::strerror(errno));
  }

 private:
  explicit PendingOutput(std::string tmp) : tmp_(std::move(tmp)) {}
  std::string tmp_;
};

// Writes the rows of `statement` (a query) to the output file; the rows
// written.
StatusOr<int64_t> WriteOutput(Connection& connection, const std::string& statement,
                              const QueryOutputFile& output) {
  DC_ASSIGN_OR_RETURN(std::string format, OutputFormat(output));
  std::string rows = "SELECT * FROM " + Subquery(statement);
  // Our own temporary file stands in for DuckDB's (which it would leave
  // behind, as tmp_NAME, when the query fails).
  std::string options = "FORMAT " + format + ", USE_TMP_FILE false";
  if (format == "csv") {
    // CSV has no nested values: those go as JSON, as `query --csv` prints them.
    DC_ASSIGN_OR_RETURN(ResultColumns columns, DescribeQuery(connection, statement));
    rows = SelectColumns(columns, statement, "");
    options += ", HEADER true";
  }
  DC_ASSIGN_OR_RETURN(PendingOutput pending, PendingOutput::Create(output.path));
  DC_ASSIGN_OR_RETURN(
      TextRows copied,
      connection.Query("COPY (" + rows + ") TO " + SqlString(pending.path()) + " (" + options + ")",
                       "query: writing \"" + output.path + "\""));
  DC_RETURN_IF_ERROR(pending.Publish(output));
  // COPY answers with one row: the count of rows written.
  int64_t written = -1;
  if (!copied.rows.empty() && !copied.rows[0].empty() && copied.rows[0][0]) {
    const std::string& count = *copied.rows[0][0];
    std::from_chars(count.data(), count.data() + count.size(), written);
  }
  if (written < 0) return InternalError("query: COPY did not say how many rows it wrote");
  return written;
}

// `text` as a JSON integer of type T when it is one, else as a string.
template <typename T>
nlohmann::ordered_json IntegerCell(const std::string& text) {
  T v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size()) return v;
  return text;
}

// A cell of a statement's own result as JSON: booleans and integers as
// such, anything else as its text.
nlohmann::ordered_json JsonCell(const std::optional<std::string>& cell, duckdb_type type) {
  if (!cell) return nullptr;
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
      return *cell == "true";
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
      return IntegerCell<int64_t>(*cell);
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
      return IntegerCell<uint64_t>(*cell);
    default:
      return *cell;
  }
}

// The rows of a statement that is not a query (COPY, EXPLAIN, SET, ...) as
// it gives them; as JSON rows when asked.
StatusOr<QueryResult> RunStatement(Connection& connection, const std::string& statement,
                                   bool json_rows) {
  DC_ASSIGN_OR_RETURN(TextRows rows, connection.Query(statement, "query"));
  QueryResult out;
  out.columns = std::move(rows.columns);
  if (!json_rows) {
    out.rows = std::move(rows.rows);
    return out;
  }
  for (const auto& row : rows.rows) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (size_t i = 0; i < row.size() && i < out.columns.size(); ++i) {
      object[out.columns[i]] = JsonCell(row[i], rows.types[i]);
    }
    out.rows.push_back({object.dump()});
  }
  return out;
}

}  // namespace
}  // namespace data_internal

StatusOr<QueryResult> DuckDbDataFileHandler::Query(const TableLayout& layout,
                                                   const std::vector<ScanFile>& files,
                                                   const std::string& sql,
                                                   const QueryShape& shape) {
  using namespace data_internal;
  const std::vector<std::string> statements = SplitSqlStatements(sql);
  if (statements.empty()) return InvalidArgumentError("query: no SQL statement given");
  DC_ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(layout));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  DC_ASSIGN_OR_RETURN(std::string view,
                      ViewSql(*connection, columns, files, layout.column_mapping_mode, {}));
  DC_RETURN_IF_ERROR(connection->Exec("CREATE TEMP VIEW t AS " + view,
                                      "query: creating the view t over the table's files"));
  // The statements before the last run as they are, each parsed and bound
  // once; errors name each as the user wrote it.
  for (size_t i = 0; i + 1 < statements.size(); ++i) {
    const std::string what =
        "query: statement " + std::to_string(i + 1) + " of " + std::to_string(statements.size());
    DC_RETURN_IF_ERROR(connection->ExecStatement(statements[i], what));
  }
  const std::string& last = statements.back();
  DC_ASSIGN_OR_RETURN(bool is_query, connection->IsQuery(last, "query"));
  if (!is_query) {
    if (shape.output) {
      return InvalidArgumentError(
          "query: an output file takes a query (SELECT, FROM, WITH, ...) whose rows to write; "
          "this statement is not one (a COPY names its own file)");
    }
    return RunStatement(*connection, last, shape.json_rows);
  }
  QueryResult out;
  if (shape.output) {
    DC_ASSIGN_OR_RETURN(out.rows_written, WriteOutput(*connection, last, *shape.output));
    return out;
  }
  DC_ASSIGN_OR_RETURN(ResultColumns result, DescribeQuery(*connection, last));
  out.columns = result.names;
  out.column_types = result.types;
  // Cells become text by DuckDB's own casts: the C API's value accessors
  // render neither TIMESTAMP WITH TIME ZONE nor nested values. JSON rows
  // keep every digit of a decimal (to_json writes its exact text).
  const std::string select =
      shape.json_rows ? "SELECT CAST(to_json(__dc_q) AS VARCHAR) AS row FROM " + Subquery(last)
                      : SelectColumns(result, last, "VARCHAR");
  DC_ASSIGN_OR_RETURN(TextRows rows, connection->Query(select, "query"));
  out.rows = std::move(rows.rows);
  return out;
}

}  // namespace deltacommit
