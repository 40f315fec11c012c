// DuckDbDataFileHandler: the DataFileHandler port on DuckDB's C API (an
// in-memory database with Parquet, CSV and JSON built in; extension
// auto-install/auto-load off, so nothing is downloaded).
//
// Writing (data_write.cc): the input is read with read_csv (all columns as
// text, so every value goes through one strict cast), read_json
// (newline-delimited) or read_parquet; its columns are checked against the
// table schema by name, every value is test-cast to the column's type (a
// value that does not convert is an error naming the column and an example,
// never a silent NULL), the cast rows are materialised in a temp table and
// one Parquet file (snappy) is written per partition value tuple, without
// the partition columns (Delta keeps those in partitionValues), cut into
// several when bigger than the target file size. Statistics are an SQL
// aggregate over each written file. The temp table spills to disk beyond
// DuckDB's memory limit, so memory stays bounded whatever the input's size.
//
// Deleting (data_match.cc): the same view with each row's file and index
// in it; the condition's matches come back chunk by chunk as numbers.
//
// Querying: the view `t` reads the files with read_parquet, joined on the
// file name to a table of their partition values, which are cast to the
// partition columns' types (the values in the log are the truth, not the
// directory names).
//
// Thread-safety: safe for concurrent use; each call has its own connection.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/parquet/data_files.h"
#include "deltacommit/status.h"

namespace deltacommit {
namespace data_internal {
class Database;
}

struct DuckDbOptions {
  // DuckDB's memory_limit (e.g. "1GB"); empty: DuckDB's default, 80% of RAM.
  // Inputs bigger than this spill to temp_directory instead of memory.
  std::string memory_limit;
  // Where DuckDB spills; empty: ".tmp" in the working directory.
  std::string temp_directory;
  // About how big a data file may grow before the next one starts.
  int64_t target_file_bytes = kTargetDataFileBytes;
};

class DuckDbDataFileHandler : public DataFileHandler {
 public:
  // kInvalidArgument naming an option DuckDB refuses; kInternal if it
  // cannot be opened.
  static StatusOr<std::unique_ptr<DuckDbDataFileHandler>> Create(const DuckDbOptions& options = {});
  ~DuckDbDataFileHandler() override;

  StatusOr<std::vector<WrittenDataFile>> WriteDataFiles(const DataInput& input,
                                                        const TableLayout& layout,
                                                        const std::string& staging_dir) override;
  StatusOr<std::string> InferSchemaString(const DataInput& sample) override;
  Status WriteMemoryColumns(const std::vector<MemoryColumn>& columns,
                            const std::string& path) override;
  StatusOr<QueryResult> Query(const TableLayout& layout, const std::vector<ScanFile>& files,
                              const std::string& sql, const QueryShape& shape) override;
  StatusOr<std::optional<std::vector<bool>>> MatchFiles(const TableLayout& layout,
                                                        const std::vector<ScanFile>& files,
                                                        const std::string& condition) override;
  StatusOr<RowMatches> MatchRows(const TableLayout& layout, const std::vector<ScanFile>& files,
                                 const std::string& condition,
                                 const std::string& changes_path) override;

 private:
  DuckDbDataFileHandler(std::unique_ptr<data_internal::Database> db, const DuckDbOptions& options);
  std::unique_ptr<data_internal::Database> db_;
  const DuckDbOptions options_;
};

}  // namespace deltacommit
