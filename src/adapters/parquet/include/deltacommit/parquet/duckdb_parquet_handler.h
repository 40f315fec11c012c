// DuckDbParquetHandler: the ParquetHandler port on DuckDB's C API (an
// in-memory database with Parquet built in). It writes classic checkpoints
// and reads Delta checkpoints, returning their actions decoded or as JSON
// lines, the text form of a commit file (see checkpoint_rows.h for how
// Parquet values become JSON).
//
// Files are read through the ObjectStore, which may be remote: each file's
// bytes are fetched with Get (`concurrent_reads` at a time: a checkpoint's
// parts, then its sidecars), written to a temp file under $TMPDIR (mkstemp,
// removed right after) and queried with read_parquet(). DuckDB is opened with
// extension autoloading and autoinstalling off, so nothing is downloaded.
//
// What is read for `keys` (all parts of one checkpoint, in order):
//   - a key ending in ".json" (a UUID-named v2 checkpoint in JSON) is split
//     into its non-blank lines, no DuckDB involved; any other key is Parquet;
//   - for every `sidecar` action in those files (v2 spec), the sidecar file
//     _delta_log/_sidecars/<path> is read too and its actions follow.
// The `sidecar` and `checkpointMetadata` actions themselves are returned as
// well: the port promises every action of the files, and PROTOCOL.md ("Action
// Reconciliation") says v2 checkpoint actions do not take part in log replay,
// which LogReplay honours by ignoring them.
//
// Thread-safety: safe for concurrent use; each call has a connection to
// the shared in-memory database to itself (kept for later calls).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/status.h"

namespace deltacommit {

class DuckDbParquetHandler : public ParquetHandler {
 public:
  // Opens the in-memory database. kInternal if DuckDB refuses to open or
  // to apply the settings above.
  static StatusOr<std::unique_ptr<DuckDbParquetHandler>> Create(int concurrent_reads = 1);

  ~DuckDbParquetHandler() override;
  DuckDbParquetHandler(const DuckDbParquetHandler&) = delete;
  DuckDbParquetHandler& operator=(const DuckDbParquetHandler&) = delete;

  // Codes: kNotFound if a key (or a sidecar it names) is absent; kDataLoss
  // naming the key if a file is not Parquet or DuckDB cannot read it;
  // kInvalidArgument for a sidecar path that is malformed or outside
  // _delta_log/_sidecars; kUnimplemented for a field with no JSON form;
  // kInternal for a local temp file failure; the store's codes pass through.
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override;

  // The same, decoded: adds and removes are built from DuckDB's vectors
  // without JSON (checkpoint_actions.h). Also kInvalidArgument (or what the
  // parser says) for an action that does not decode, naming the key.
  StatusOr<std::vector<Action>> ReadCheckpoint(ObjectStore& store,
                                               const std::vector<std::string>& keys) override;
  // The same, handed over every kBatchRows actions or so (a DuckDB chunk
  // at a time) and at the end of each file, sidecars last.
  Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                 const ActionBatch& apply) override;
  static constexpr size_t kBatchRows = 8192;

  // Writes the actions as a classic checkpoint in Delta Spark's checkpoint
  // schema (duckdb_checkpoint_writer.cc lists it): COPY writes Parquet
  // (snappy) to a temp file from a table function that fills DuckDB's
  // chunks of the schema's STRUCT/MAP/LIST types with the actions' values,
  // no JSON and no table between (checkpoint_scan.h), and the file's bytes
  // are put into `store` with PutIfAbsent. Fields outside the schema are
  // dropped, as a Spark checkpoint drops them.
  // Codes: kAlreadyExists if `key` exists; kInvalidArgument for an action a
  // checkpoint does not hold; kInternal if DuckDB fails or for a local temp
  // file failure; the store's codes pass through.
  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<Action>& actions) override;
  // The same from JSON lines, decoded with ActionParser first: also its
  // errors, naming the key and the line's number.
  StatusOr<int64_t> WriteCheckpointActions(ObjectStore& store, const std::string& key,
                                           const std::vector<std::string>& action_lines) override;

 private:
  struct Database;
  DuckDbParquetHandler(std::unique_ptr<Database> db, int concurrent_reads);

  // Where a read's actions go: as JSON lines, or decoded (one is set).
  // With `batch`, decoded actions are handed to it (and cleared) once
  // kBatchRows have gathered and at the end of each file.
  struct Sink {
    std::vector<std::string>* lines = nullptr;
    std::vector<Action>* actions = nullptr;
    const ActionBatch* batch = nullptr;
  };

  // Appends the actions of the files `keys`, in order, to `out`.
  Status ReadFiles(ObjectStore& store, const std::vector<std::string>& keys, Sink out);
  // Appends the actions of one file (JSON lines or Parquet), whose bytes
  // are `bytes`, to `out`.
  Status DecodeFile(const ObjectStore& store, const std::string& key, std::string bytes,
                    Sink out);
  Status DecodeParquet(const ObjectStore& store, const std::string& key, std::string bytes,
                       Sink out);

  std::unique_ptr<Database> db_;
  const int concurrent_reads_;
};

namespace parquet_internal {

// The store key of the sidecar named by a `sidecar` action's `path`: a file
// name (URI-encoded) under _delta_log/_sidecars/, or an absolute URI whose
// path runs through "/_delta_log/_sidecars/" (the part after it is used).
// kInvalidArgument for bad %-escapes or a path outside that directory.
StatusOr<std::string> SidecarKey(std::string_view path);

}  // namespace parquet_internal
}  // namespace deltacommit
