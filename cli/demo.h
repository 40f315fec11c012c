// Pieces of `deltacommit demo`: the table, the worker processes it starts
// (hidden subcommands demo-writer and demo-compactor), and the report.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "deltacommit/status.h"
#include "deltacommit/transaction.h"

namespace deltacommit::cli {

// Creates the demo's table, committing version 0 with `log_store`.
Status DemoCreateTable(const std::string& table, const std::string& log_store);
// Starts this binary (`self`) with `args`; stdout into `out_file` and stderr
// into `out_file` + ".err" when given. -1 when it could not start.
pid_t SpawnSelf(const std::string& self, const std::vector<std::string>& args,
                const std::string& out_file = {});
// Runs this binary (`self`) with `args`, its stdout into `out_file`, its
// stderr into `out_file` + ".err"; the exit code (-1 when it did not exit).
int RunSelf(const std::string& self, const std::vector<std::string>& args,
            const std::string& out_file);
// The path of this binary (for the processes the demo starts).
std::string SelfPath(const char* argv0);
void RegisterDemoWorkers(CLI::App& app, int* exit_code);
// A commit's outcome as the demo's processes record it (one JSON line).
nlohmann::json DemoOutcomeJson(const CommitOutcome& outcome);
// demo-appender and demo-compactor (demo_appender.cc).
void RegisterDemoAppenders(CLI::App& app, int* exit_code);
// The commit service the demo's writers commit through (demo_service.cc):
// `self serve` on SQLite state in `dir`, serving `dir` as its [local] root
// on a free port of 127.0.0.1, with a random bearer token. Stopped (SIGTERM,
// it drains) by Stop() or the destructor.
class DemoService {
 public:
  static StatusOr<DemoService> Start(const std::string& self, const std::string& dir);
  DemoService(DemoService&& other) noexcept;
  DemoService& operator=(DemoService&&) = delete;
  ~DemoService();
  // kInternal when it did not exit 0 (its log is named).
  Status Stop();
  const std::string& url() const { return url_; }
  const std::string& token() const { return token_; }

 private:
  DemoService() = default;
  pid_t pid_ = -1;
  std::string url_, token_, log_;
};

// Prints history, per-writer outcomes and the verification; returns the exit
// code (0 only if every check passed).
int DemoReport(const std::string& self, const std::string& table, const std::string& dir,
               int writers, int commits, int rows);

}  // namespace deltacommit::cli
