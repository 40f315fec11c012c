// The processes `deltacommit demo` starts: blind-append writers and two
// compactors that race to rewrite the same file.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"
#include "deltacommit/transaction.h"
#include "demo.h"
#include "output.h"
#include "table_access.h"

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

nlohmann::json OutcomeJson(const CommitOutcome& o) {
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

struct WriterArgs {
  std::string table, out, name;
  int writer = 0, commits = 1, rows = 100;
  TableOptions table_options;  // e.g. --log-store service (tests, benchmarks)
};

int RunWriter(const WriterArgs& a) {
  auto table = OpenTableUri(a.table, a.table_options);
  if (!table.ok()) return ReportError(table.status());
  std::ofstream out(a.out, std::ios::app);
  for (int b = 0; b < a.commits; ++b) {
    auto snapshot = LoadSnapshot(*table->log, table->Request());
    if (!snapshot.ok()) return ReportError(snapshot.status());
    Transaction txn(*table->log, *snapshot, TransactionOptions{}, SystemClock(), RealSleeper());
    const std::string path = "part-" + Padded(a.writer, 5) + "-" + Padded(b, 5) + "-" +
                             NewUuid() + ".c000.snappy.parquet";
    txn.AddAction(DemoFile(path, a.rows));
    txn.SetAppTransaction("demo-writer-" + std::to_string(a.writer), b);
    auto outcome = txn.Commit();
    if (!outcome.ok()) return ReportError(outcome.status());
    nlohmann::json line = OutcomeJson(*outcome);
    line["batch"] = b;
    line["path"] = path;
    out << line.dump() << "\n" << std::flush;
  }
  return kExitOk;
}

// Waits until writer 0's first file is in the table, reads a snapshot, waits
// until every compactor has read (so they truly race), then commits.
int RunCompactor(const WriterArgs& a) {
  auto table = OpenTableUri(a.table, {});
  if (!table.ok()) return ReportError(table.status());
  const std::string target_prefix = "part-00000-00000-";
  std::shared_ptr<const Snapshot> snapshot;
  const AddFile* target = nullptr;
  for (int i = 0; i < 6000 && target == nullptr; ++i) {
    auto s = LoadSnapshot(*table->log, table->Request());
    if (!s.ok()) return ReportError(s.status());
    snapshot = *s;
    for (const auto& [key, add] : snapshot->active_files()) {
      if (add.path.starts_with(target_prefix)) target = &add;
    }
    if (target == nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (target == nullptr) return ReportError(DeadlineExceededError("no file to compact appeared"));
  const std::filesystem::path dir = std::filesystem::path(a.out).parent_path();
  std::ofstream(dir / ("ready-" + a.name)).put('1');
  for (int i = 0; i < 6000; ++i) {  // barrier: both compactors have read
    if (std::filesystem::exists(dir / "ready-compactor-0") &&
        std::filesystem::exists(dir / "ready-compactor-1")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  TransactionOptions options;
  options.operation = "OPTIMIZE";
  Transaction txn(*table->log, snapshot, options, SystemClock(), RealSleeper());
  txn.AddReadFile(target->path);
  RemoveFile rm;
  rm.path = target->path;
  rm.deletion_timestamp = SystemClock().NowMillis();
  rm.data_change = false;
  rm.size = target->size;
  txn.AddAction(rm);
  AddFile compacted = DemoFile("part-compacted-" + a.name + "-" + NewUuid() + ".parquet", 0);
  compacted.stats = target->stats;
  compacted.size = target->size;
  compacted.data_change = false;
  txn.AddAction(compacted);
  auto outcome = txn.Commit();
  if (!outcome.ok()) return ReportError(outcome.status());
  nlohmann::json line = OutcomeJson(*outcome);
  line["removed"] = target->path;
  std::ofstream(a.out) << line.dump() << "\n";
  return outcome->result == CommitResult::kConflict ? kExitConflict : kExitOk;
}

}  // namespace

void RegisterDemoWorkers(CLI::App& app, int* exit_code) {
  auto w = std::make_shared<WriterArgs>();
  CLI::App* writer = app.add_subcommand("demo-writer", "")->group("");  // hidden
  writer->add_option("table", w->table)->required();
  writer->add_option("--writer", w->writer);
  writer->add_option("--commits", w->commits);
  writer->add_option("--rows", w->rows);
  writer->add_option("--out", w->out)->required();
  AddTableOptions(writer, &w->table_options);
  writer->callback([w, exit_code] { *exit_code = RunWriter(*w); });

  auto c = std::make_shared<WriterArgs>();
  CLI::App* compactor = app.add_subcommand("demo-compactor", "")->group("");
  compactor->add_option("table", c->table)->required();
  compactor->add_option("--name", c->name)->required();
  compactor->add_option("--out", c->out)->required();
  compactor->callback([c, exit_code] { *exit_code = RunCompactor(*c); });
}

}  // namespace deltacommit::cli
