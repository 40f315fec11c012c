// The commit modes the bench measures, each as a way to make a fresh table
// and the table options its writers pass: local always; s3-conditional and
// s3-dynamodb on the test servers when their endpoints are set; service and
// coordinated through a `deltacommit serve` this bench starts (SQLite state).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "deltacommit/status.h"
#include "serve_process.h"

namespace deltacommit::bench {

struct ModeTarget {
  std::string mode;
  std::string table_root;  // fresh tables go under it
  std::vector<std::string>
      options;  // --log-store ... for create and demo-writer
};

struct ModeSetup {
  std::vector<ModeTarget> targets;
  std::unique_ptr<testing::ServeProcess> serve;  // service and coordinated
  std::vector<std::string> skipped;  // "s3-dynamodb: ...": why not measured
};

// The modes in `wanted` (all five when empty) that can run here. Starts
// the service when service or coordinated is wanted and S3 is up; creates
// a DynamoDB table (named dl_bench_<id>) for s3-dynamodb.
StatusOr<ModeSetup> SetUpModes(const std::vector<std::string>& wanted,
                               const std::string& run_id,
                               const std::string& local_dir);

// Creates the table `name` under the target's root (`deltacommit create`);
// its URI.
StatusOr<std::string> CreateTable(const ModeTarget& target,
                                  const std::string& name);

}  // namespace deltacommit::bench
