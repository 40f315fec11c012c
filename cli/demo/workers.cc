// `deltacommit demo-writer` (hidden): a process that commits blind appends
// of named (unwritten) files with the library, as fast as the log store
// allows: the load of the concurrency tests and benchmarks.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"
#include "deltacommit/transaction.h"
#include "demo/demo.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

std::string Padded(int n, int width) {
  std::string s = std::to_string(n);
  return std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(s.size()))), '0') + s;
}

AddFile DemoFile(const std::string& path, int rows) {
  AddFile add;
  add.path = path;
  add.size = int64_t{rows} * 24;
  add.modification_time = SystemClock().NowMillis();
  add.data_change = true;
  add.stats = "{\"numRecords\":" + std::to_string(rows) + "}";
  return add;
}

// The conflicting mix: also remove one active file picked at random, which
// conflicts with a concurrent commit that removed it first.
void RemoveRandomFile(const Snapshot& snapshot, std::mt19937& rng, Transaction& txn) {
  const auto& files = snapshot.active_files();
  if (files.empty()) return;
  auto it = files.begin();
  std::advance(it, std::uniform_int_distribution<size_t>(0, files.size() - 1)(rng));
  RemoveFile remove;
  remove.path = it->second.path;
  remove.deletion_timestamp = SystemClock().NowMillis();
  remove.data_change = true;
  remove.size = it->second.size;
  txn.AddReadFile(remove.path);
  txn.AddAction(std::move(remove));
}

// The conflicting mix's commit: it reads the latest snapshot to pick the
// file it removes. (A blind append commits with Table::Commit(actions),
// which, where a service assigns versions, reads nothing first.)
StatusOr<CommitOutcome> CommitRemovingOne(Table& table, const std::string& path, int rows,
                                          const std::string& app_id, int64_t batch,
                                          std::mt19937& rng) {
  DC_ASSIGN_OR_RETURN(Transaction txn, table.NewTransaction());
  txn.AddAction(DemoFile(path, rows));
  RemoveRandomFile(txn.read_snapshot(), rng, txn);
  txn.SetAppTransaction(app_id, batch);
  return table.Commit(txn);
}

StatusOr<CommitOutcome> AppendOne(Table& table, const std::string& path, int rows,
                                  const std::string& app_id, int64_t batch) {
  CommitOptions options;
  options.app_transaction = {app_id, batch};
  return table.Commit({DemoFile(path, rows)}, std::move(options));
}

struct WriterArgs {
  std::string table, out, name;
  int writer = 0, commits = 1, rows = 100;
  bool remove_one = false;  // --remove-one: the conflicting mix
  bool checkpoint = false;  // --checkpoint: every delta.checkpointInterval, as Delta writers do
  TableFlags table_flags;  // e.g. --log-store service (tests, benchmarks)
};

int RunWriter(const WriterArgs& a) {
  // One warm table for all the writer's commits, as a long-lived writer
  // keeps it: each commit reads only what is new since the last.
  auto options = ToTableOptions(a.table_flags);
  if (!options.ok()) return ReportError(options.status());
  options->auto_checkpoint = a.checkpoint;
  auto table = OpenTable(a.table, std::move(options).value());
  if (!table.ok()) return ReportError(table.status());
  // Loaded before the first commit, as a long-lived writer has it: the
  // figures are of commits, not of opening the table.
  if (auto loaded = table->Update(); !loaded.ok()) return ReportError(loaded.status());
  const TableAdapters& adapters = table->adapters();
  std::ofstream out(a.out, std::ios::app);
  std::mt19937 rng(static_cast<unsigned>(a.writer) * 7919u + 1u);
  for (int b = 0; b < a.commits; ++b) {
    const auto start = std::chrono::steady_clock::now();
    const int64_t start_ms = SystemClock().NowMillis();
    const auto calls_before = CallCounts(adapters);
    const std::string path = "part-" + Padded(a.writer, 5) + "-" + Padded(b, 5) + "-" +
                             NewUuid() + ".c000.snappy.parquet";
    const std::string app_id = "demo-writer-" + std::to_string(a.writer);
    StatusOr<CommitOutcome> outcome = a.remove_one
                                          ? CommitRemovingOne(*table, path, a.rows, app_id, b, rng)
                                          : AppendOne(*table, path, a.rows, app_id, b);
    if (!outcome.ok()) return ReportError(outcome.status());
    nlohmann::json line = DemoOutcomeJson(*outcome);
    line["batch"] = b;
    line["path"] = path;
    // A commit's cost as a writer sees it: bringing the table up to date
    // (where the commit needs it) and the commit.
    WriteAttemptLine(out, std::move(line), start, start_ms, adapters, calls_before);
  }
  return kExitOk;
}

}  // namespace

std::map<std::string, int64_t> CallCounts(const TableAdapters& table) {
  if (table.meter == nullptr) return {};
  return table.meter->Counts();
}

void WriteAttemptLine(std::ostream& out, nlohmann::json line,
                      std::chrono::steady_clock::time_point start, int64_t start_ms,
                      const TableAdapters& table, const std::map<std::string, int64_t>& before) {
  line["start_ms"] = start_ms;
  line["latency_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (table.meter != nullptr) {
    nlohmann::json calls = nlohmann::json::object();
    for (const auto& [kind, n] : CallCounts(table)) calls[kind] = n - before.at(kind);
    line["calls"] = std::move(calls);
  }
  out << line.dump() << "\n" << std::flush;
}

nlohmann::json DemoOutcomeJson(const CommitOutcome& o) {
  nlohmann::json j{{"version", o.version}, {"attempts", o.attempts}, {"rebases", o.rebases}};
  j["result"] = o.result == CommitResult::kCommitted          ? "committed"
                : o.result == CommitResult::kAlreadyCommitted ? "already-committed"
                                                              : "conflict";
  if (o.conflict) j["conflict"] = o.conflict->Describe();
  if (o.assigned) {
    j["assigned"] = true;
    j["merged"] = o.merged;
  }
  return j;
}

void RegisterDemoWorkers(CLI::App& app, int* exit_code) {
  auto w = std::make_shared<WriterArgs>();
  CLI::App* writer = app.add_subcommand("demo-writer", "")->group("");  // hidden
  writer->add_option("table", w->table)->required();
  writer->add_option("--writer", w->writer);
  writer->add_option("--commits", w->commits);
  writer->add_option("--rows", w->rows);
  writer->add_option("--out", w->out)->required();
  writer->add_flag("--remove-one", w->remove_one);
  writer->add_flag("--checkpoint", w->checkpoint);
  AddTableOptions(writer, &w->table_flags);
  writer->callback([w, exit_code] { *exit_code = RunWriter(*w); });
}

}  // namespace deltacommit::cli
