// `deltacommit demo-writer` (hidden): a process that commits blind appends
// of named (unwritten) files with the library, as fast as the log store
// allows: the load of the concurrency tests and benchmarks.
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
    nlohmann::json line = DemoOutcomeJson(*outcome);
    line["batch"] = b;
    line["path"] = path;
    out << line.dump() << "\n" << std::flush;
  }
  return kExitOk;
}

}  // namespace

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
  AddTableOptions(writer, &w->table_options);
  writer->callback([w, exit_code] { *exit_code = RunWriter(*w); });
}

}  // namespace deltacommit::cli
