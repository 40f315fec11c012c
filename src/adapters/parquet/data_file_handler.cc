#include "deltacommit/parquet/data_file_handler.h"

#include <cctype>
#include <utility>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_input.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_types.h"

namespace deltacommit {
namespace data_internal {
namespace {

// The user's SQL as a subquery: trailing ';' and blanks cut.
std::string TrimStatement(std::string sql) {
  while (!sql.empty() && (sql.back() == ';' || std::isspace(static_cast<unsigned char>(sql.back())))) {
    sql.pop_back();
  }
  return sql;
}

// The view `t`: the table's columns in schema order.
StatusOr<std::string> ViewSql(Connection& connection, const std::vector<TableColumn>& columns,
                              const std::vector<ScanFile>& files) {
  std::string select;
  auto add = [&](const std::string& expr, const TableColumn& c) {
    select += (select.empty() ? "" : ", ") + std::string("CAST(") + expr + " AS " + c.duckdb_type +
              ") AS " + SqlIdent(c.name);
  };
  if (files.empty()) {
    for (const TableColumn& c : columns) add("NULL", c);
    return "SELECT " + select + " LIMIT 0";
  }
  // Each file's partition values, keyed by its path.
  std::string create = "CREATE TEMP TABLE __dc_files (__dc_file VARCHAR";
  std::vector<const TableColumn*> partitions;
  for (const TableColumn& c : columns) {
    if (!c.partition) continue;
    create += ", " + SqlIdent("__dc_p" + std::to_string(partitions.size())) + " VARCHAR";
    partitions.push_back(&c);
  }
  DC_RETURN_IF_ERROR(connection.Exec(create + ")", "query: preparing the file list"));
  std::string insert;
  std::string list;
  for (const ScanFile& f : files) {
    insert += std::string(insert.empty() ? "" : ", ") + "(" + SqlString(f.local_path);
    for (const TableColumn* p : partitions) {
      auto it = f.partition_values.find(p->name);
      const bool null = it == f.partition_values.end() || !it->second;
      insert += ", " + (null ? std::string("NULL") : SqlString(*it->second));
    }
    insert += ")";
    list += std::string(list.empty() ? "" : ", ") + SqlString(f.local_path);
  }
  DC_RETURN_IF_ERROR(
      connection.Exec("INSERT INTO __dc_files VALUES " + insert, "query: listing the files"));
  size_t p = 0;
  for (const TableColumn& c : columns) {
    if (c.partition) {
      add("f." + SqlIdent("__dc_p" + std::to_string(p++)), c);
    } else {
      add("d." + SqlIdent(c.name), c);
    }
  }
  return "SELECT " + select + " FROM read_parquet([" + list +
         "], filename = '__dc_file', union_by_name = true) d JOIN __dc_files f USING (__dc_file)";
}

}  // namespace
}  // namespace data_internal

using data_internal::Connection;
using data_internal::Database;

StatusOr<std::unique_ptr<DuckDbDataFileHandler>> DuckDbDataFileHandler::Create(
    const DuckDbOptions& options) {
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Database> db,
                      Database::Open(options.memory_limit, options.temp_directory));
  return std::unique_ptr<DuckDbDataFileHandler>(
      new DuckDbDataFileHandler(std::move(db), options));
}

DuckDbDataFileHandler::DuckDbDataFileHandler(std::unique_ptr<Database> db,
                                             const DuckDbOptions& options)
    : db_(std::move(db)), options_(options) {}

DuckDbDataFileHandler::~DuckDbDataFileHandler() = default;

StatusOr<std::string> DuckDbDataFileHandler::InferSchemaString(const DataInput& sample) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::string format, InputFormat(sample));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  const std::string source = InputSource(sample, format, /*text_columns=*/false);
  DC_ASSIGN_OR_RETURN(std::vector<InputColumn> inputs, DescribeInput(*connection, sample, source));
  if (inputs.empty()) {
    return InvalidArgumentError("input \"" + sample.label + "\": no columns found");
  }
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const InputColumn& in : inputs) {
    auto type = DeltaTypeFromDuckDb(in.type, in.name);
    if (!type.ok()) return type.status().WithContext("input \"" + sample.label + "\"");
    fields.push_back({{"name", in.name}, {"type", *type}, {"nullable", true},
                      {"metadata", nlohmann::ordered_json::object()}});
  }
  nlohmann::ordered_json schema{{"type", "struct"}, {"fields", std::move(fields)}};
  return schema.dump();
}

StatusOr<QueryResult> DuckDbDataFileHandler::Query(const TableLayout& layout,
                                                   const std::vector<ScanFile>& files,
                                                   const std::string& sql, bool json_rows) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(layout));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  DC_ASSIGN_OR_RETURN(std::string view, ViewSql(*connection, columns, files));
  DC_RETURN_IF_ERROR(connection->Exec("CREATE TEMP VIEW t AS " + view,
                                      "query: creating the view t over the table's files"));
  std::string statement = TrimStatement(sql);
  // Cells are turned into text by DuckDB's casts: the C API's value
  // accessors do not render every type (TIMESTAMP WITH TIME ZONE comes
  // back empty).
  QueryResult out;
  if (json_rows) {
    // The result's own column names and types, which the one JSON column
    // does not carry.
    DC_ASSIGN_OR_RETURN(TextRows described, connection->Query("DESCRIBE " + statement, "query"));
    for (const auto& row : described.rows) {
      if (row.size() < 2) continue;
      out.columns.push_back(row[0].value_or(""));
      out.column_types.push_back(row[1].value_or(""));
    }
    statement = "SELECT CAST(to_json(__dc_q) AS VARCHAR) AS row FROM (" + statement + ") __dc_q";
  } else {
    statement = "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (" + statement + ") __dc_q";
  }
  DC_ASSIGN_OR_RETURN(TextRows rows, connection->Query(statement, "query"));
  if (!json_rows) out.columns = std::move(rows.columns);
  out.rows = std::move(rows.rows);
  return out;
}

}  // namespace deltacommit
