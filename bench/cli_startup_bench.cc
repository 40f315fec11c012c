// CLI start-up (issue 20, item 5): how long a `deltacommit` process takes
// from spawn to exit, for commands that do and do not touch Parquet, beside
// an empty process and an empty process that loads DuckDB's library — what
// every start would pay if the CLI linked DuckDB instead of loading it on
// first use (src/adapters/parquet/duckdb_api.h). Every case runs once per
// round, interleaved; medians and p90 over the rounds, and ratios to the
// empty process. Each run must exit 0, or the program fails (its smoke test
// in ctest). --baseline-cli adds another build of the CLI (one that links
// DuckDB, say) to the same rounds, with the ratio of its times to --cli's.
//
//   cli_startup_bench [--cli PATH] [--baseline-cli PATH] [--rounds N] [--dir DIR]
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<double> ms;
};

// Runs `argv` with stdout and stderr to /dev/null; its wall time in ms, or
// a negative number when it did not exit 0.
double RunOnce(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &files, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// The child modes: an empty process, and one that loads DuckDB and exits.
int Child(const std::string& mode) {
  if (mode == "empty") return 0;
  if (mode == "load-duckdb") {
    void* library = dlopen(DC_DUCKDB_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
    if (library == nullptr) std::fprintf(stderr, "%s\n", dlerror());
    return library != nullptr ? 0 : 1;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cli = DC_CLI;
  std::string baseline;
  int rounds = 50;
  std::string dir = (fs::temp_directory_path() / "cli_startup_bench").string();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--child" && has_value) return Child(argv[i + 1]);
    if (arg == "--cli" && has_value) {
      cli = argv[++i];
    } else if (arg == "--baseline-cli" && has_value) {
      baseline = argv[++i];
    } else if (arg == "--rounds" && has_value) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--dir" && has_value) {
      dir = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--cli PATH] [--baseline-cli PATH] [--rounds N] [--dir DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  // A table of one commit, no checkpoint: `snapshot` reads JSON only.
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string table = dir + "/t";
  if (RunOnce({cli, "create", table, "--schema", "id:long"}) < 0) {
    std::fprintf(stderr, "cannot create %s with %s\n", table.c_str(), cli.c_str());
    return 1;
  }
  const std::string self = fs::canonical("/proc/self/exe").string();
  std::vector<Case> cases = {
      {"empty process", {self, "--child", "empty"}, {}},
      {"empty process + dlopen(libduckdb.so)", {self, "--child", "load-duckdb"}, {}},
      {"deltacommit --version", {cli, "--version"}, {}},
      {"deltacommit snapshot (JSON only)", {cli, "snapshot", table}, {}},
      {"deltacommit query 'select 1' (DuckDB)", {cli, "query", table, "select 1"}, {}},
  };
  if (!baseline.empty()) {
    cases.push_back({"baseline --version", {baseline, "--version"}, {}});
    cases.push_back({"baseline snapshot (JSON only)", {baseline, "snapshot", table}, {}});
  }
  for (int r = 0; r < rounds; ++r) {
    for (Case& c : cases) {
      const double ms = RunOnce(c.argv);
      if (ms < 0) {
        std::fprintf(stderr, "%s did not exit 0\n", c.name.c_str());
        return 1;
      }
      c.ms.push_back(ms);
    }
  }
  const double empty = Percentile(cases[0].ms, 0.5);
  std::printf("CLI start-up, %d rounds, medians (%s)\n\n", rounds, cli.c_str());
  std::printf("| case | median ms | p90 ms | / empty process |\n|---|---:|---:|---:|\n");
  for (const Case& c : cases) {
    const double median = Percentile(c.ms, 0.5);
    std::printf("| %s | %.2f | %.2f | %.1f |\n", c.name.c_str(), median, Percentile(c.ms, 0.9),
                median / empty);
  }
  const double duckdb_load = Percentile(cases[1].ms, 0.5) - empty;
  const double version = Percentile(cases[2].ms, 0.5);
  const double snapshot = Percentile(cases[3].ms, 0.5);
  std::printf(
      "\nDuckDB's load: %.2f ms. Linked rather than loaded on first use, every start would pay it:"
      "\n--version %.2f ms -> ~%.2f ms (x%.2f), snapshot %.2f ms -> ~%.2f ms (x%.2f)\n",
      duckdb_load, version, version + duckdb_load, (version + duckdb_load) / version, snapshot,
      snapshot + duckdb_load, (snapshot + duckdb_load) / snapshot);
  if (!baseline.empty()) {
    std::printf("baseline (%s) / --cli, same rounds: --version x%.2f, snapshot x%.2f\n",
                baseline.c_str(), Percentile(cases[5].ms, 0.5) / version,
                Percentile(cases[6].ms, 0.5) / snapshot);
  }
  fs::remove_all(dir);
  return 0;
}
