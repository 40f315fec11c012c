// Writing classic checkpoints (PROTOCOL.md "Checkpoints"): the actions that
// reconstruct a snapshot, as one Parquet file "<v>.checkpoint.parquet" or,
// for a table with very many files, as a multi-part checkpoint
// (checkpoint_parts.h), written through the ParquetHandler port, then the
// `_last_checkpoint` hint.
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
#include "deltacommit/clock.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

// The default of delta.checkpointInterval.
inline constexpr int64_t kDefaultCheckpointInterval = 10;

// Spark splits a checkpoint only when spark.databricks.delta.checkpoint.partSize
// (a session setting, unset by default) is set. Here the part size is an
// option (`deltacommit checkpoint --part-size`) whose default splits only
// checkpoints of more than a million adds and removes.
inline constexpr int64_t kDefaultCheckpointPartSize = 1'000'000;

// The actions of a classic checkpoint of `snapshot` at time `now_millis`,
// in this order: protocol, metaData, txn (per appId), domainMetadata (not
// removed), add (dataChange false), remove tombstones (dataChange false),
// and, for a table with the v2Checkpoint feature, a checkpointMetadata
// action (a classic-named checkpoint of such a table must be a v2
// checkpoint). Tombstones whose deletionTimestamp is not after
// now - delta.deletedFileRetentionDuration have expired and are left out,
// as Spark does (one without a deletionTimestamp counts as 0: expired).
// kInvalidArgument (from retention.h) when that property does not parse.
StatusOr<std::vector<Action>> CheckpointActions(const Snapshot& snapshot, int64_t now_millis);

struct CheckpointOptions {
  // Adds and removes per part: more than this makes a multi-part
  // checkpoint of ceil(count / part_size) parts (never for a table with the
  // v2Checkpoint feature, where the protocol forbids them). >= 1.
  int64_t part_size = kDefaultCheckpointPartSize;
};

struct CheckpointInfo {
  Version version = -1;
  int64_t size = 0;            // actions (rows) in the checkpoint, all parts
  int64_t size_in_bytes = 0;   // of the checkpoint file(s)
  int64_t num_of_add_files = 0;
  int32_t parts = 0;           // multi-part: the number of parts; else 0
  // "_delta_log/<v>.checkpoint.parquet"; multi-part: the first part's key.
  std::string key;
};

// The `_last_checkpoint` JSON for `info`: {"version":..,"size":..,
// ["parts":..,]"sizeInBytes":..,"numOfAddFiles":..}.
std::string LastCheckpointJson(const CheckpointInfo& info);

// delta.checkpointInterval from the table's configuration; the default when
// absent or not a positive integer.
int64_t CheckpointInterval(const Metadata& metadata);

// Writes the checkpoint of `snapshot` into `store` (the table root), with
// tombstones expired as of `clock`'s time, then `_last_checkpoint`, last
// (after every part), unless that already names a later version.
// Never replaces a checkpoint file: kAlreadyExists naming the key when
// `<v>.checkpoint.parquet` (or every part of the multi-part set) exists,
// written by someone else or earlier; see WriteMultiPartCheckpoint for
// parts left by a crashed writer. kInvalidArgument from CheckpointActions.
// The handler's codes pass through (kUnimplemented if it cannot write).
StatusOr<CheckpointInfo> WriteCheckpoint(ObjectStore& store, ParquetHandler& parquet,
                                         const Snapshot& snapshot, Clock& clock,
                                         const CheckpointOptions& options = {});

}  // namespace deltacommit
