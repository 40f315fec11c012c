// CheckLog: validates a table's log the way `deltacommit check` reports it:
// versions contiguous, every commit parseable, protocol and metadata present
// and supported, no commit touching one file twice.
//
// Thread-safety: stateless function.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "deltacommit/log_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

struct LogCheckReport {
  Version first_version = -1;  // first commit present
  Version latest_version = -1;
  int64_t commits_checked = 0;
  int64_t unrecognized_files = 0;  // files in _delta_log/ that are no log file
  std::vector<std::string> problems;  // empty: the log is sound
  std::shared_ptr<const Snapshot> snapshot;  // when replay succeeded
  bool sound() const { return problems.empty(); }
};

// Errors only when the log cannot be listed or is absent (kNotFound); every
// defect of the log itself is a problem in the report.
//
// Commits before the first listed one may have been cleaned up: that is
// sound when a complete checkpoint covers them (at or after the version just
// before the first commit). The state is then loaded with
// `checkpoint_request` (which must carry a ParquetHandler) when given; else
// the report has no snapshot.
StatusOr<LogCheckReport> CheckLog(LogStore& log,
                                  const SnapshotRequest* checkpoint_request = nullptr);

}  // namespace deltacommit
