#include "table/auto_checkpoint.h"

#include "deltacommit/checkpoint.h"
#include "deltacommit/log_path.h"

namespace deltacommit {

Status CheckPublished(const TableAdapters& table, Version version) {
  // Only stores that list ratified commits the coordinator or catalog has
  // not published yet can hold a version with no <v>.json.
  if (!table.log->ListsRatifiedStagedCommits()) return OkStatus();
  auto head = table.store->Head(CommitPath(version));
  if (head.ok()) return OkStatus();
  if (!head.status().IsNotFound()) return head.status();
  return FailedPreconditionError("version " + std::to_string(version) + " of " + table.uri +
                                 " is not published yet (no " + CommitPath(version) +
                                 "): a checkpoint may only cover published commits");
}

Status CheckpointIfDue(const TableAdapters& table, const Snapshot& read_snapshot, Version committed,
                       const Snapshot* committed_snapshot, Clock& clock) {
  if (committed <= 0 || table.parquet == nullptr || table.store == nullptr) return OkStatus();
  if (committed % CheckpointInterval(read_snapshot.metadata()) != 0) return OkStatus();
  // Not published yet (coordinated): no checkpoint this time; a later one,
  // or `deltacommit checkpoint` after publication, covers it.
  Status published = CheckPublished(table, committed);
  if (published.code() == StatusCode::kFailedPrecondition) return OkStatus();
  DC_RETURN_IF_ERROR(published);
  std::shared_ptr<const Snapshot> loaded;
  if (committed_snapshot == nullptr || committed_snapshot->version() != committed) {
    DC_ASSIGN_OR_RETURN(loaded, LoadSnapshot(*table.log, table.Request(committed)));
    committed_snapshot = loaded.get();
  }
  auto info = WriteCheckpoint(*table.store, *table.parquet, *committed_snapshot, clock);
  if (info.status().IsAlreadyExists()) return OkStatus();
  return info.status();
}

}  // namespace deltacommit
