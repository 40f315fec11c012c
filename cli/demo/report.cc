// The end of `deltacommit demo`: history, per-writer outcomes, verification.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/schema.h"
#include "deltacommit/table_features.h"
#include "deltacommit/transaction.h"
#include "demo/demo.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

std::vector<nlohmann::json> ReadLines(const std::string& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

int64_t NumRecords(const std::optional<std::string>& stats) {
  if (!stats) return 0;
  auto j = nlohmann::json::parse(*stats, nullptr, false);
  if (j.is_discarded() || !j.contains("numRecords")) return 0;
  return j["numRecords"].get<int64_t>();
}

class Verifier {
 public:
  void Expect(bool ok, const std::string& what) {
    std::cout << "  [" << (ok ? "ok" : "FAILED") << "] " << what << "\n";
    all_ok_ = all_ok_ && ok;
  }
  bool all_ok() const { return all_ok_; }

 private:
  bool all_ok_ = true;
};

void PrintHistory(LogStore& log, Version latest) {
  std::map<std::string, int> by_operation;
  std::cout << "\nhistory (newest first, last 5 of " << latest + 1 << " versions):\n";
  for (Version v = latest; v >= 0; --v) {
    auto actions = ReadCommit(log, v);
    if (!actions.ok()) continue;
    for (const Action& a : *actions) {
      auto* ci = std::get_if<CommitInfo>(&a);
      if (ci == nullptr) continue;
      by_operation[ci->operation.value_or("?")]++;
      if (v > latest - 5) {
        std::cout << "  version " << v << ": " << ci->operation.value_or("?")
                  << (ci->is_blind_append.value_or(false) ? " (blind append)" : "") << "\n";
      }
    }
  }
  std::cout << "  by operation:";
  for (const auto& [op, n] : by_operation) std::cout << " " << op << "=" << n;
  std::cout << "\n";
}

}  // namespace

Status DemoCreateTable(const std::string& table, const std::string& log_store) {
  TableFlags options;
  options.log_store = log_store;
  DC_ASSIGN_OR_RETURN(Table opened, OpenCliTable(table, options));
  TableAdapters& open = opened.adapters();
  Metadata m;
  m.id = NewUuid();
  m.name = "events";
  DC_ASSIGN_OR_RETURN(m.schema_string,
                      SchemaStringFromArgument("id:long,writer:integer,batch:long,payload:string"));
  m.created_time = SystemClock().NowMillis();
  DC_ASSIGN_OR_RETURN(Protocol p, ProtocolForNewTable(m));
  TransactionOptions o;
  o.operation = "CREATE TABLE";
  Transaction txn(*open.log, nullptr, o, SystemClock(), RealSleeper());
  txn.AddAction(p);
  txn.AddAction(m);
  DC_ASSIGN_OR_RETURN(CommitOutcome outcome, txn.Commit());
  if (outcome.result != CommitResult::kCommitted) {
    return AlreadyExistsError("table " + table + " already exists");
  }
  return OkStatus();
}

namespace {

// count(*) and count(DISTINCT id) of the table's data, read back through
// `deltacommit query` (DuckDB over the snapshot's Parquet files).
StatusOr<std::pair<int64_t, int64_t>> QueryRowCounts(const std::string& self,
                                                      const std::string& table,
                                                      const std::string& dir) {
  const std::string out = dir + "/verify-query.out";
  const int rc = RunSelf(self,
                         {"query", table, "SELECT count(*) AS n, count(DISTINCT id) AS ids FROM t",
                          "--json"},
                         out);
  const std::vector<nlohmann::json> lines = ReadLines(out);
  if (rc != 0 || lines.empty()) {
    return InternalError("deltacommit query exited " + std::to_string(rc) + " (see " + out +
                         ".err)");
  }
  return std::make_pair(lines[0].value("n", int64_t{-1}), lines[0].value("ids", int64_t{-1}));
}

struct WriterTotals {
  int64_t committed = 0, rows = 0, files = 0;
  std::set<Version> versions;  // the versions the appends landed in
};

WriterTotals PrintWriters(const std::string& dir, int writers) {
  std::cout << "\nwriters:\n";
  WriterTotals totals;
  for (int w = 0; w < writers; ++w) {
    int ok = 0, rebases = 0, conflicts = 0, assigned = 0, merged = 0;
    for (const auto& line : ReadLines(dir + "/writer-" + std::to_string(w) + ".jsonl")) {
      rebases += line.value("rebases", 0);
      if (line.value("result", "") == "conflict") ++conflicts;
      if (line.value("result", "") != "committed") continue;
      ++ok;
      assigned += line.value("assigned", false);
      merged += line.value("merged", 0) > 1;
      totals.rows += line.value("rows", int64_t{0});
      totals.files += line.value("files", int64_t{0});
      totals.versions.insert(line.value("version", Version{-1}));
    }
    totals.committed += ok;
    std::cout << "  writer " << w << ": " << ok << " committed";
    if (assigned > 0) {
      std::cout << " (" << assigned << " at versions the service assigned, " << merged
                << " merged with other appends into one version)";
    }
    std::cout << ", " << rebases << " concurrent commits rebased over (retried), " << conflicts
              << " conflicts reported\n";
  }
  return totals;
}

std::pair<int, int> PrintCompactors(const std::string& dir) {
  int won = 0, conflicted = 0;
  for (int c = 0; c < 2; ++c) {
    for (const auto& line : ReadLines(dir + "/compactor-" + std::to_string(c) + ".jsonl")) {
      const std::string result = line.value("result", "");
      won += result == "committed";
      conflicted += result == "conflict";
      std::cout << "  compactor " << c << ": " << result
                << (line.contains("conflict")
                        ? " (" + line["conflict"].get<std::string>() + ")"
                        : " at version " + std::to_string(line.value("version", -1)))
                << "\n";
    }
  }
  return {won, conflicted};
}

}  // namespace

int DemoReport(const std::string& self, const std::string& table, const std::string& dir,
               int writers, int commits, int rows) {
  auto opened = OpenCliTable(table, {});
  if (!opened.ok()) return ReportError(opened.status());
  TableAdapters* open = &opened->adapters();
  auto report = CheckLog(*open->log);
  if (!report.ok()) return ReportError(report.status());
  PrintHistory(*open->log, report->latest_version);
  const WriterTotals totals = PrintWriters(dir, writers);
  const auto [compactions_won, compactions_conflicted] = PrintCompactors(dir);

  std::cout << "\nverification:\n";
  Verifier v;
  v.Expect(report->sound(),
           "check: log sound (" + std::to_string(report->problems.size()) + " problems)");
  // The create, the versions the appends landed in (fewer than the appends
  // when the service merged some), and the one compaction that won.
  const int64_t expected_versions = static_cast<int64_t>(totals.versions.size()) + 2;
  v.Expect(report->first_version == 0 && report->latest_version + 1 == expected_versions,
           "versions 0.." + std::to_string(report->latest_version) + " contiguous, expected " +
               std::to_string(expected_versions) + " (create, " +
               std::to_string(totals.versions.size()) + " append versions, 1 compaction)");
  const int64_t batches = int64_t{writers} * commits;
  v.Expect(totals.committed == batches, std::to_string(totals.committed) + " of " +
                                            std::to_string(batches) + " appends acknowledged");
  v.Expect(compactions_won == 1 && compactions_conflicted == 1,
           "racing compactions: exactly one committed, the other got a conflict");
  const int64_t expected_rows = batches * rows;
  if (report->snapshot) {
    int64_t stats_rows = 0;
    for (const auto& [key, add] : report->snapshot->active_files()) {
      stats_rows += NumRecords(add.stats);
    }
    v.Expect(static_cast<int64_t>(report->snapshot->active_files().size()) == totals.files,
             std::to_string(report->snapshot->active_files().size()) +
                 " data files in the table = files appended (one replaced by its compaction)");
    v.Expect(stats_rows == expected_rows, "row count in the files' stats " +
                                              std::to_string(stats_rows) + " = rows written " +
                                              std::to_string(expected_rows));
  }
  auto counted = QueryRowCounts(self, table, dir);
  if (!counted.ok()) {
    v.Expect(false, "read the data back: " + counted.status().ToString());
  } else {
    v.Expect(counted->first == expected_rows && counted->second == expected_rows,
             "rows read back from the Parquet files " + std::to_string(counted->first) + " (" +
                 std::to_string(counted->second) + " distinct ids) = rows written " +
                 std::to_string(expected_rows));
  }
  std::cout << (v.all_ok() ? "\nRESULT: OK\n" : "\nRESULT: FAILED\n");
  return v.all_ok() ? kExitOk : kExitError;
}

}  // namespace deltacommit::cli
