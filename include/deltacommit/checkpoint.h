// Writing classic checkpoints (PROTOCOL.md "Checkpoints"): the actions that
// reconstruct a snapshot, one Parquet file "<v>.checkpoint.parquet" written
// through the ParquetHandler port, then the `_last_checkpoint` hint.
//
// The core decides what goes in; the adapter only encodes rows as Parquet.
//
// Thread-safety: free functions; the store and handler must be thread-safe
// (ports are).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

// The default of delta.checkpointInterval.
inline constexpr int64_t kDefaultCheckpointInterval = 10;

// The actions of a classic checkpoint of `snapshot`, in this order:
// protocol, metaData, txn (per appId), domainMetadata (not removed), add
// (dataChange false), remove tombstones (dataChange false), and, for a table
// with the v2Checkpoint feature, a checkpointMetadata action (a classic-named
// checkpoint of such a table must be a v2 checkpoint).
std::vector<Action> CheckpointActions(const Snapshot& snapshot);

struct CheckpointInfo {
  Version version = -1;
  int64_t size = 0;            // actions (rows) in the checkpoint
  int64_t size_in_bytes = 0;   // of the checkpoint file
  int64_t num_of_add_files = 0;
  std::string key;             // "_delta_log/<v>.checkpoint.parquet"
};

// The `_last_checkpoint` JSON for `info`:
// {"version":..,"size":..,"sizeInBytes":..,"numOfAddFiles":..}.
std::string LastCheckpointJson(const CheckpointInfo& info);

// delta.checkpointInterval from the table's configuration; the default when
// absent or not a positive integer.
int64_t CheckpointInterval(const Metadata& metadata);

// Writes the checkpoint of `snapshot` into `store` (the table root), then
// `_last_checkpoint`, last, unless that already names a later version.
// Never replaces a checkpoint file: kAlreadyExists naming the key when
// `<v>.checkpoint.parquet` exists (written by someone else, or earlier).
// The handler's codes pass through (kUnimplemented if it cannot write).
StatusOr<CheckpointInfo> WriteCheckpoint(ObjectStore& store, ParquetHandler& parquet,
                                         const Snapshot& snapshot);

}  // namespace deltacommit
