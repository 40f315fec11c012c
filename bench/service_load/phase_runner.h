// One phase of the load bench: new tables (version 0 written), one
// committer thread per slot committing for a while through the service or
// straight to S3, then each table's log checked against what the committers
// were told (and deleted unless kept).
#pragma once

#include <string>
#include <vector>

#include "service_load/commit_methods.h"
#include "service_load/cpu_meter.h"
#include "service_load/load_report.h"
#include "service_load/serve_setup.h"

namespace deltacommit::bench {

// How a phase's committers commit.
enum class Method { kService, kDirect, kAppend };

struct PhaseRunner {
  int committers = 0;
  double seconds = 0;
  bool keep = false;              // leave the tables in the bucket
  std::string prefix;             // s3://bucket/...: the tables go under it
  ServiceTarget target;           // where service-mode committers send commits
  ServeSettings settings;         // the service's (for a second one)
  const CpuMeter* cpu = nullptr;  // where the CPU went, when set
  bool ok = true;  // false after any error, refusal or log problem
  std::vector<PhaseSummary> phases;

  // Committer i commits to table i % table_count. `id` names the tables.
  PhaseSummary Run(const std::string& name, const std::string& id,
                   int table_count, Method method);
};

}  // namespace deltacommit::bench
