// `deltacommit bench`: the figures of one run of W writers on one commit
// mode, from the demo-writer lines (one JSON object per commit attempt),
// and the report's tables.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::cli {

// One writer's output: the table it wrote to and its file of JSON lines.
struct WriterOutput {
  std::string table;
  std::string lines_path;
  int writer = 0;
};

// What the writers of one table reported, to check against its log.
struct TableTally {
  int64_t committed = 0;         // commits that landed
  std::set<int64_t> versions;    // their versions (group commit: several in one)
  std::map<int, int64_t> last_batch;  // writer -> its last batch that landed
};

struct RunStats {
  std::string mode;  // a commit mode, or "raw <primitive>"
  std::string raw;   // a mode: the "raw <primitive>" it rests on ("" for a raw run)
  int writers = 0;
  int tables = 0;     // tables the writers were spread over
  int64_t commits = 0;    // attempts reported
  int64_t committed = 0;  // that landed
  int64_t conflicts = 0;  // that ended in a conflict (none for blind appends)
  double wall_s = 0;         // first commit's start to the last one's end
  double commits_per_s = 0;  // landed commits
  double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // a commit: snapshot load + commit
  double retries_per_commit = 0;  // attempts - 1
  double conflicts_per_commit = 0;
  std::map<std::string, double> calls_per_commit;  // by kind ("s3_put", ...)
  std::map<std::string, TableTally> by_table;
};

// Reads the writers' lines. kDataLoss naming the file and line that is not
// a demo-writer line, or when there are none.
StatusOr<RunStats> ComputeStats(const std::vector<WriterOutput>& outputs);

// One writer count: a table of every mode (with the ratios to `baseline`
// when it was measured, and each mode's p50 and commits/s to those of the
// raw primitive it rests on), then their remote calls per commit by kind.
// `runs` holds the raw runs too.
void PrintTables(const std::vector<RunStats>& runs, const std::string& baseline);

// The header and lines of `--data`: writers, mode, commits/s, p50, p95,
// p99, tables, retries/commit, conflicts/commit (bench/commit_modes_plot.gp).
std::string DataHeader();
std::string DataLines(const std::vector<RunStats>& runs);

}  // namespace deltacommit::cli
