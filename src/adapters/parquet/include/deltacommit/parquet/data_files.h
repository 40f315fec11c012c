// DataFileHandler: the port for a table's data files (Parquet). The core and
// the commit service never link a Parquet engine; an adapter (DuckDB)
// implements this and the CLI uses it for `append`, `create --from` and
// `query`. Every file it touches is local: callers stage remote files.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/memory_columns.h"
#include "deltacommit/query_result.h"
#include "deltacommit/status.h"

namespace deltacommit {

// An input file of rows.
struct DataInput {
  std::string path;    // a local file
  std::string format;  // "csv", "json" (JSON lines), "parquet"; "" to detect
  std::string label;   // how messages name it (e.g. "-" for stdin)
  // Told how far converting it has come while a long step runs (the step,
  // and the engine's estimate of the percentage done, -1 when it has none),
  // about every 250 ms, on the thread that called WriteDataFiles. May be
  // empty.
  std::function<void(std::string_view step, double percent)> progress;
};

// Data files are cut at about this size, so that no file needs more memory
// than that to upload (and none exceeds what one PUT may carry).
inline constexpr int64_t kTargetDataFileBytes = 128LL << 20;

// What the data files must match: the table's metaData.
struct TableLayout {
  std::string schema_string;
  std::vector<std::string> partition_columns;
  // How many leading data columns get statistics
  // (delta.dataSkippingNumIndexedCols; -1: all).
  int stats_columns = 32;
  // delta.columnMapping.mode: "name" or "id" reads data files (and
  // partition values) by physical names, or by field id; else logical names.
  std::string column_mapping_mode = "none";
  // Change data files (PROTOCOL.md "Change Data Files"): after the
  // schema's columns, a string column _change_type, named so in every mode.
  bool change_type_column = false;
};

// One Parquet file written for an input.
struct WrittenDataFile {
  std::string local_path;  // where it was written (under the staging dir)
  // Its key under the table root: Hive-style partition directories (values
  // escaped as Spark does) then a unique file name. Not URI-encoded.
  std::string table_key;
  std::string add_path;  // table_key URI-encoded, for add.path
  NullableStringMap partition_values;  // serialized as the protocol says
  int64_t num_records = 0;
  std::string stats;  // the protocol's `stats` JSON
};

// An active file to scan, as a local copy.
struct ScanFile {
  std::string local_path;
  NullableStringMap partition_values;  // keyed by physical names under column mapping
  // Rows (indexes from 0 in the file) its deletion vector removes.
  std::vector<uint64_t> deleted_rows;
  // How messages name it (its path in the table); empty: local_path.
  std::string label;
};

// What a delete's condition matches in a scan (DataFileHandler::MatchRows).
struct RowMatches {
  // Per file, in the scan's order: the rows the condition matches that its
  // deletion vector has not removed already, ascending.
  std::vector<std::vector<uint64_t>> rows;
  // Per file: the rows it holds (its Parquet footer's count), deleted or not.
  std::vector<int64_t> file_rows;
  // Rows written to the change data file asked for (MatchRows).
  int64_t changes_written = 0;
};

// The name and values of the change data column.
inline constexpr char kChangeTypeColumn[] = "_change_type";

class DataFileHandler {
 public:
  virtual ~DataFileHandler() = default;

  // Converts `input` to Parquet files under `staging_dir` matching `layout`:
  // every schema column present in the input, values cast to the column's
  // type, one file per distinct partition value tuple (several when its
  // rows exceed about kTargetDataFileBytes). An empty input gives
  // no files. kInvalidArgument naming the input and column when the input
  // does not fit (missing or extra column, a value that does not convert, a
  // null in a non-nullable column, an absent or empty input).
  virtual StatusOr<std::vector<WrittenDataFile>> WriteDataFiles(
      const DataInput& input, const TableLayout& layout,
      const std::string& staging_dir) = 0;

  // Writes `columns` (all of one length, names unique) as the local Parquet
  // file `path`, one Parquet column per column in its kind's type
  // (BIGINT, DOUBLE, BOOLEAN, TIMESTAMP, VARCHAR), for WriteDataFiles to
  // read. kInvalidArgument naming a column of another length or a repeated
  // name.
  virtual Status WriteMemoryColumns(const std::vector<MemoryColumn>& columns,
                                    const std::string& path) = 0;

  // A Delta schemaString for the columns of `sample`. kInvalidArgument
  // naming a column whose type has no Delta equivalent.
  virtual StatusOr<std::string> InferSchemaString(const DataInput& sample) = 0;

  // Runs `sql` (one or more statements; the last one's result is the
  // answer) with a view `t` over `files` (the table's columns in schema
  // order, partition columns typed from partitionValues), answering as
  // `shape` says.
  virtual StatusOr<QueryResult> Query(const TableLayout& layout,
                                      const std::vector<ScanFile>& files,
                                      const std::string& sql, const QueryShape& shape) = 0;

  // Which of `files` `condition` matches, decided from their partition
  // values alone (no data file is read; ScanFile::local_path may name no
  // file): when the condition reads partition columns only and calls no
  // volatile function, every row of a file matches or none does. nullopt
  // otherwise (a data column, the view t, an error): MatchRows decides.
  virtual StatusOr<std::optional<std::vector<bool>>> MatchFiles(
      const TableLayout& layout, const std::vector<ScanFile>& files,
      const std::string& condition) = 0;

  // The rows of `files` that `condition` (one SQL boolean expression over
  // the view `t`'s columns, as after WHERE) matches; a row it gives NULL is
  // not matched. With `changes_path`, those rows (the condition evaluated
  // once) also go to that local Parquet file, as the view's columns and
  // _change_type "delete": the change data of a delete. kInvalidArgument
  // naming the condition when it is not one expression over those columns.
  virtual StatusOr<RowMatches> MatchRows(const TableLayout& layout,
                                         const std::vector<ScanFile>& files,
                                         const std::string& condition,
                                         const std::string& changes_path) = 0;
};

}  // namespace deltacommit
