// commit_modes_bench: the same commit load against every commit mode in one
// run, on the same servers — local, s3-conditional, s3-dynamodb (when the
// test servers are up: `source` their environment) and service and
// coordinated (through a `deltacommit serve` it starts on SQLite state).
//
// For each writer count W it runs W `deltacommit demo-writer` processes ×
// C blind appends on a fresh table per mode, the modes one after another at
// the same W so that the machine's noise hits them alike, and prints per
// mode commits/s, p50/p95/p99 commit latency (snapshot load + commit),
// retries per commit and the remote calls per commit by kind (counted by
// the metering wrappers, DELTACOMMIT_METER=1), then the ratios to a
// baseline mode: on a shared machine the ratios mean more than the times.
//
// It is a separate program rather than a `deltacommit bench` subcommand
// because it starts the service with the tests' ServeProcess and reads the
// test servers' environment, which the CLI does not link.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commit_modes/mode_stats.h"
#include "commit_modes/modes.h"
#include "commit_modes/writers.h"
#include "deltacommit/log_path.h"

namespace deltacommit::bench {
namespace {

constexpr char kUsage[] =
    "usage: commit_modes_bench [--writers 1,2,4,8] [--commits 20]\n"
    "         [--modes local,s3-conditional,s3-dynamodb,service,coordinated]\n"
    "         [--baseline s3-dynamodb] [--data FILE.tsv] [--mix blind|remove]\n"
    "  Runs W demo-writer processes x C blind appends per mode on a fresh "
    "table\n"
    "  and prints a table per W. S3 modes need the test servers' environment\n"
    "  (source the file scripts/test-servers up prints); DELTACOMMIT_CLI "
    "names\n"
    "  the CLI (else the one this build made). --data writes the figures for\n"
    "  bench/commit_modes_plot.gp. --mix remove: each commit also removes a\n"
    "  random active file (conflicts when two remove the same one).\n";

struct Options {
  std::vector<int> writers = {1, 2, 4, 8};
  int commits = 20;
  std::vector<std::string> modes;  // empty: all
  std::string baseline = "s3-dynamodb";
  std::string data;
  bool remove_one = false;  // --mix remove
};

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const std::string value = argv[++i];
    try {
      if (arg == "--writers") {
        o.writers.clear();
        for (const std::string& w : Split(value))
          o.writers.push_back(std::stoi(w));
      } else if (arg == "--commits") {
        o.commits = std::stoi(value);
      } else if (arg == "--modes") {
        o.modes = Split(value);
      } else if (arg == "--baseline") {
        o.baseline = value;
      } else if (arg == "--mix") {
        if (value != "blind" && value != "remove") return false;
        o.remove_one = value == "remove";
      } else if (arg == "--data") {
        o.data = value;
      } else {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  return !o.writers.empty() && o.commits > 0;
}

// One mode at one writer count: a fresh table, the writers, the figures.
StatusOr<RunStats> RunOne(const ModeTarget& target, int writers,
                          const Options& o, const std::string& work_dir) {
  const int commits = o.commits;
  const std::string name = target.mode + "-w" + std::to_string(writers);
  DC_ASSIGN_OR_RETURN(const std::string table, CreateTable(target, name));
  WriterRun run{table,   target.options, writers,
                commits, o.remove_one,   work_dir + "/" + name};
  DC_ASSIGN_OR_RETURN(const std::vector<std::string> files, RunWriters(run));
  RunStats stats;
  stats.mode = target.mode;
  stats.writers = writers;
  std::string error;
  if (!ComputeStats(files, stats, error))
    return DataLossError(name + ": " + error);
  // Every commit reported, and the versions of those that landed are all of
  // the log's (version 0 is the create; the service's group commit may put
  // several appends in one version).
  if (stats.commits != int64_t{writers} * commits ||
      stats.last_version != stats.versions) {
    return DataLossError(
        name + ": " + std::to_string(stats.commits) + " commits reported (" +
        std::to_string(writers * commits) + " expected), " +
        std::to_string(stats.committed) + " landed in " +
        std::to_string(stats.versions) + " versions but the last version is " +
        std::to_string(stats.last_version));
  }
  return stats;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string run_id = NewUuid();
  const std::string work_dir =
      (std::filesystem::temp_directory_path() / ("commit-modes-" + run_id))
          .string();
  std::filesystem::create_directories(work_dir + "/tables");
  auto setup = SetUpModes(o.modes, run_id, work_dir + "/tables");
  if (!setup.ok()) {
    std::fprintf(stderr, "cannot set up the modes: %s\n",
                 setup.status().ToString().c_str());
    return 2;
  }
  for (const std::string& why : setup->skipped)
    std::printf("skipped %s\n", why.c_str());
  std::printf(
      "commit_modes_bench: %d commits per writer, %s, tables under %s "
      "and s3://.../bench/commit-modes-%s\n",
      o.commits,
      o.remove_one ? "appends that each remove a random file" : "blind appends",
      work_dir.c_str(), run_id.c_str());
  std::string data;
  for (int w : o.writers) {
    std::vector<RunStats> runs;
    for (const ModeTarget& target : setup->targets) {
      auto stats = RunOne(target, w, o, work_dir);
      if (!stats.ok()) {
        std::fprintf(stderr, "!!!!! %s\n", stats.status().ToString().c_str());
        return 1;
      }
      runs.push_back(*stats);
    }
    PrintTable(runs, o.baseline);
    std::fflush(stdout);
    data += DataLines(runs);
  }
  if (!o.data.empty())
    std::ofstream(o.data) << "# writers\tmode\tcommits/s\tp50\tp95\tp99\n"
                          << data;
  if (setup->serve != nullptr) setup->serve->Terminate();
  std::filesystem::remove_all(work_dir);
  return 0;
}

}  // namespace
}  // namespace deltacommit::bench

int main(int argc, char** argv) { return deltacommit::bench::Main(argc, argv); }
