#include "commit_modes/mode_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace deltacommit::bench {
namespace {

double Percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank =
      static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// The columns of the calls table, in this order; any other kind seen is
// added after them.
const std::vector<std::string> kKinds = {
    "s3_get",         "s3_head",        "s3_list",       "s3_put",
    "s3_copy",        "s3_delete",      "dynamodb_read", "dynamodb_write",
    "service_commit", "service_pending"};

const RunStats* Find(const std::vector<RunStats>& runs,
                     const std::string& mode) {
  for (const RunStats& r : runs) {
    if (r.mode == mode) return &r;
  }
  return nullptr;
}

}  // namespace

bool ComputeStats(const std::vector<std::string>& files, RunStats& s,
                  std::string& error) {
  std::vector<double> latencies;
  double first_start = 0, last_end = 0;
  int64_t attempts = 0, rebases = 0;
  std::map<std::string, int64_t> calls;
  std::set<int64_t> versions;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("latency_ms") ||
          !j.contains("start_ms")) {
        error = file + ":" + std::to_string(n) +
                ": not a demo-writer line with latency_ms";
        return false;
      }
      const double start = j["start_ms"].get<double>();
      const double latency = j["latency_ms"].get<double>();
      first_start = latencies.empty() ? start : std::min(first_start, start);
      last_end = std::max(last_end, start + latency);
      latencies.push_back(latency);
      attempts += j.value("attempts", 1);
      rebases += j.value("rebases", 0);
      const std::string result = j.value("result", "");
      if (result == "conflict") ++s.conflicts;
      if (result == "committed") {
        ++s.committed;
        versions.insert(j.value("version", int64_t{-1}));
      }
      s.last_version =
          std::max<int64_t>(s.last_version, j.value("version", -1));
      if (j.contains("calls")) {
        for (const auto& [kind, count] : j["calls"].items())
          calls[kind] += count.get<int64_t>();
      }
    }
  }
  s.commits = static_cast<int64_t>(latencies.size());
  s.versions = static_cast<int64_t>(versions.size());
  if (s.commits == 0) {
    error =
        "no commit lines in " + std::to_string(files.size()) + " writer files";
    return false;
  }
  std::sort(latencies.begin(), latencies.end());
  const auto n = static_cast<double>(s.commits);
  s.wall_s = std::max(1e-3, (last_end - first_start) / 1000.0);
  // Commits that landed: a conflict ends an attempt early, and is no commit.
  s.commits_per_s = static_cast<double>(s.committed) / s.wall_s;
  s.p50_ms = Percentile(latencies, 0.50);
  s.p95_ms = Percentile(latencies, 0.95);
  s.p99_ms = Percentile(latencies, 0.99);
  s.retries_per_commit = static_cast<double>(attempts - s.commits) / n;
  s.rebases_per_commit = static_cast<double>(rebases) / n;
  for (const auto& [kind, count] : calls)
    s.calls_per_commit[kind] = static_cast<double>(count) / n;
  return true;
}

void PrintTable(const std::vector<RunStats>& runs,
                const std::string& baseline) {
  if (runs.empty()) return;
  std::printf("\n### %d writer(s), %lld commit attempts per mode\n\n",
              runs[0].writers, static_cast<long long>(runs[0].commits));
  std::printf(
      "| mode | commits/s | p50 ms | p95 ms | p99 ms | retries/commit | "
      "conflicts |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const RunStats& r : runs) {
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %lld |\n",
                r.mode.c_str(), r.commits_per_s, r.p50_ms, r.p95_ms, r.p99_ms,
                r.retries_per_commit, static_cast<long long>(r.conflicts));
  }
  std::printf(
      "\nRemote calls per commit (snapshot load included):\n\n| mode |");
  for (const std::string& k : kKinds) std::printf(" %s |", k.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < kKinds.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (const RunStats& r : runs) {
    std::printf("| %s |", r.mode.c_str());
    for (const std::string& k : kKinds) {
      auto it = r.calls_per_commit.find(k);
      std::printf(" %.2f |", it == r.calls_per_commit.end() ? 0.0 : it->second);
    }
    std::printf("\n");
  }
  const RunStats* base = Find(runs, baseline);
  if (base == nullptr) return;
  std::printf("\nRatios to %s (throughput ÷, p50 latency ÷):",
              baseline.c_str());
  for (const RunStats& r : runs) {
    if (&r == base) continue;
    std::printf(" %s %.2fx / %.2fx;", r.mode.c_str(),
                r.commits_per_s / base->commits_per_s, r.p50_ms / base->p50_ms);
  }
  std::printf("\n");
}

std::string DataLines(const std::vector<RunStats>& runs) {
  std::ostringstream out;
  for (const RunStats& r : runs) {
    out << r.writers << "\t" << r.mode << "\t" << r.commits_per_s << "\t"
        << r.p50_ms << "\t" << r.p95_ms << "\t" << r.p99_ms << "\n";
  }
  return out.str();
}

}  // namespace deltacommit::bench
