#include "service_load/load_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace deltacommit::bench {
namespace {

// Nearest-rank percentile of sorted values; 0 when there are none.
double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(
      std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

int64_t PhaseSummary::error_count() const {
  int64_t n = 0;
  for (const auto& [status, count] : errors) n += count;
  return n;
}

PhaseSummary Summarize(const std::string& name, size_t tables,
                       const LoadRun& run) {
  PhaseSummary s;
  s.name = name;
  s.committers = run.committers.size();
  s.tables = tables;
  s.seconds = run.seconds;
  std::vector<double> latencies;
  int64_t conflicts = 0;
  for (const CommitterResult& c : run.committers) {
    s.commits += static_cast<int64_t>(c.commits.size());
    latencies.insert(latencies.end(), c.latencies_ms.begin(),
                     c.latencies_ms.end());
    conflicts += c.conflicts;
    s.refusals += c.refusals;
    s.abandoned += c.abandoned;
    s.unpublished += c.unpublished;
    for (const auto& [status, count] : c.errors) s.errors[status] += count;
  }
  std::sort(latencies.begin(), latencies.end());
  s.p50_ms = Percentile(latencies, 50);
  s.p95_ms = Percentile(latencies, 95);
  s.p99_ms = Percentile(latencies, 99);
  s.commits_per_second =
      run.seconds > 0 ? static_cast<double>(s.commits) / run.seconds : 0;
  s.conflicts_per_commit = s.commits > 0 ? static_cast<double>(conflicts) /
                                               static_cast<double>(s.commits)
                                         : 0;
  return s;
}

void PrintPhases(const std::vector<PhaseSummary>& phases) {
  std::printf(
      "\n| phase | committers/tables | commits | commits/s | p50 ms | p95 ms | "
      "p99 ms "
      "| 409s/commit | errors |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const PhaseSummary& p : phases) {
    std::string errors = p.errors.empty() ? "0" : "";
    for (const auto& [status, count] : p.errors) {
      errors +=
          (errors.empty() ? "" : ", ") + std::to_string(count) + " x " + status;
    }
    std::printf(
        "| %s | %zu/%zu | %lld | %.1f | %.1f | %.1f | %.1f | %.2f | %s |\n",
        p.name.c_str(), p.committers, p.tables,
        static_cast<long long>(p.commits), p.commits_per_second, p.p50_ms,
        p.p95_ms, p.p99_ms, p.conflicts_per_commit, errors.c_str());
  }
  std::printf(
      "\n| phase | CPU cores busy: bench | service | RGW | others | idle |\n"
      "|---|---|---|---|---|---|\n");
  for (const PhaseSummary& p : phases) {
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", p.name.c_str(),
                p.cpu.bench, p.cpu.serve, p.cpu.s3, p.cpu.others, p.cpu.idle);
  }
  for (const PhaseSummary& p : phases) {
    if (p.refusals > 0) {
      std::printf(
          "\n!!!!! %s: %lld REFUSALS (503 or no answer): the service did not "
          "take "
          "the load !!!!!\n",
          p.name.c_str(), static_cast<long long>(p.refusals));
    }
    if (p.unpublished > 0 || p.abandoned > 0) {
      std::printf(
          "!!!!! %s: %lld commits acknowledged unpublished, %lld abandoned "
          "after "
          "errors !!!!!\n",
          p.name.c_str(), static_cast<long long>(p.unpublished),
          static_cast<long long>(p.abandoned));
    }
  }
}

void PrintRatio(const std::string& label, const PhaseSummary& a,
                const PhaseSummary& b) {
  std::printf("%s: commits/s x%.2f, p50 x%.2f, p95 x%.2f, p99 x%.2f\n",
              label.c_str(), Ratio(a.commits_per_second, b.commits_per_second),
              Ratio(a.p50_ms, b.p50_ms), Ratio(a.p95_ms, b.p95_ms),
              Ratio(a.p99_ms, b.p99_ms));
}

}  // namespace deltacommit::bench
