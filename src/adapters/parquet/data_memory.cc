// DuckDbDataFileHandler::WriteMemoryColumns: rows handed over column by
// column (a pandas DataFrame) become a Parquet file, through a temp table
// filled by DuckDB's appender (no text per value), for WriteDataFiles to
// read like any other input.
#include <set>
#include <string>
#include <vector>

#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace {

const char* SqlType(MemoryColumn::Kind kind) {
  switch (kind) {
    case MemoryColumn::Kind::kInt64:
      return "BIGINT";
    case MemoryColumn::Kind::kDouble:
      return "DOUBLE";
    case MemoryColumn::Kind::kBool:
      return "BOOLEAN";
    case MemoryColumn::Kind::kTimestampMicros:
      return "TIMESTAMP";
    case MemoryColumn::Kind::kString:
      break;
  }
  return "VARCHAR";
}

}  // namespace

Status DuckDbDataFileHandler::WriteMemoryColumns(const std::vector<MemoryColumn>& columns,
                                                 const std::string& path) {
  using namespace data_internal;
  if (columns.empty()) return InvalidArgumentError("the rows given have no column");
  std::set<std::string> names;
  std::string create;
  for (const MemoryColumn& c : columns) {
    if (!names.insert(c.name).second) {
      return InvalidArgumentError("column \"" + c.name + "\" is given twice");
    }
    if (c.size() != columns.front().size() || (!c.nulls.empty() && c.nulls.size() != c.size())) {
      return InvalidArgumentError("column \"" + c.name + "\" holds " + std::to_string(c.size()) +
                                  " rows, column \"" + columns.front().name + "\" " +
                                  std::to_string(columns.front().size()));
    }
    create += (create.empty() ? "" : ", ") + SqlIdent(c.name) + " " + SqlType(c.kind);
  }
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  DC_RETURN_IF_ERROR(connection->Exec("CREATE TEMP TABLE __dc_memory (" + create + ")",
                                      "preparing the rows given"));
  DC_RETURN_IF_ERROR(connection->AppendColumns("__dc_memory", columns));
  return connection->Exec("COPY __dc_memory TO " + SqlString(path) + " (FORMAT parquet)",
                          "writing the rows given");
}

}  // namespace deltacommit
