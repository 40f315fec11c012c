// What one phase of the bench measured, and how the phases are printed:
// one row per phase, then the ratios between phases run side by side.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "service_load/committers.h"
#include "service_load/cpu_meter.h"

namespace deltacommit::bench {

struct PhaseSummary {
  std::string name;
  size_t committers = 0;
  size_t tables = 0;
  double seconds = 0;
  int64_t commits = 0;
  double commits_per_second = 0;
  double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // per commit, rebases included
  double conflicts_per_commit = 0;  // 409s / taken versions per commit
  int64_t refusals = 0;             // 503s and requests the server did not take
  int64_t abandoned = 0;
  int64_t unpublished = 0;
  std::map<std::string, int64_t> errors;  // by status
  CpuUse cpu;
  int64_t error_count() const;
};

PhaseSummary Summarize(const std::string& name, size_t tables,
                       const LoadRun& run);

void PrintPhases(const std::vector<PhaseSummary>& phases);

// "label: commits/s x1.23, p50 x0.80, p99 x0.75" for a / b.
void PrintRatio(const std::string& label, const PhaseSummary& a,
                const PhaseSummary& b);

}  // namespace deltacommit::bench
