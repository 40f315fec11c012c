// Table::Query: the data path of `deltacommit query`. DuckDB reads local
// files only, so the snapshot's active files are fetched into a private
// staging directory (removed afterwards) and read there as the view `t`,
// less the rows their deletion vectors remove.
#include <memory>
#include <string>
#include <vector>

#include "deltacommit/parquet/data_file_handler.h"
#include "deltacommit/table.h"
#include "deltacommit/table/data_staging.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit {

StatusOr<QueryResult> Table::Query(const std::string& sql, QueryOptions options) {
  const std::string context = "table " + uri();
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> snapshot =
      options.version ? SnapshotAt(*options.version) : Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  // The layout first: a malformed setting fails before any file is fetched.
  DC_ASSIGN_OR_RETURN(TableLayout layout,
                      DataLayout((*snapshot)->protocol(), (*snapshot)->metadata()));
  DC_ASSIGN_OR_RETURN(StagingDir staging, StagingDir::Create());
  StatusOr<StagedScan> scan =
      StageScan(*adapters().store, adapters().ActionUri(), **snapshot, staging.path());
  if (!scan.ok()) return scan.status().WithContext(context);
  // A big query spills into the staging directory, not the working one.
  DuckDbOptions duckdb;
  duckdb.memory_limit = options.memory_limit;
  duckdb.temp_directory = staging.path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return handler.status().WithContext("memory limit");
  StatusOr<QueryResult> result =
      (*handler)->Query(layout, scan->files, sql, QueryShape{options.json_rows, options.output});
  if (!result.ok()) return result.status().WithContext(context);
  return result;
}

}  // namespace deltacommit
