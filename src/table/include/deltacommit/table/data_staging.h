// Local staging for the data-file commands (`append`, `query`): DuckDB reads
// and writes local files only, so inputs from stdin, Parquet files on their
// way to the table and table files on their way to a query pass through a
// private temp directory, removed afterwards.
//
// Thread-safety: a StagingDir serves one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet/data_files.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

class StagingDir {
 public:
  // A new directory under $TMPDIR (else /tmp). kInternal naming it on failure.
  static StatusOr<StagingDir> Create();
  StagingDir(StagingDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  StagingDir& operator=(StagingDir&&) = delete;
  ~StagingDir();  // removes the directory and everything in it

  const std::string& path() const { return path_; }

  // Copies stdin to a new file here, a chunk at a time (never all of it in
  // memory), and returns its path. `progress` (may be empty) hears the
  // bytes copied so far after each chunk.
  StatusOr<std::string> SaveStdin(std::string_view name,
                                  const std::function<void(int64_t)>& progress = {});

 private:
  explicit StagingDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Size of a local file; kInternal naming it.
StatusOr<int64_t> LocalFileSize(const std::string& path);

// Puts the local file at `path` into the table as `key` (read whole: data
// files are cut at kTargetDataFileBytes to bound this).
Status UploadFile(ObjectStore& store, const std::string& path, const std::string& key);

// Fetches the data file of `add` (URI-encoded, relative to the table or
// absolute under `table_uri`, as ActionPathKey takes it) into `local`.
// kInvalidArgument for a path outside the table.
Status DownloadDataFile(ObjectStore& store, std::string_view table_uri, const AddFile& add,
                        const std::string& local);

// What the data files of a table with protocol `p` and metaData `m` must
// match: its schema, partition columns, statistics setting
// (delta.dataSkippingNumIndexedCols) and column mapping mode (honoured only
// where `p` supports the columnMapping feature). kInvalidArgument for a
// malformed setting.
StatusOr<TableLayout> DataLayout(const Protocol& p, const Metadata& m);

}  // namespace deltacommit
