#include "bench/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace deltacommit::cli {
namespace {

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// The columns of the calls table, in this order; any other kind a writer
// reports a call of (catalog_*) is added after them.
const std::vector<std::string> kKinds = {
    "s3_get",        "s3_head",        "s3_list",        "s3_put",         "s3_copy",
    "s3_delete",     "dynamodb_read",  "dynamodb_write", "service_commit", "service_pending"};

std::vector<std::string> CallKinds(const std::vector<RunStats>& runs) {
  std::vector<std::string> kinds = kKinds;
  for (const RunStats& r : runs) {
    for (const auto& [kind, n] : r.calls_per_commit) {
      if (n > 0 && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
        kinds.push_back(kind);
      }
    }
  }
  return kinds;
}

const RunStats* Find(const std::vector<RunStats>& runs, const std::string& mode) {
  for (const RunStats& r : runs) {
    if (r.mode == mode) return &r;
  }
  return nullptr;
}

std::string Ratio(double value, double base) {
  if (base <= 0) return "–";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", value / base);
  return text;
}

// Adds one demo-writer line to the totals; false when it is not one.
struct Totals {
  std::vector<double> latencies;
  double first_start = 0, last_end = 0;
  int64_t attempts = 0;
  std::map<std::string, int64_t> calls;
};

bool AddLine(const std::string& line, const WriterOutput& out, Totals& t, RunStats& s) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("latency_ms") || !j.contains("start_ms")) return false;
  const double start = j["start_ms"].get<double>();
  const double latency = j["latency_ms"].get<double>();
  t.first_start = t.latencies.empty() ? start : std::min(t.first_start, start);
  t.last_end = std::max(t.last_end, start + latency);
  t.latencies.push_back(latency);
  t.attempts += j.value("attempts", 1);
  const std::string result = j.value("result", "");
  TableTally& tally = s.by_table[out.table];
  if (result == "conflict") ++s.conflicts;
  if (result == "committed") {
    ++s.committed;
    ++tally.committed;
    tally.versions.insert(j.value("version", int64_t{-1}));
    tally.last_batch[out.writer] = j.value("batch", int64_t{-1});
  }
  if (j.contains("calls")) {
    for (const auto& [kind, count] : j["calls"].items()) t.calls[kind] += count.get<int64_t>();
  }
  return true;
}

}  // namespace

StatusOr<RunStats> ComputeStats(const std::vector<WriterOutput>& outputs) {
  RunStats s;
  Totals t;
  for (const WriterOutput& out : outputs) {
    s.by_table[out.table];  // a table whose writers all conflicted is still checked
    std::ifstream in(out.lines_path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!AddLine(line, out, t, s)) {
        return DataLossError(out.lines_path + ":" + std::to_string(n) +
                             ": not a demo-writer line (a JSON object with start_ms and "
                             "latency_ms)");
      }
    }
  }
  s.commits = static_cast<int64_t>(t.latencies.size());
  if (s.commits == 0) {
    return DataLossError("no commit lines in the " + std::to_string(outputs.size()) +
                         " writers' files");
  }
  std::sort(t.latencies.begin(), t.latencies.end());
  const auto n = static_cast<double>(s.commits);
  s.wall_s = std::max(1e-3, (t.last_end - t.first_start) / 1000.0);
  // Commits that landed: a conflict ends an attempt, and is no commit.
  s.commits_per_s = static_cast<double>(s.committed) / s.wall_s;
  s.p50_ms = Percentile(t.latencies, 0.50);
  s.p95_ms = Percentile(t.latencies, 0.95);
  s.p99_ms = Percentile(t.latencies, 0.99);
  s.retries_per_commit = static_cast<double>(t.attempts - s.commits) / n;
  s.conflicts_per_commit = static_cast<double>(s.conflicts) / n;
  for (const auto& [kind, count] : t.calls) {
    s.calls_per_commit[kind] = static_cast<double>(count) / n;
  }
  return s;
}

void PrintTables(const std::vector<RunStats>& runs, const std::string& baseline) {
  if (runs.empty()) return;
  const RunStats& first = runs[0];
  std::printf("\n### W = %d: %d writer process%s on %d table%s, %lld commit attempts per mode\n\n",
              first.writers, first.writers, first.writers == 1 ? "" : "es", first.tables,
              first.tables == 1 ? "" : "s", static_cast<long long>(first.commits));
  const RunStats* base = Find(runs, baseline);
  std::printf("| mode | commits/s | p50 ms | p95 ms | p99 ms | retries/commit | conflicts/commit "
              "| commits/s ÷ %s | p50 ÷ %s | raw primitive | commits/s ÷ raw | p50 ÷ raw |\n",
              baseline.c_str(), baseline.c_str());
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
  for (const RunStats& r : runs) {
    const RunStats* raw = r.raw.empty() ? nullptr : Find(runs, r.raw);
    const bool is_raw = r.raw.empty();
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %s | %s | %s | %s | %s |\n",
                r.mode.c_str(), r.commits_per_s, r.p50_ms, r.p95_ms, r.p99_ms,
                r.retries_per_commit, r.conflicts_per_commit,
                is_raw ? "" : Ratio(r.commits_per_s, base ? base->commits_per_s : 0).c_str(),
                is_raw ? "" : Ratio(r.p50_ms, base ? base->p50_ms : 0).c_str(),
                is_raw ? "" : r.raw.substr(4).c_str(),
                Ratio(r.commits_per_s, raw ? raw->commits_per_s : 0).c_str(),
                Ratio(r.p50_ms, raw ? raw->p50_ms : 0).c_str());
  }
  const std::vector<std::string> kinds = CallKinds(runs);
  std::printf("\nRemote calls per commit attempt (snapshot load and checkpoints included):\n\n"
              "| mode |");
  for (const std::string& k : kinds) std::printf(" %s |", k.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < kinds.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (const RunStats& r : runs) {
    std::printf("| %s |", r.mode.c_str());
    for (const std::string& k : kinds) {
      auto it = r.calls_per_commit.find(k);
      std::printf(" %.2f |", it == r.calls_per_commit.end() ? 0.0 : it->second);
    }
    std::printf("\n");
  }
}

std::string DataHeader() {
  return "# writers\tmode\tcommits/s\tp50_ms\tp95_ms\tp99_ms\ttables\tretries/commit"
         "\tconflicts/commit\n";
}

std::string DataLines(const std::vector<RunStats>& runs) {
  std::ostringstream out;
  for (const RunStats& r : runs) {
    out << r.writers << "\t" << r.mode << "\t" << r.commits_per_s << "\t" << r.p50_ms << "\t"
        << r.p95_ms << "\t" << r.p99_ms << "\t" << r.tables << "\t" << r.retries_per_commit
        << "\t" << r.conflicts_per_commit << "\n";
  }
  return out.str();
}

}  // namespace deltacommit::cli
