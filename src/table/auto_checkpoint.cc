#include "auto_checkpoint.h"

#include <iostream>

#include "deltacommit/checkpoint.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "deltacommit/snapshot.h"

namespace deltacommit::cli {

Status CheckPublished(const OpenTable& table, Version version) {
  if (table.mode != "coordinated") return OkStatus();
  auto head = table.store->Head(CommitPath(version));
  if (head.ok()) return OkStatus();
  if (!head.status().IsNotFound()) return head.status();
  return FailedPreconditionError("version " + std::to_string(version) + " of " + table.uri +
                                 " is not published yet (no " + CommitPath(version) +
                                 "): a checkpoint may only cover published commits");
}

namespace {

Status CheckpointIfDue(const OpenTable& table, Version committed) {
  // Not published yet (coordinated): no checkpoint this time; a later one,
  // or `deltacommit checkpoint` after publication, covers it.
  Status published = CheckPublished(table, committed);
  if (published.code() == StatusCode::kFailedPrecondition) return OkStatus();
  DC_RETURN_IF_ERROR(published);
  DC_ASSIGN_OR_RETURN(auto snapshot, LoadSnapshot(*table.log, table.Request(committed)));
  auto info = WriteCheckpoint(*table.store, *table.parquet, *snapshot, SystemClock());
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
