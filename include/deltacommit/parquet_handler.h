// ParquetHandler: the port for reading and writing checkpoint files. The core never links
// a Parquet library; an adapter (DuckDB) implements this.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit {

class ParquetHandler {
 public:
  virtual ~ParquetHandler() = default;

  // Reads the checkpoint files `keys` (Parquet, relative to `store`'s root)
  // and returns one JSON action line per non-null action in them, in the
  // same text form a commit file uses, so one decoder reads both.
  virtual StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) = 0;

  // The same actions, decoded: what ActionParser makes of those lines, in
  // the same order, with the same errors (naming the key). A handler may
  // build the actions from the file's values without writing JSON. The
  // default parses ReadCheckpointActions' lines.
  virtual StatusOr<std::vector<Action>> ReadCheckpoint(ObjectStore& store,
                                                       const std::vector<std::string>& keys);

  // Takes a batch of a checkpoint's actions; may move from them. An error
  // stops the read and is what the read returns.
  using ActionBatch = std::function<Status(std::vector<Action>& actions)>;

  // The same actions, in the same order, handed to `apply` in batches as
  // they are decoded, so that a snapshot load (which reads checkpoints this
  // way) need not hold all of a large checkpoint's actions at once. The
  // default reads them all with ReadCheckpoint and hands them over as one
  // batch.
  virtual Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                         const ActionBatch& apply);

  // Writes `actions` as the single-file checkpoint `key` in `store`, one
  // row per action in the checkpoint schema Delta Spark writes, and returns
  // the file's size in bytes. Never replaces an object: kAlreadyExists if
  // `key` exists. A handler that writes the checkpoint schema refuses an
  // action it has no column for (commitInfo, cdc, sidecar, an unknown
  // action) with kInvalidArgument; the core never passes one. A checkpoint
  // write passes the actions this way; a handler may write the file from
  // their values without JSON. The default writes their JSON lines
  // (ActionToJson) with WriteCheckpointActions.
  virtual StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                            const std::vector<Action>& actions);

  // The same from `action_lines`, one JSON action per line as ActionToJson
  // writes them (and ReadCheckpointActions returns them). The default
  // refuses (kUnimplemented): a handler that only reads.
  virtual StatusOr<int64_t> WriteCheckpointActions(ObjectStore& store, const std::string& key,
                                                   const std::vector<std::string>& action_lines);
};

}  // namespace deltacommit
