// JsonLinesParquetHandler: a ParquetHandler for tests whose "checkpoint"
// files hold the JSON action lines as text, one per line, so the paths that
// read and write checkpoints through the port run without DuckDB.
//
// Thread-safety: safe for concurrent use (it keeps no state; the store is
// the caller's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deltacommit/parquet_handler.h"

namespace deltacommit {

class JsonLinesParquetHandler : public ParquetHandler {
 public:
  // The lines of every file of `keys`, in order. kNotFound for a missing
  // file, as the store says.
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override;
  // Creates `key` (PutIfAbsent: kAlreadyExists if taken) holding each line
  // followed by '\n'; returns its size.
  StatusOr<int64_t> WriteCheckpointActions(
      ObjectStore& store, const std::string& key,
      const std::vector<std::string>& action_lines) override;
};

}  // namespace deltacommit
