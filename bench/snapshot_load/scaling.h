// Snapshot load vs log length, with and without a checkpoint (the
// snapshot_load_bench --scaling mode; needs the DuckDB Parquet adapter).
#pragma once

#include <string>
#include <vector>

namespace deltacommit::bench {

struct ScalingOptions {
  std::vector<int> lengths = {100, 300, 1000, 3000, 10000};  // commits
  int adds = 2;     // per commit: small appends, so 10,000 commits generate in seconds
  int rounds = 5;
  std::string posix_dir = "/tmp/snapshot_load_scaling";
  bool memory = true;  // also on the in-memory store
};

// Prints the table; 0 on success, 1 (after a message) if a load fails or
// loads the wrong snapshot.
int RunScaling(const ScalingOptions& options);

}  // namespace deltacommit::bench
