// DuckDbParquetHandler::WriteCheckpoint: actions -> a classic checkpoint
// file in the schema Delta Spark writes.

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "adapters/parquet/checkpoint_scan.h"
#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/duckdb_handles.h"
#include "deltacommit/action_json.h"
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

using Column = parquet_internal::CheckpointScan::Column;

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

bool HasCheckpointMetadata(const std::vector<Action>& actions) {
  for (const Action& action : actions) {
    if (std::holds_alternative<CheckpointMetadata>(action)) return true;
  }
  return false;
}

}  // namespace

StatusOr<int64_t> DuckDbParquetHandler::WriteCheckpoint(ObjectStore& store,
                                                        const std::string& key,
                                                        const std::vector<Action>& actions) {
  const std::string where = "checkpoint " + store.Describe() + " " + key;
  Connection connection;
  if (duckdb_connect(db_->opened->get(), connection.out()) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  auto scan = parquet_internal::CheckpointScan::Make(
      connection.get(), CheckpointColumns(HasCheckpointMetadata(actions)), actions);
  if (!scan.ok()) return scan.status().WithContext(where);
  TempFile parquet;
  DC_RETURN_IF_ERROR(parquet.Write("").WithContext(where));
  {
    parquet_internal::CheckpointScans::Registration rows(db_->scans, **scan);
    const std::string sql = "COPY (SELECT * FROM " +
                            std::string(parquet_internal::kCheckpointRowsFunction) + "(" +
                            std::to_string(rows.id()) + ")) TO " + SqlString(parquet.path()) +
                            " (FORMAT parquet, COMPRESSION snappy)";
    Result result;
    const duckdb_state copied = duckdb_query(connection.get(), sql.c_str(), result.out());
    // A row's own error first: DuckDB's message has lost its code.
    DC_RETURN_IF_ERROR((*scan)->status().WithContext(where));
    if (copied != DuckDBSuccess) {
      const char* error = duckdb_result_error(result.out());
      return InternalError(where + ": DuckDB cannot write it: " +
                           (error != nullptr ? error : "unknown error"));
    }
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

StatusOr<int64_t> DuckDbParquetHandler::WriteCheckpointActions(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& action_lines) {
  ActionParser parser;
  std::vector<Action> actions;
  actions.reserve(action_lines.size());
  for (size_t i = 0; i < action_lines.size(); ++i) {
    auto action = parser.ParseLine(action_lines[i]);
    if (!action.ok()) {
      return action.status().WithContext("checkpoint " + key + ", action line " +
                                         std::to_string(i + 1));
    }
    actions.push_back(std::move(action).value());
  }
  return WriteCheckpoint(store, key, actions);
}

}  // namespace deltacommit
