// LogSegment: which files of a log listing make up the snapshot at a version:
// the newest complete checkpoint at or below it (if any) and the contiguous
// JSON commits after it.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit {

struct LogSegment {
  Version version = -1;  // the snapshot's version
  // The checkpoint to start from (all parts, sorted), or none: replay from 0.
  std::optional<Version> checkpoint_version;
  std::vector<ObjectMeta> checkpoint_files;
  // JSON commits checkpoint_version+1 .. version (or 0 .. version), ascending.
  std::vector<ObjectMeta> commits;
};

struct LogSegmentRequest {
  std::optional<Version> version;  // latest when empty
  // When false, checkpoints are ignored if commits 0..version are all listed
  // (a reader without Parquet support can still read the table).
  bool can_read_checkpoints = true;
  // When true, a staged commit key ("_delta_log/_staged_commits/<v>.<uuid>
  // .json") in the listing is commit v unless "<v>.json" is listed too
  // (LogStore::ListsRatifiedStagedCommits); when false it is ignored.
  bool staged_commits_are_ratified = false;
};

// Builds the segment from a listing of `_delta_log/` (keys relative to the
// table root; files other than commits and checkpoints are ignored, and so
// are staged commits unless request.staged_commits_are_ratified).
// kNotFound: no commit or checkpoint at all ("not a Delta table"), or the
//   requested version is above the latest.
// kFailedPrecondition: versions are not contiguous (names the first missing
//   version), or the version needs a checkpoint and can_read_checkpoints is
//   false ("checkpoint reading not available").
StatusOr<LogSegment> BuildLogSegment(const std::vector<ObjectMeta>& listing,
                                     const LogSegmentRequest& request,
                                     std::string_view table);

// The commits after version `after` in a listing of `_delta_log/` from
// after + 1, ascending (staged commits counted as BuildLogSegment does):
// empty when there is none. nullopt when the listing does not continue at
// after + 1 (those commits were cleaned up: read the table afresh).
// kFailedPrecondition for a gap after after + 1 (names the missing version).
StatusOr<std::optional<std::vector<ObjectMeta>>> CommitsAfter(
    const std::vector<ObjectMeta>& listing, Version after, bool staged_commits_are_ratified,
    std::string_view table);

}  // namespace deltacommit
