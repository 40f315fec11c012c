// DuckDbParquetHandler::WriteCheckpoint: action JSON lines -> a classic
// checkpoint file in the schema Delta Spark writes.

#include <string>
#include <string_view>
#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/duckdb_handles.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"

namespace deltacommit {
namespace {

using parquet_internal::Connection;
using parquet_internal::Result;
using parquet_internal::SqlString;
using parquet_internal::TempFile;

// The checkpoint schema (PROTOCOL.md "Checkpoint Schema", as Delta Spark
// writes it): one nullable STRUCT column per action type, in Spark's column
// order; partitionValues, tags, configuration and format.options are
// MAP<string,string> with nullable values; integers are Spark's types
// (protocol versions and DV offset/size INT32, the rest INT64).
constexpr std::string_view kDeletionVector =
    "STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, \"offset\" INTEGER, "
    "sizeInBytes INTEGER, cardinality BIGINT, maxRowIndex BIGINT)";

struct Column {
  std::string_view name;
  std::string type;
};

std::vector<Column> CheckpointColumns(bool v2) {
  const std::string dv(kDeletionVector);
  std::vector<Column> columns = {
      {"txn", "STRUCT(appId VARCHAR, \"version\" BIGINT, lastUpdated BIGINT)"},
      {"add",
       "STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, "
       "modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, "
       "tags MAP(VARCHAR, VARCHAR), deletionVector " + dv +
           ", baseRowId BIGINT, defaultRowCommitVersion BIGINT, clusteringProvider VARCHAR)"},
      {"remove",
       "STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, "
       "extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, "
       "stats VARCHAR, tags MAP(VARCHAR, VARCHAR), deletionVector " + dv +
           ", baseRowId BIGINT, defaultRowCommitVersion BIGINT)"},
      {"metaData",
       "STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, "
       "format STRUCT(provider VARCHAR, options MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, "
       "partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR), createdTime BIGINT)"},
      {"protocol",
       "STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], "
       "writerFeatures VARCHAR[])"},
      {"domainMetadata", "STRUCT(domain VARCHAR, configuration VARCHAR, removed BOOLEAN)"},
  };
  // Only a v2 checkpoint has this column (readers of classic checkpoints
  // need not know it).
  if (v2) {
    columns.push_back({"checkpointMetadata",
                       "STRUCT(\"version\" BIGINT, tags MAP(VARCHAR, VARCHAR))"});
  }
  return columns;
}

bool HasCheckpointMetadata(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    if (line.starts_with("{\"checkpointMetadata\"")) return true;
  }
  return false;
}

// COPY (SELECT <columns> FROM read_json(<in>, columns={...})) TO <out>.
std::string CopySql(const std::vector<Column>& columns, const std::string& in,
                    const std::string& out) {
  std::string spec;
  std::string select;
  for (const Column& c : columns) {
    if (!spec.empty()) {
      spec += ", ";
      select += ", ";
    }
    spec += "\"" + std::string(c.name) + "\": " + SqlString(c.type);
    select += "\"" + std::string(c.name) + "\"";
  }
  return "COPY (SELECT " + select + " FROM read_json(" + SqlString(in) +
         ", format='newline_delimited', columns={" + spec + "})) TO " + SqlString(out) +
         " (FORMAT parquet, COMPRESSION snappy)";
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

StatusOr<int64_t> DuckDbParquetHandler::WriteCheckpoint(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& action_lines) {
  const std::string where = "checkpoint " + store.Describe() + " " + key;
  TempFile json;
  DC_RETURN_IF_ERROR(json.Write(JoinLines(action_lines)).WithContext(where));
  TempFile parquet;
  DC_RETURN_IF_ERROR(parquet.Write("").WithContext(where));

  Connection connection;
  if (duckdb_connect(db_->opened->get(), connection.out()) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  const std::string sql =
      CopySql(CheckpointColumns(HasCheckpointMetadata(action_lines)), json.path(), parquet.path());
  Result result;
  if (duckdb_query(connection.get(), sql.c_str(), result.out()) != DuckDBSuccess) {
    const char* error = duckdb_result_error(result.out());
    return InternalError(where + ": DuckDB cannot write it: " +
                         (error != nullptr ? error : "unknown error"));
  }
  DC_ASSIGN_OR_RETURN(std::string bytes, parquet.Read());
  if (!parquet_internal::LooksLikeParquet(bytes)) {
    return InternalError(where + ": DuckDB wrote no Parquet file (" +
                         std::to_string(bytes.size()) + " bytes)");
  }
  Status put = store.PutIfAbsent(key, bytes);
  if (put.IsAlreadyExists()) {
    return AlreadyExistsError(where + " already exists (not replaced)");
  }
  DC_RETURN_IF_ERROR(put.WithContext(where));
  return static_cast<int64_t>(bytes.size());
}

}  // namespace deltacommit
