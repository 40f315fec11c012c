// Automatic checkpoints: after a commit succeeds, the committing writer
// writes a checkpoint when the committed version is a multiple of
// delta.checkpointInterval (default 10), as Delta writers do. A failed
// checkpoint never fails the commit: it is reported as a warning.
//
// Thread-safety: as OpenTable.
#pragma once

#include "deltacommit/actions.h"
#include "deltacommit/snapshot.h"
#include "table_access.h"

namespace deltacommit::cli {

// OK if a checkpoint of `version` may be written. A coordinated table's
// latest commits may be ratified but not yet published as <v>.json, and a
// checkpoint must not get ahead of the published log (a filesystem reader
// would see a version with no commit file): kFailedPrecondition naming the
// version then.
Status CheckPublished(const OpenTable& table, Version version);

// Call after version `committed` of `table` was committed by a transaction
// that read `read_snapshot` (its interval decides; a commit that changes
// the interval applies from the next one). Does nothing unless the version
// is due; otherwise loads the committed version's snapshot and
// writes its checkpoint, printing a warning to stderr if that fails (an
// existing checkpoint of that version is fine: someone else wrote it).
void MaybeCheckpointAfterCommit(const OpenTable& table, const Snapshot& read_snapshot,
                                Version committed);

}  // namespace deltacommit::cli
