// The table's columns as the data-file adapter writes and reads them, and
// the per-file statistics over them.
//
// Thread-safety: plain values and functions; a Connection serves one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/data_files.h"
#include "deltacommit/status.h"

namespace deltacommit::data_internal {

struct TableColumn {
  std::string name;
  std::string delta_type;   // StructField::type
  std::string duckdb_type;  // DuckDbType(delta_type)
  bool nullable = true;
  bool partition = false;
  // Under column mapping ("name", "id"): how data files and partition
  // values name it, its id, and its type with physical struct field
  // names. Else name, none and duckdb_type.
  std::string physical_name;
  std::optional<int64_t> field_id;
  std::string physical_duckdb_type;
};

// The schema's top-level columns in order, partition columns marked (by
// logical name, as metaData.partitionColumns lists them). kInvalidArgument
// for a schema or type the adapter cannot handle, naming the column.
StatusOr<std::vector<TableColumn>> TableColumns(const TableLayout& layout);

// The protocol's `stats` JSON for the Parquet file at `path`: numRecords,
// and for the first `stats_columns` data columns of `columns` (-1: all),
// where primitive, nullCount and, where the type has one, minValues and
// maxValues (StatsKindOf).
struct FileStats {
  int64_t num_records = 0;
  std::string json;
};
StatusOr<FileStats> FileStatsJson(Connection& connection, const std::string& path,
                                    const std::vector<TableColumn>& columns,
                                    int stats_columns);

}  // namespace deltacommit::data_internal
