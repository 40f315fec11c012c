// After a run: what each bench table's log holds, checked against what the
// committers were told. Version 0 is the table's creation; versions 1..latest
// must all exist (no gap), each one commit of CommitContent, and every
// acknowledged commit must be in the log exactly once, at the version it was
// acknowledged as. A commit in the log that nobody acknowledged is a problem
// unless some committer abandoned a commit after errors (its reply was
// lost: it may have landed).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/actions.h"

namespace deltacommit::bench {

// (committer id, seq) -> the version it was acknowledged as.
using Acknowledged = std::map<std::pair<int, int64_t>, Version>;

struct TableCheck {
  std::string table;
  Version latest = -1;
  int64_t commit_files = 0;  // _delta_log/<v>.json, version 0 included
  int64_t staged_left = 0;   // objects left under _delta_log/_staged_commits/
  std::vector<std::string> problems;  // empty: the log is as it must be
};

// Reads the whole log with `readers` threads. `abandoned`: commits given up
// after errors on this table.
TableCheck CheckTableLog(const std::string& table,
                         const Acknowledged& acknowledged, int64_t abandoned,
                         int readers = 8);

// Deletes every object under the table's prefix (best effort); the number
// deleted.
int64_t DeleteTable(const std::string& table, int threads = 8);

}  // namespace deltacommit::bench
