// The figures of one run of W writers on one commit mode, from the
// demo-writer lines (one JSON object per commit), and their tables.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace deltacommit::bench {

struct RunStats {
  std::string mode;
  int writers = 0;
  int64_t commits = 0;
  int64_t committed = 0;  // commits that landed
  int64_t conflicts =
      0;  // commits that ended in a conflict (none for blind appends)
  double wall_s = 0;         // first commit's start to the last one's end
  double commits_per_s = 0;  // landed commits
  double p50_ms = 0, p95_ms = 0,
         p99_ms = 0;              // a commit: snapshot load + commit
  double retries_per_commit = 0;  // attempts - 1
  double rebases_per_commit = 0;
  std::map<std::string, double> calls_per_commit;  // by kind ("s3_put", ...)
  int64_t last_version = -1;  // the highest version written
  int64_t versions = 0;  // distinct versions of the commits that landed (the
                         // service's group commit puts several appends in one)
};

// Reads the lines the writers wrote (`files`). The error names the file and
// line that did not parse.
bool ComputeStats(const std::vector<std::string>& files, RunStats& stats,
                  std::string& error);

// One table of every mode at one writer count, then each mode's ratios to
// `baseline` (throughput and p50 latency) when it was measured.
void PrintTable(const std::vector<RunStats>& runs, const std::string& baseline);

// Tab-separated figures for plots: writers, mode, commits/s, p50, p95, p99.
std::string DataLines(const std::vector<RunStats>& runs);

}  // namespace deltacommit::bench
