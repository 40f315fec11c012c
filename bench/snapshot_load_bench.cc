// Snapshot load of a generated log (default 1,000 commits x 100 adds): MB/s
// of log replayed by LoadSnapshot, and its ratio to a raw simdjson parse of
// the same bytes, measured side by side in one run (best of N rounds each).
//
// --scaling: the same against the log's length (default 100, 300, 1,000,
// 3,000 and 10,000 commits of 2 adds each), every length with and without a
// Parquet checkpoint, on the memory and the posix store (snapshot_load/
// scaling.h; built only with the DuckDB Parquet adapter).
//
// --files: the same against the active files (logs of 100 commits holding
// each count), with and without a checkpoint. --data FILE writes the rows
// of either sweep for bench/snapshot_load_plot.gp.
//
// --memory-per-file: the heap a loaded snapshot holds per active file
// (glibc's mallinfo2 before and after the load, the log already in
// memory), against the bytes of the add actions' JSON lines, for a log of
// --commits x --adds files (default 1,000 x 1,000: a million files).
//
//   snapshot_load_bench [--commits N] [--adds N] [--rounds N] [--posix DIR]
//   snapshot_load_bench --scaling [--lengths 100,300,...] [--adds N] [--rounds N]
//                       [--posix DIR] [--no-memory] [--data FILE]
//   snapshot_load_bench --files 1000,10000,... [--rounds N] [--posix DIR]
//                       [--no-memory] [--data FILE]
//   snapshot_load_bench --memory-per-file [--commits N] [--adds N]
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/memory_object_store.h"
#include "snapshot_load/log_gen.h"
#ifdef DELTACOMMIT_BENCH_HAVE_PARQUET
#include "snapshot_load/scaling.h"
#endif

namespace deltacommit {
namespace {

using bench::BenchCommit;
using bench::HeapInUse;
using bench::RawParseSeconds;
using bench::SecondsSince;

struct Options {
  int commits = 1000;
  int adds = 0;  // 0: 100, or 2 with --scaling (small commits: 10,000 generate in seconds)
  int rounds = 5;
  std::string posix_dir;
  bool scaling = false;
  bool memory = true;
  bool memory_per_file = false;
  std::vector<int> lengths;
  std::vector<int> files;  // --files: the sweep over active files
  std::string data_path;
};

double LoadSeconds(LogStore& log, size_t expected_files) {
  auto start = std::chrono::steady_clock::now();
  auto snapshot = LoadSnapshot(log, {});
  double s = SecondsSince(start);
  if (!snapshot.ok() || (*snapshot)->active_files().size() != expected_files) {
    std::fprintf(stderr, "load failed: %s\n", snapshot.status().ToString().c_str());
    std::exit(1);
  }
  return s;
}

[[noreturn]] void Usage(const char* problem) {
  std::fprintf(stderr, "snapshot_load_bench: %s\n", problem);
  std::exit(2);
}

// A comma-separated list of counts from `least` to `most`.
std::vector<int> ParseCounts(const char* text, long least, long most, const char* problem) {
  std::vector<int> lengths;
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const long n = std::strtol(p, &end, 10);
    if (end == p || n < least || n > most || (*end && *end != ',')) Usage(problem);
    lengths.push_back(static_cast<int>(n));
    p = *end ? end + 1 : end;
  }
  return lengths;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--scaling")) o.scaling = true;
    else if (!std::strcmp(argv[i], "--memory-per-file")) o.memory_per_file = true;
    else if (!std::strcmp(argv[i], "--no-memory")) o.memory = false;
    else if (has_value && !std::strcmp(argv[i], "--commits")) o.commits = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--adds")) o.adds = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--rounds")) o.rounds = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--posix")) o.posix_dir = argv[++i];
    else if (has_value && !std::strcmp(argv[i], "--lengths")) {
      o.lengths = ParseCounts(argv[++i], 11, 1'000'000,
                              "--lengths wants commit counts from 11 to 1000000, comma-separated");
    } else if (has_value && !std::strcmp(argv[i], "--files")) {
      o.files = ParseCounts(argv[++i], 100, 10'000'000,
                            "--files wants active-file counts from 100 to 10000000, "
                            "comma-separated");
      o.scaling = true;
    } else if (has_value && !std::strcmp(argv[i], "--data")) {
      o.data_path = argv[++i];
    }
    else Usage((std::string("unknown or incomplete option ") + argv[i]).c_str());
  }
  if (o.adds == 0) o.adds = o.scaling ? 2 : o.memory_per_file ? 1000 : 100;
  if (o.commits < 1 || o.adds < 1 || o.rounds < 1) {
    Usage("--commits, --adds and --rounds must be at least 1");
  }
  return o;
}

void Report(const char* name, double bytes, double load, double raw) {
  std::printf("%-8s load %.3f s = %7.1f MB/s | raw simdjson %.3f s = %7.1f MB/s | load/raw time ratio %.2f\n",
              name, load, bytes / load / 1e6, raw, bytes / raw / 1e6, load / raw);
}

int RunScaling(const Options& o) {
#ifdef DELTACOMMIT_BENCH_HAVE_PARQUET
  bench::ScalingOptions s;
  if (!o.lengths.empty()) s.lengths = o.lengths;
  s.adds = o.adds;
  s.rounds = o.rounds;
  if (!o.posix_dir.empty()) s.posix_dir = o.posix_dir;
  s.memory = o.memory;
  s.files = o.files;
  s.data_path = o.data_path;
  return bench::RunScaling(s);
#else
  (void)o;
  Usage("--scaling needs the DuckDB Parquet adapter (deltacommit_parquet), "
        "which this build does not have");
#endif
}

// The bytes of the add lines among `commits` (each line with its newline).
double AddLineBytes(const std::vector<std::string>& commits) {
  double bytes = 0;
  for (const std::string& commit : commits) {
    size_t start = 0;
    while (start < commit.size()) {
      size_t end = commit.find('\n', start);
      if (end == std::string::npos) end = commit.size();
      if (commit.compare(start, 7, "{\"add\":") == 0) bytes += static_cast<double>(end - start + 1);
      start = end + 1;
    }
  }
  return bytes;
}

int RunMemoryPerFile(const Options& o) {
  MemoryObjectStore memory;
  std::vector<std::string> commits;
  for (int v = 0; v < o.commits; ++v) {
    commits.push_back(BenchCommit(v, o.adds));
    if (!memory.Put(CommitPath(v), commits.back()).ok()) return 1;
  }
  const double add_bytes = AddLineBytes(commits);
  commits.clear();
  commits.shrink_to_fit();
  const auto files = static_cast<double>(o.commits) * o.adds;
  ObjectStoreLogStore log(memory, "memory");
  malloc_trim(0);
  const double before = HeapInUse();
  auto snapshot = LoadSnapshot(log, {});
  if (!snapshot.ok()) Usage(snapshot.status().ToString().c_str());
  malloc_trim(0);
  const double held = HeapInUse() - before;
  std::printf("memory per active file: %.0f files, add actions' JSON %.1f MB (%.0f bytes a file) "
              "| snapshot holds %.1f MB (%.0f bytes a file) | ratio %.2f\n",
              files, add_bytes / 1e6, add_bytes / files, held / 1e6, held / files,
              held / add_bytes);
  // Iterating sorts the files once, and the snapshot keeps that order.
  size_t iterated = 0;
  for (const auto& entry : (*snapshot)->active_files()) {
    if (!entry.first.path.empty()) ++iterated;
  }
  malloc_trim(0);
  const double after_iterating = HeapInUse() - before;
  std::printf("memory per active file, once iterated in key order: %.1f MB (%.0f bytes a file) "
              "| ratio %.2f\n",
              after_iterating / 1e6, after_iterating / files, after_iterating / add_bytes);
  return iterated == static_cast<size_t>(files) ? 0 : 1;
}

}  // namespace
}  // namespace deltacommit

int main(int argc, char** argv) {
  using namespace deltacommit;
  Options o = Parse(argc, argv);
  if (o.scaling) return RunScaling(o);
  if (o.memory_per_file) return RunMemoryPerFile(o);
  std::vector<std::string> commits;
  double bytes = 0;
  MemoryObjectStore memory;
  for (int v = 0; v < o.commits; ++v) {
    commits.push_back(BenchCommit(v, o.adds));
    bytes += static_cast<double>(commits.back().size());
    if (!memory.Put(CommitPath(v), commits.back()).ok()) return 1;
  }
  const size_t files = static_cast<size_t>(o.commits) * static_cast<size_t>(o.adds);
  std::printf("log: %d commits x %d adds = %.1f MB, best of %d rounds\n", o.commits, o.adds,
              bytes / 1e6, o.rounds);
  ObjectStoreLogStore memory_log(memory, "memory");
  double load = 1e9, raw = 1e9;
  for (int r = 0; r < o.rounds; ++r) {  // interleaved, so noise hits both alike
    load = std::min(load, LoadSeconds(memory_log, files));
    raw = std::min(raw, RawParseSeconds(commits));
  }
  Report("memory", bytes, load, raw);
  if (!o.posix_dir.empty()) {
    std::filesystem::remove_all(o.posix_dir);
    PosixObjectStore posix(o.posix_dir);
    for (int v = 0; v < o.commits; ++v) {
      if (!posix.Put(CommitPath(v), commits[static_cast<size_t>(v)]).ok()) return 1;
    }
    ObjectStoreLogStore posix_log(posix, "local");
    double pload = 1e9, praw = 1e9;
    for (int r = 0; r < o.rounds; ++r) {
      pload = std::min(pload, LoadSeconds(posix_log, files));
      praw = std::min(praw, RawParseSeconds(commits));
    }
    Report("posix", bytes, pload, praw);
    std::filesystem::remove_all(o.posix_dir);
  }
  return 0;
}
