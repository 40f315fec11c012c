// ParquetHandler: the port for reading checkpoint files. The core never links
// a Parquet library; an adapter (DuckDB) implements this.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <string>
#include <vector>

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
};

}  // namespace deltacommit
