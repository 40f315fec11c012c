// Automatic checkpoints: after a commit succeeds, the committing writer
// writes a checkpoint when the committed version is a multiple of
// delta.checkpointInterval (default 10), as Delta writers do. A failed
// checkpoint never fails the commit: Table reports it as a warning.
//
// Thread-safety: as TableAdapters.
#pragma once

#include <memory>

#include "deltacommit/actions.h"
#include "deltacommit/clock.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit {

// OK if a checkpoint of `version` may be written. A coordinated table's
// latest commits may be ratified but not yet published as <v>.json, and a
// checkpoint must not get ahead of the published log (a filesystem reader
// would see a version with no commit file): kFailedPrecondition naming the
// version then.
Status CheckPublished(const TableAdapters& table, Version version);

// Call after version `committed` of `table` was committed by a transaction
// that read `read_snapshot` (its interval decides; a commit that changes
// the interval applies from the next one). Does nothing unless the version
// is due; otherwise writes the checkpoint of `committed`, from
// `committed_snapshot` when it is that version's (else it is loaded). An
// existing checkpoint of that version is fine: someone else wrote it.
Status CheckpointIfDue(const TableAdapters& table, const Snapshot& read_snapshot, Version committed,
                       const Snapshot* committed_snapshot, Clock& clock);

}  // namespace deltacommit
