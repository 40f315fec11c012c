// Local staging for the data-file commands (`append`, `query`): DuckDB reads
// and writes local files only, so inputs from stdin, Parquet files on their
// way to the table and table files on their way to a query pass through a
// private temp directory, removed afterwards.
//
// Thread-safety: a StagingDir serves one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet/data_files.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"
#include "deltacommit/table.h"
#include "deltacommit/transaction.h"

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

// Uploads the data file `f` (written by a DataFileHandler) into the table
// and gives the add that commits it: data changed, modified at
// `modification_time` (ms since the epoch), with its stats.
StatusOr<AddFile> UploadDataFile(ObjectStore& store, const WrittenDataFile& f,
                                 int64_t modification_time);

// Removes `keys` (files written into the table for a commit that did not
// happen), best effort: nothing refers to them.
void RemoveWrittenFiles(ObjectStore& store, const std::vector<std::string>& keys);

// Commits `txn` (which refers to the files `written` into the table) and
// removes those files again when it did not commit: an error, a conflict,
// or a retry already committed. They are kept when the outcome is unknown:
// the commit may have landed and refer to them.
StatusOr<CommitOutcome> CommitWrittenFiles(Table& table, Transaction& txn, ObjectStore& store,
                                           const std::vector<std::string>& written);

// Fetches the data file of `add` (URI-encoded, relative to the table or
// absolute under `table_uri`, as ActionPathKey takes it) into `local`.
// kInvalidArgument for a path outside the table.
Status DownloadDataFile(ObjectStore& store, std::string_view table_uri, const AddFile& add,
                        const std::string& local);

// The file's row count (numRecords in its stats), when its stats give it.
std::optional<int64_t> NumRecords(const AddFile& add);

// A snapshot's active files fetched into a staging directory, each with the
// rows its deletion vector removes (read and checked as DeletionVectorReader
// does).
struct StagedScan {
  std::vector<ScanFile> files;
  std::vector<AddFile> adds;  // the snapshot's add of each file, in order
};

// Stages every active file of `snapshot` into `staging_dir`. Errors name
// the data file (and its DV) that could not be read.
StatusOr<StagedScan> StageScan(ObjectStore& store, std::string_view table_uri,
                               const Snapshot& snapshot, const std::string& staging_dir);

// What the data files of a table with protocol `p` and metaData `m` must
// match: its schema, partition columns, statistics setting
// (delta.dataSkippingNumIndexedCols) and column mapping mode (honoured only
// where `p` supports the columnMapping feature). kInvalidArgument for a
// malformed setting.
StatusOr<TableLayout> DataLayout(const Protocol& p, const Metadata& m);

}  // namespace deltacommit
