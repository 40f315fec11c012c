// `deltacommit demo`: the main job on embedded defaults. Starts a commit
// service (`deltacommit serve` on SQLite state) serving a local table
// directory, creates a table, starts several writer processes that append
// generated CSV batches concurrently through the service (each through
// `deltacommit append`: Parquet data files and a blind append) and two that
// race to compact the same data file, then prints the history, each
// writer's outcome, and a verification of the result that reads the data
// back. `--log-store local` does the same without the service.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/log_path.h"
#include "demo/demo.h"
#include "serve/child.h"
#include "service/config/auth.h"
#include "shared/output.h"
#include "shared/self_process.h"

namespace deltacommit::cli {

namespace {

// One progress line: rewritten in place on a terminal, else printed when it
// changes (at most every second) so logs stay readable.
void PrintProgress(int64_t commits, int64_t expected, size_t done, size_t writers) {
  static const bool tty = isatty(STDOUT_FILENO) != 0;
  static std::string last;
  static auto last_print = std::chrono::steady_clock::time_point{};
  std::string line = "  progress: " + std::to_string(commits) + "/" + std::to_string(expected) +
                     " appends, " + std::to_string(done) + "/" + std::to_string(writers) +
                     " writers finished";
  auto now = std::chrono::steady_clock::now();
  if (line == last) return;
  if (!tty && done < writers && now - last_print < std::chrono::seconds(1)) return;
  last = line;
  last_print = now;
  std::cout << (tty ? "\r" : "") << line << (tty ? "   " : "\n") << std::flush;
}

// Appends acknowledged so far: the lines the appenders have written.
int64_t AppendsDone(const std::string& dir, int writers) {
  int64_t lines = 0;
  for (int w = 0; w < writers; ++w) {
    std::ifstream in(dir + "/writer-" + std::to_string(w) + ".jsonl");
    lines += std::count(std::istreambuf_iterator<char>(in), {}, '\n');
  }
  return lines;
}

// Waits for the children, printing the appends' progress meanwhile.
bool WaitAll(std::vector<pid_t>& pids, const std::string& dir, int writers,
             int64_t expected_appends) {
  bool all_ok = true;
  size_t done = 0;
  std::vector<bool> finished(pids.size(), false);
  while (done < pids.size()) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (finished[i]) continue;
      int status = 0;
      if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        finished[i] = true;
        ++done;
        // Exit 3 is a reported conflict: an expected outcome for a racer.
        bool ok = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
        all_ok = all_ok && ok;
      }
    }
    PrintProgress(AppendsDone(dir, writers), expected_appends, done, pids.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (isatty(STDOUT_FILENO)) std::cout << "\n";
  return all_ok;
}

struct DemoArgs {
  std::string dir;
  int writers = 4;
  int commits = 25;
  int rows = 100;
  bool keep = false;
  std::string log_store = "service";  // or "local": no commit service
};

// Starts the commit service (this binary's `serve` on SQLite state in
// `dir`, serving `dir` as its [local] root on a free port) and hands its URL
// and a token only this run knows to the processes this one starts, through
// the environment: not on their command lines.
StatusOr<std::unique_ptr<ServeChild>> StartService(const DemoArgs& args, const std::string& self,
                                                   const std::string& dir) {
  if (args.log_store == "local") return std::unique_ptr<ServeChild>();
  const std::string token = "demo-" + NewUuid() + NewUuid();
  DC_ASSIGN_OR_RETURN(std::unique_ptr<ServeChild> service,
                      ServeChild::Start({.self = self,
                                         .dir = dir,
                                         .table_prefix = "file://" + dir,
                                         .token_sha256 = service::HashToken(token),
                                         .workers = 8,
                                         .log_level = "info",
                                         .local_root = dir}));
  setenv("DELTACOMMIT_SERVICE_URL", service->url().c_str(), 1);
  setenv("DELTACOMMIT_SERVICE_TOKEN", token.c_str(), 1);
  std::cout << "  commit service: " << service->url() << " (deltacommit serve, SQLite state "
            << dir << "/state.sqlite, log " << service->log_path() << ")\n";
  return service;
}

int RunDemo(const DemoArgs& args, const std::string& self) {
  if (args.writers < 1 || args.commits < 1 || args.rows < 1) {
    return ReportError(InvalidArgumentError("--writers, --commits and --rows must be at least 1"));
  }
  if (args.log_store != "service" && args.log_store != "local") {
    return ReportError(InvalidArgumentError("--log-store \"" + args.log_store +
                                            "\": the demo runs service (default) or local"));
  }
  std::string dir = args.dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/deltacommit-demo-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return ReportError(InternalError("mkdtemp failed"));
    dir = tmpl;
  }
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  // The service's [local] root and its token's table prefix: absolute.
  if (!made) dir = std::filesystem::absolute(dir, made).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (made) return ReportError(InvalidArgumentError("--dir " + dir + ": " + made.message()));
  const std::string table = dir + "/events";
  std::cout << "deltacommit demo: " << args.writers << " writer processes x " << args.commits
            << " CSV batches of " << args.rows << " rows appended as Parquet data files, plus 2 "
            << "racing compactions, committed through "
            << (args.log_store == "local" ? "the local log store" : "a commit service") << "\n"
            << "  table: " << table << "\n";
  StatusOr<std::unique_ptr<ServeChild>> service = StartService(args, self, dir);
  if (!service.ok()) return ReportError(service.status());
  Status st = DemoCreateTable(table, args.log_store);
  if (!st.ok()) return ReportError(st);
  std::vector<pid_t> pids;
  for (int w = 0; w < args.writers; ++w) {
    pids.push_back(Spawn(self, {"demo-appender", table, "--writer", std::to_string(w),
                                    "--commits", std::to_string(args.commits), "--rows",
                                    std::to_string(args.rows), "--self", self, "--log-store",
                                    args.log_store, "--out",
                                    dir + "/writer-" + std::to_string(w) + ".jsonl"}));
  }
  for (int c = 0; c < 2; ++c) {
    pids.push_back(Spawn(self, {"demo-compactor", table, "--name",
                                    "compactor-" + std::to_string(c), "--log-store",
                                    args.log_store, "--out",
                                    dir + "/compactor-" + std::to_string(c) + ".jsonl"}));
  }
  for (pid_t p : pids) {
    if (p < 0) return ReportError(InternalError("could not start a writer process"));
  }
  bool ok = WaitAll(pids, dir, args.writers, int64_t{args.writers} * args.commits);
  if (*service != nullptr) {
    Status stopped = (*service)->Stop();
    if (!stopped.ok()) {
      std::cout << "commit service: " << stopped.message() << "\n";
      ok = false;
    }
  }
  int rc = DemoReport(self, table, dir, args.writers, args.commits, args.rows);
  if (!ok) {
    std::cout << "a writer process failed (see messages above)\n";
    rc = kExitError;
  }
  if (!args.keep && args.dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  } else {
    std::cout << "kept " << dir << "\n";
  }
  return rc;
}

}  // namespace

void RegisterDemo(CLI::App& app, int* exit_code, const char* self_path) {
  auto args = std::make_shared<DemoArgs>();
  const std::string self = SelfPath(self_path);
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "Run the main job: a commit service and concurrent writer processes on a local table, "
      "verified");
  cmd->add_option("--dir", args->dir, "Work directory (default: a new temp dir, removed after)");
  cmd->add_option("--writers", args->writers, "Writer processes")->capture_default_str();
  cmd->add_option("--commits", args->commits, "Commits per writer")->capture_default_str();
  cmd->add_option("--rows", args->rows, "Rows per commit")->capture_default_str();
  cmd->add_flag("--keep", args->keep, "Keep the work directory");
  cmd->add_option("--log-store", args->log_store,
                  "service: through a commit service the demo starts; local: straight to the "
                  "table")
      ->capture_default_str();
  cmd->callback([args, exit_code, self] { *exit_code = RunDemo(*args, self); });
  RegisterDemoWorkers(app, exit_code);
  RegisterDemoAppenders(app, exit_code);
  RegisterDemoPrimitive(app, exit_code);
}

}  // namespace deltacommit::cli
