// The processes `deltacommit demo` starts: appenders that write generated CSV
// batches through `deltacommit append` (real Parquet data files), and two
// compactors that race to rewrite the same data file.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/transaction.h"
#include "demo/demo.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

// One batch of generated rows as CSV: ids are unique across writers and
// batches, so the verification can count every row once.
std::string BatchCsv(int writer, int batch, int rows) {
  std::string csv = "id,writer,batch,payload\n";
  const int64_t first = int64_t{writer} * 1'000'000'000 + int64_t{batch} * rows;
  for (int i = 0; i < rows; ++i) {
    csv += std::to_string(first + i) + "," + std::to_string(writer) + "," +
           std::to_string(batch) + ",w" + std::to_string(writer) + "-b" + std::to_string(batch) +
           "-r" + std::to_string(i) + "\n";
  }
  return csv;
}

struct AppenderArgs {
  std::string table, out, name, self;
  std::string log_store = "local";
  int writer = 0, commits = 1, rows = 100;
};

// Writes each batch as a CSV file and appends it with `deltacommit append`
// (its own process: Parquet data files through DuckDB, one blind append
// each), recording the outcome it printed.
int RunAppender(const AppenderArgs& a) {
  const std::filesystem::path batches = std::filesystem::path(a.out).parent_path() / "batches";
  std::filesystem::create_directories(batches);
  std::ofstream out(a.out, std::ios::app);
  for (int b = 0; b < a.commits; ++b) {
    const std::string name = "w" + std::to_string(a.writer) + "-b" + std::to_string(b);
    const std::string csv = (batches / (name + ".csv")).string();
    std::ofstream(csv) << BatchCsv(a.writer, b, a.rows);
    const std::string reply = (batches / (name + ".out")).string();
    const int rc = RunSelf(
        a.self, {"append", a.table, csv, "--json", "--quiet", "--log-store", a.log_store}, reply);
    std::ifstream in(reply);
    std::string first_line;
    std::getline(in, first_line);
    nlohmann::json line = nlohmann::json::parse(first_line, nullptr, false);
    if (rc != 0 || line.is_discarded()) {
      std::ifstream err(reply + ".err");
      std::cerr << "writer " << a.writer << " batch " << b << ": append exited " << rc << ": "
                << std::string(std::istreambuf_iterator<char>(err), {}) << "\n";
      return kExitError;
    }
    line["batch"] = b;
    out << line.dump() << "\n" << std::flush;
  }
  return kExitOk;
}

// The file both compactors rewrite: the first one the first append added.
StatusOr<AddFile> CompactionTarget(LogStore& log) {
  for (int i = 0; i < 6000; ++i) {
    StatusOr<std::vector<Action>> first = ReadCommit(log, 1);
    if (first.ok()) {
      for (const Action& a : *first) {
        if (const auto* add = std::get_if<AddFile>(&a)) return *add;
      }
      return FailedPreconditionError("version 1 adds no file");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return DeadlineExceededError("no file to compact appeared");
}

// Reads a snapshot holding the target, waits until every compactor has read
// (so they truly race), rewrites the file under a new name and commits the
// swap; the loser deletes its copy.
int RunCompactor(const AppenderArgs& a) {
  TableFlags options;
  options.log_store = a.log_store;
  auto opened = OpenCliTable(a.table, options);
  if (!opened.ok()) return ReportError(opened.status());
  TableAdapters* table = &opened->adapters();
  auto target = CompactionTarget(*table->log);
  if (!target.ok()) return ReportError(target.status());
  auto snapshot = LoadSnapshot(*table->log, table->Request());
  if (!snapshot.ok()) return ReportError(snapshot.status());
  const std::filesystem::path dir = std::filesystem::path(a.out).parent_path();
  std::ofstream(dir / ("ready-" + a.name)).put('1');
  for (int i = 0; i < 6000; ++i) {  // barrier: both compactors have read
    if (std::filesystem::exists(dir / "ready-compactor-0") &&
        std::filesystem::exists(dir / "ready-compactor-1")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto data = table->store->Get(target->path);
  if (!data.ok()) return ReportError(data.status());
  AddFile compacted = *target;
  compacted.path = "part-compacted-" + a.name + "-" + NewUuid() + ".snappy.parquet";
  compacted.modification_time = SystemClock().NowMillis();
  compacted.data_change = false;
  if (Status put = table->store->PutIfAbsent(compacted.path, *data); !put.ok()) {
    return ReportError(put);
  }
  TransactionOptions txn_options;
  txn_options.operation = "OPTIMIZE";
  Transaction txn(*table->log, *snapshot, txn_options, SystemClock(), RealSleeper());
  txn.AddReadFile(target->path);
  RemoveFile rm;
  rm.path = target->path;
  rm.deletion_timestamp = SystemClock().NowMillis();
  rm.data_change = false;
  rm.size = target->size;
  txn.AddAction(rm);
  txn.AddAction(compacted);
  auto outcome = txn.Commit();
  if (!outcome.ok()) return ReportError(outcome.status());
  if (outcome->result != CommitResult::kCommitted) table->store->Delete(compacted.path).IgnoreError();
  nlohmann::json line = DemoOutcomeJson(*outcome);
  line["removed"] = target->path;
  std::ofstream(a.out) << line.dump() << "\n";
  return outcome->result == CommitResult::kConflict ? kExitConflict : kExitOk;
}

}  // namespace

void RegisterDemoAppenders(CLI::App& app, int* exit_code) {
  auto w = std::make_shared<AppenderArgs>();
  CLI::App* appender = app.add_subcommand("demo-appender", "")->group("");  // hidden
  appender->add_option("table", w->table)->required();
  appender->add_option("--writer", w->writer);
  appender->add_option("--commits", w->commits);
  appender->add_option("--rows", w->rows);
  appender->add_option("--out", w->out)->required();
  appender->add_option("--self", w->self)->required();
  appender->add_option("--log-store", w->log_store);
  appender->callback([w, exit_code] { *exit_code = RunAppender(*w); });

  auto c = std::make_shared<AppenderArgs>();
  CLI::App* compactor = app.add_subcommand("demo-compactor", "")->group("");  // hidden
  compactor->add_option("table", c->table)->required();
  compactor->add_option("--name", c->name)->required();
  compactor->add_option("--out", c->out)->required();
  compactor->add_option("--log-store", c->log_store);
  compactor->callback([c, exit_code] { *exit_code = RunCompactor(*c); });
}

}  // namespace deltacommit::cli
