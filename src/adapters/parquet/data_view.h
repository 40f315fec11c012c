// The view `t` over a snapshot's data files (DuckDbDataFileHandler's Query
// and MatchRows): the table's columns by logical name, read by physical
// name or field id under column mapping, partition values from the log,
// less the rows deletion vectors remove.
#pragma once

#include <string>
#include <vector>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/data_files.h"

namespace deltacommit::data_internal {

struct ViewShape {
  // Also the columns __dc_index (the file's index in `files`) and __dc_row
  // (the row's index in its file), which deletes match rows by.
  bool row_ids = false;
};

// The SELECT of the view over `files` (creating the temp tables it reads on
// `connection`); `mapping` is delta.columnMapping.mode.
StatusOr<std::string> ViewSql(Connection& connection, const std::vector<TableColumn>& columns,
                              const std::vector<ScanFile>& files, const std::string& mapping,
                              ViewShape shape);

// The SELECT of a view of the partition columns alone (by logical name,
// typed) and __dc_index, one row per file of `files`, from their partition
// values: what a condition on partition columns only is decided on,
// without reading any data file.
StatusOr<std::string> PartitionViewSql(Connection& connection,
                                       const std::vector<TableColumn>& columns,
                                       const std::vector<ScanFile>& files);

}  // namespace deltacommit::data_internal
