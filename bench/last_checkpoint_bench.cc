// Snapshot load with and without `_last_checkpoint`, side by side in one
// run: a table of N commits (default 2,000, 2 adds each) with a Parquet
// checkpoint at C (default 1,990), loaded with the checkpoint reader
//   hint:    LoadSnapshot as is: reads _last_checkpoint, lists from C;
//   no hint: the same log with _last_checkpoint hidden: lists from 0.
// Both read the same checkpoint and the same commits after it, so the
// difference is the listing (also timed alone: reading the hint and
// listing from C, against listing from 0). Best and median of R rounds,
// interleaved, on a local directory and, when the test servers' RGW is up
// (source /tmp/servers.env), on S3. Build it with the release preset.
//
// The hinted load is also timed reading the commits after the checkpoint
// K at a time (SnapshotRequest::concurrent_reads, default 16) against one
// at a time: with --checkpoint well before --commits, a long tail. And,
// reading as a Table does on the store (1 at a time locally, K on S3), a
// load through the checkpoint against one that replays every commit (the
// log as if never checkpointed): with --checkpoint just before --commits,
// what a checkpoint saves.
//
//   last_checkpoint_bench [--commits N] [--checkpoint C] [--adds A]
//                         [--rounds R] [--posix DIR] [--no-s3]
//                         [--concurrent-reads K] [--get-latency-ms L]
//
// --get-latency-ms adds L ms to every GET (FaultInjectingObjectStore), as a
// store further away than loopback would: on the test machine's RGW the
// server's CPU, not the round trip, bounds concurrent GETs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/test_servers.h"
#include "deltacommit/action_json.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/forwarding_object_store.h"

namespace deltacommit {
namespace {

struct Options {
  int commits = 2000;
  int checkpoint = 1990;
  int adds = 2;
  int rounds = 7;
  std::string posix_dir = "/tmp/last_checkpoint_bench";
  bool s3 = true;
  int concurrent_reads = 16;
  int get_latency_ms = 0;
};

std::string Commit(int version, int adds) {
  std::vector<Action> actions;
  CommitInfo info;
  info.timestamp = 1700000000000 + version;
  info.operation = "WRITE";
  actions.emplace_back(info);
  if (version == 0) {
    actions.emplace_back(Protocol{});
    Metadata m;
    m.id = "bench";
    m.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
    actions.emplace_back(m);
  }
  for (int i = 0; i < adds; ++i) {
    AddFile a;
    a.path = "part-" + std::to_string(version) + "-" + std::to_string(i) + ".parquet";
    a.size = 1000 + i;
    a.modification_time = 1700000000000 + version;
    actions.emplace_back(std::move(a));
  }
  return ActionsToCommit(actions);
}

// The log as if never checkpointed: no _last_checkpoint, and the listing
// leaves out checkpoint files, so a load replays every commit.
class CheckpointHidingLogStore : public ObjectStoreLogStore {
 public:
  using ObjectStoreLogStore::ObjectStoreLogStore;
  StatusOr<std::string> Read(std::string_view key) override {
    if (key == LastCheckpointPath()) return NotFoundError("hidden");
    return ObjectStoreLogStore::Read(key);
  }
  StatusOr<std::vector<ObjectMeta>> List(Version from) override {
    auto listed = ObjectStoreLogStore::List(from);
    if (listed.ok()) {
      std::erase_if(*listed, [](const ObjectMeta& m) {
        return ParseLogPath(std::string_view(m.key).substr(kLogDir.size())).type !=
               LogFileType::kCommit;
      });
    }
    return listed;
  }
};

// Counts the keys List returns, the listing's cost on S3 (1,000 a page).
class CountingStore : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after) override {
    auto listed = ForwardingObjectStore::List(prefix, start_after);
    if (listed.ok()) listed_keys += static_cast<int64_t>(listed->size());
    return listed;
  }
  std::atomic<int64_t> listed_keys{0};
};

// The log as it is, or with _last_checkpoint hidden (as if never written).
class HintHidingLogStore : public ObjectStoreLogStore {
 public:
  using ObjectStoreLogStore::ObjectStoreLogStore;
  StatusOr<std::string> Read(std::string_view key) override {
    if (key == LastCheckpointPath()) return NotFoundError("hidden");
    return ObjectStoreLogStore::Read(key);
  }
};

void Check(const Status& st, const char* what) {
  if (st.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
  std::exit(1);
}

// Writes the commits (8 writers: S3 puts are latency-bound), then the
// checkpoint of version `o.checkpoint` and _last_checkpoint.
void BuildTable(ObjectStore& store, ParquetHandler& parquet, const Options& o) {
  std::atomic<int> next{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&] {
      for (int v = next++; v < o.commits; v = next++) {
        Check(store.Put(CommitPath(v), Commit(v, o.adds)), "put commit");
      }
    });
  }
  for (std::thread& t : writers) t.join();
  ObjectStoreLogStore log(store, "bench");
  auto snapshot = LoadSnapshot(log, SnapshotRequest{o.checkpoint, nullptr, nullptr});
  Check(snapshot.status(), "snapshot for the checkpoint");
  auto info = WriteCheckpoint(store, parquet, **snapshot, SystemClock());
  Check(info.status(), "checkpoint");
}

double LoadMillis(LogStore& log, ParquetHandler& parquet, ObjectStore& store, const Options& o,
                  int concurrent_reads = 1) {
  SnapshotRequest request{std::nullopt, &parquet, &store};
  request.concurrent_reads = concurrent_reads;
  auto start = std::chrono::steady_clock::now();
  auto snapshot = LoadSnapshot(log, request);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  Check(snapshot.status(), "load");
  const size_t files = static_cast<size_t>(o.commits) * static_cast<size_t>(o.adds);
  if ((*snapshot)->version() != o.commits - 1 || (*snapshot)->active_files().size() != files) {
    std::fprintf(stderr, "load: wrong snapshot\n");
    std::exit(1);
  }
  return ms;
}

// The listing step alone: what the loader does before it reads any
// checkpoint or commit (read the hint and list from it, or list from 0).
double ListMillis(LogStore& log, Version from) {
  auto start = std::chrono::steady_clock::now();
  if (from > 0) Check(log.Read(LastCheckpointPath()).status(), "read hint");
  Check(log.List(from).status(), "list");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `table_reads`: the commits a Table reads at once on this store
// (TableAdapters::ConcurrentReads: 1 locally, 16 on S3).
void Measure(const char* name, ObjectStore& base, ParquetHandler& parquet, const Options& o,
             int table_reads) {
  FaultInjectingObjectStore distant(base);
  if (o.get_latency_ms > 0) {
    distant.DelayEveryCall(ObjectStoreOp::kGet, std::chrono::milliseconds(o.get_latency_ms));
  }
  CountingStore store(distant);
  ObjectStoreLogStore with_hint(store, "bench");
  HintHidingLogStore without_hint(store, "bench");
  CheckpointHidingLogStore never_checkpointed(store, "bench");
  std::vector<double> hint, no_hint, list_hint, list_all, ahead, through, replay;
  int64_t hint_keys = 0, no_hint_keys = 0;
  for (int r = 0; r < o.rounds; ++r) {  // interleaved, so noise hits both alike
    store.listed_keys = 0;
    hint.push_back(LoadMillis(with_hint, parquet, store, o));
    hint_keys = store.listed_keys;
    store.listed_keys = 0;
    no_hint.push_back(LoadMillis(without_hint, parquet, store, o));
    no_hint_keys = store.listed_keys;
    list_hint.push_back(ListMillis(with_hint, o.checkpoint));
    list_all.push_back(ListMillis(with_hint, 0));
    ahead.push_back(LoadMillis(with_hint, parquet, store, o, o.concurrent_reads));
    through.push_back(LoadMillis(with_hint, parquet, store, o, table_reads));
    replay.push_back(LoadMillis(never_checkpointed, parquet, store, o, table_reads));
  }
  const double best_hint = *std::min_element(hint.begin(), hint.end());
  const double best_no = *std::min_element(no_hint.begin(), no_hint.end());
  std::printf("%-6s hint: best %7.1f ms, median %7.1f ms, %5lld keys listed | "
              "no hint: best %7.1f ms, median %7.1f ms, %5lld keys listed | "
              "no-hint/hint time ratio %.2f (medians %.2f)\n",
              name, best_hint, Median(hint), static_cast<long long>(hint_keys), best_no,
              Median(no_hint), static_cast<long long>(no_hint_keys), best_no / best_hint,
              Median(no_hint) / Median(hint));
  std::printf("%-6s listing step alone: hint + list from %d: median %6.1f ms | list from 0: "
              "median %6.1f ms | ratio %.1f\n",
              name, o.checkpoint, Median(list_hint), Median(list_all),
              Median(list_all) / Median(list_hint));
  std::printf("%-6s hint, the %d commits after the checkpoint read %d at a time: median %7.1f ms "
              "| one at a time: median %7.1f ms | ratio %.2f\n",
              name, o.commits - 1 - o.checkpoint, o.concurrent_reads, Median(ahead), Median(hint),
              Median(hint) / Median(ahead));
  std::printf("%-6s as a table reads it (%d at a time), through the checkpoint at %d: median "
              "%7.1f ms | replaying all %d commits: median %7.1f ms | replay/checkpoint ratio "
              "%.2f\n",
              name, table_reads, o.checkpoint, Median(through), o.commits, Median(replay),
              Median(replay) / Median(through));
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--no-s3")) o.s3 = false;
    else if (has_value && !std::strcmp(argv[i], "--commits")) o.commits = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--checkpoint")) o.checkpoint = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--adds")) o.adds = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--rounds")) o.rounds = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--posix")) o.posix_dir = argv[++i];
    else if (has_value && !std::strcmp(argv[i], "--get-latency-ms")) {
      o.get_latency_ms = std::atoi(argv[++i]);
    } else if (has_value && !std::strcmp(argv[i], "--concurrent-reads")) {
      o.concurrent_reads = std::atoi(argv[++i]);
    }
    else {
      std::fprintf(stderr, "unknown or incomplete option %s\n", argv[i]);
      std::exit(2);
    }
  }
  if (o.commits < 2 || o.checkpoint < 0 || o.checkpoint >= o.commits || o.rounds < 1 ||
      o.concurrent_reads < 1) {
    std::fprintf(stderr, "need --commits >= 2, 0 <= --checkpoint < --commits, --rounds >= 1, "
                 "--concurrent-reads >= 1\n");
    std::exit(2);
  }
  return o;
}

void DeleteAll(ObjectStore& store) {
  auto keys = store.List("");
  Check(keys.status(), "list for cleanup");
  for (const ObjectMeta& m : *keys) Check(store.Delete(m.key), "cleanup");
}

}  // namespace
}  // namespace deltacommit

int main(int argc, char** argv) {
  using namespace deltacommit;
  const Options o = Parse(argc, argv);
  auto parquet = DuckDbParquetHandler::Create();
  Check(parquet.status(), "DuckDB");
  std::printf("table: %d commits x %d adds, checkpoint at %d; best and median of %d rounds; "
              "%d ms added to each GET\n",
              o.commits, o.adds, o.checkpoint, o.rounds, o.get_latency_ms);

  std::filesystem::remove_all(o.posix_dir);
  {
    PosixObjectStore posix(o.posix_dir);
    BuildTable(posix, **parquet, o);
    Measure("local", posix, **parquet, o, 1);
  }
  std::filesystem::remove_all(o.posix_dir);

  if (!o.s3) return 0;
  if (auto why = testing::S3Unavailable()) {
    std::printf("s3     skipped: %s\n", why->c_str());
    return 0;
  }
  testing::S3TestStore s3 = testing::NewS3TestStore("last-checkpoint-bench");
  BuildTable(*s3.store, **parquet, o);
  Measure("s3", *s3.store, **parquet, o, o.concurrent_reads);
  DeleteAll(*s3.store);
  return 0;
}
