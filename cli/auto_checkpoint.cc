#include "auto_checkpoint.h"

#include <iostream>

#include "deltacommit/checkpoint.h"
#include "deltacommit/snapshot.h"

namespace deltacommit::cli {
namespace {

Status CheckpointIfDue(const OpenTable& table, Version committed) {
  DC_ASSIGN_OR_RETURN(auto snapshot, LoadSnapshot(*table.log, table.Request(committed)));
  auto info = WriteCheckpoint(*table.store, *table.parquet, *snapshot);
  if (info.status().IsAlreadyExists()) return OkStatus();
  return info.status();
}

}  // namespace

void MaybeCheckpointAfterCommit(const OpenTable& table, const Snapshot& read_snapshot,
                                Version committed) {
  if (committed <= 0 || table.parquet == nullptr || table.store == nullptr) return;
  if (committed % CheckpointInterval(read_snapshot.metadata()) != 0) return;
  Status status = CheckpointIfDue(table, committed);
  if (!status.ok()) {
    std::cerr << "warning: version " << committed
              << " is committed, but its automatic checkpoint failed: " << status.ToString()
              << "\n";
  }
}

}  // namespace deltacommit::cli
