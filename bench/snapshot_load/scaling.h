// Snapshot load vs log length, or vs active files, with and without a
// checkpoint (the snapshot_load_bench --scaling and --files modes; needs
// the DuckDB Parquet adapter).
#pragma once

#include <string>
#include <vector>

namespace deltacommit::bench {

struct ScalingOptions {
  std::vector<int> lengths = {100, 300, 1000, 3000, 10000};  // commits
  int adds = 2;  // per commit: small appends, so 10,000 commits generate in seconds
  int rounds = 5;
  std::string posix_dir = "/tmp/snapshot_load_scaling";
  bool memory = true;  // also on the in-memory store
  // When set, the sweep is over active files instead: a log of
  // kFilesSweepCommits commits holding each count (count / 100 adds per
  // commit); `lengths` and `adds` are not used.
  std::vector<int> files;
  // When set, every row also goes to this file as tab-separated values, for
  // bench/snapshot_load_plot.gp: store, commits, active files, load without
  // and with a checkpoint (ms), raw simdjson parse of the whole log (ms).
  std::string data_path;
};

inline constexpr int kFilesSweepCommits = 100;

// Prints the table; 0 on success, 1 (after a message) if a load fails or
// loads the wrong snapshot.
int RunScaling(const ScalingOptions& options);

}  // namespace deltacommit::bench
