// Snapshot load of a generated log (default 1,000 commits x 100 adds): MB/s
// of log replayed by LoadSnapshot, and its ratio to a raw simdjson parse of
// the same bytes, measured side by side in one run (best of N rounds each).
//
//   snapshot_load_bench [--commits N] [--adds N] [--rounds N] [--posix DIR]
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "adapters/posix/posix_object_store.h"
#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/snapshot.h"
#include "logstore/object_store_log_store.h"
#include "testing/memory_object_store.h"

namespace deltacommit {
namespace {

struct Options {
  int commits = 1000;
  int adds = 100;
  int rounds = 5;
  std::string posix_dir;
};

std::string Commit(int version, int adds) {
  std::vector<Action> actions;
  CommitInfo info;
  info.timestamp = 1700000000000 + version;
  info.operation = "WRITE";
  info.is_blind_append = true;
  actions.emplace_back(info);
  if (version == 0) {
    actions.emplace_back(Protocol{});
    Metadata m;
    m.id = "bench";
    m.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
    m.partition_columns = {"part"};
    actions.emplace_back(m);
  }
  for (int i = 0; i < adds; ++i) {
    AddFile a;
    a.path = "part=" + std::to_string(i % 10) + "/part-" + std::to_string(version) + "-" +
             std::to_string(i) + "-c000.snappy.parquet";
    a.partition_values["part"] = std::to_string(i % 10);
    a.size = 123456 + i;
    a.modification_time = 1700000000000 + version;
    a.stats = R"({"numRecords":1000,"minValues":{"id":0},"maxValues":{"id":999},"nullCount":{"id":0}})";
    actions.emplace_back(std::move(a));
  }
  return ActionsToCommit(actions);
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Parses every line of every commit with simdjson's DOM (every value is
// materialised), the floor any replay built on it can approach.
double RawParseSeconds(const std::vector<std::string>& commits) {
  simdjson::dom::parser parser;
  auto start = std::chrono::steady_clock::now();
  size_t docs = 0;
  for (const std::string& c : commits) {
    simdjson::dom::document_stream stream;
    if (parser.parse_many(c.data(), c.size(), 1 << 20).get(stream)) std::abort();
    for (auto doc : stream) {
      if (doc.error()) std::abort();
      ++docs;
    }
  }
  double s = Seconds(start);
  if (docs == 0) std::abort();
  return s;
}

double LoadSeconds(LogStore& log, size_t expected_files) {
  auto start = std::chrono::steady_clock::now();
  auto snapshot = LoadSnapshot(log, {});
  double s = Seconds(start);
  if (!snapshot.ok() || (*snapshot)->active_files().size() != expected_files) {
    std::fprintf(stderr, "load failed: %s\n", snapshot.status().ToString().c_str());
    std::exit(1);
  }
  return s;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--commits")) o.commits = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--adds")) o.adds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) o.rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--posix")) o.posix_dir = argv[i + 1];
  }
  return o;
}

void Report(const char* name, double bytes, double load, double raw) {
  std::printf("%-8s load %.3f s = %7.1f MB/s | raw simdjson %.3f s = %7.1f MB/s | load/raw time ratio %.2f\n",
              name, load, bytes / load / 1e6, raw, bytes / raw / 1e6, load / raw);
}

}  // namespace
}  // namespace deltacommit

int main(int argc, char** argv) {
  using namespace deltacommit;
  Options o = Parse(argc, argv);
  std::vector<std::string> commits;
  double bytes = 0;
  MemoryObjectStore memory;
  for (int v = 0; v < o.commits; ++v) {
    commits.push_back(Commit(v, o.adds));
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
