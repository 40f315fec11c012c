#include "snapshot_load/scaling.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/checkpoint.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/memory_object_store.h"
#include "snapshot_load/log_gen.h"

namespace deltacommit::bench {
namespace {

void Check(const Status& st, const std::string& what) {
  if (st.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what.c_str(), st.ToString().c_str());
  std::exit(1);
}

// The latest checkpoint a Delta writer with the default
// delta.checkpointInterval (10) leaves in a log of versions 0..commits-1:
// it checkpoints after committing each multiple of the interval, so a
// reader reads that checkpoint and 0 to 9 commits after it (9 here, the
// lengths being multiples of 10: the worst case).
Version LatestCheckpoint(int commits) {
  return (commits - 1) / kDefaultCheckpointInterval * kDefaultCheckpointInterval;
}

// One log of `commits` versions on one store, checkpointed or never.
struct Table {
  const char* store_name = "";
  int commits = 0;
  int adds = 0;  // per commit
  const std::vector<std::string>* log = nullptr;
  Version checkpoint = -1;      // -1: never checkpointed
  double checkpoint_bytes = 0;  // the Parquet file
  double json_bytes_read = 0;   // the commits after the checkpoint (all without one)
  double log_json_bytes = 0;    // every commit
  std::unique_ptr<ObjectStore> store;
  std::vector<double> load_s, raw_s;
  std::vector<double> checkpoint_read_s;   // ReadCheckpoint alone
  std::vector<double> checkpoint_write_s;  // the checkpoint written again
  // Loads through the checkpoint applied in batches as it is read, and
  // applied once all of it is read (as loads did before): time, peak heap.
  std::vector<double> batched_s, at_once_s;
  std::vector<double> batched_peak, at_once_peak;
  int64_t checkpoint_rows = 0;            // actions in the checkpoint

  size_t FirstCommitRead() const { return static_cast<size_t>(checkpoint + 1); }
};

// Puts the commits into the store (for a local directory `posix_root`,
// written as plain files: the store's Put fsyncs each file and its folder,
// which would make 30,000 commits take minutes to lay out and is not what
// is measured), then the checkpoint and `_last_checkpoint` through the
// checkpoint writer.
Table Build(const char* store_name, std::unique_ptr<ObjectStore> store,
            const std::string& posix_root, int commits, bool checkpointed,
            const std::vector<std::string>& log, ParquetHandler& parquet) {
  Table t;
  t.store_name = store_name;
  t.commits = commits;
  t.log = &log;
  t.store = std::move(store);
  if (!posix_root.empty())
    std::filesystem::create_directories(posix_root + "/" + std::string(kLogDir));
  for (int v = 0; v < commits; ++v) {
    const std::string& commit = log[static_cast<size_t>(v)];
    if (posix_root.empty()) {
      Check(t.store->Put(CommitPath(v), commit), "put commit");
      continue;
    }
    std::ofstream file(posix_root + "/" + CommitPath(v), std::ios::binary);
    if (!file.write(commit.data(), static_cast<std::streamsize>(commit.size())) || !file.flush()) {
      Check(InternalError("cannot write " + posix_root + "/" + CommitPath(v)), "write commit");
    }
  }
  if (checkpointed) {
    t.checkpoint = LatestCheckpoint(commits);
    ObjectStoreLogStore log_store(*t.store, store_name);
    auto snapshot = LoadSnapshot(log_store, SnapshotRequest{t.checkpoint, nullptr, nullptr});
    Check(snapshot.status(), "snapshot for the checkpoint");
    auto info = WriteCheckpoint(*t.store, parquet, **snapshot, SystemClock());
    Check(info.status(), "checkpoint");
    t.checkpoint_bytes = static_cast<double>(info->size_in_bytes);
    t.checkpoint_rows = info->size;
  }
  for (int v = 0; v < commits; ++v) {
    const double size = static_cast<double>(log[static_cast<size_t>(v)].size());
    t.log_json_bytes += size;
    if (v > t.checkpoint) t.json_bytes_read += size;
  }
  return t;
}

// LoadSnapshot as the CLI calls it (with the checkpoint reader, so a table
// never checkpointed pays the `_last_checkpoint` GET that finds nothing).
double LoadSeconds(const Table& t, ParquetHandler& parquet) {
  ObjectStoreLogStore log(*t.store, t.store_name);
  auto start = std::chrono::steady_clock::now();
  auto snapshot = LoadSnapshot(log, SnapshotRequest{std::nullopt, &parquet, t.store.get()});
  const double s = SecondsSince(start);
  Check(snapshot.status(), "load");
  const size_t files = static_cast<size_t>(t.commits) * static_cast<size_t>(t.adds);
  if ((*snapshot)->version() != t.commits - 1 || (*snapshot)->active_files().size() != files) {
    std::fprintf(stderr, "load of %d commits (%s): wrong snapshot\n", t.commits, t.store_name);
    std::exit(1);
  }
  return s;
}

// The checkpoint reader's share of a load: the port call a load makes,
// which returns the checkpoint's actions (DuckDB reads the Parquet file).
double CheckpointReadSeconds(const Table& t, ParquetHandler& parquet) {
  auto start = std::chrono::steady_clock::now();
  auto actions = parquet.ReadCheckpoint(*t.store, {ClassicCheckpointPath(t.checkpoint)});
  const double s = SecondsSince(start);
  Check(actions.status(), "read checkpoint");
  return s;
}

// What WriteCheckpoint does but for `_last_checkpoint`, timed: the
// checkpoint's actions made from the snapshot (loaded untimed), and the
// port call that writes them (to a scratch key, removed after).
double CheckpointWriteSeconds(const Table& t, ParquetHandler& parquet) {
  ObjectStoreLogStore log(*t.store, t.store_name);
  auto snapshot = LoadSnapshot(log, SnapshotRequest{t.checkpoint, nullptr, nullptr});
  Check(snapshot.status(), "snapshot for the checkpoint");
  const std::string key = "_scratch/checkpoint.parquet";  // outside the log
  auto start = std::chrono::steady_clock::now();
  auto actions = CheckpointActions(**snapshot, SystemClock().NowMillis());
  Check(actions.status(), "checkpoint actions");
  auto written = parquet.WriteCheckpoint(*t.store, key, *actions);
  const double s = SecondsSince(start);
  Check(written.status(), "write checkpoint");
  Check(t.store->Delete(key), "remove the scratch checkpoint");
  return s;
}

// Samples the heap whenever a batch of the checkpoint's actions arrives,
// before and after it is applied: the most a load holds is there (the
// files so far and the batch). With `at_once`, the port's default hands
// the whole checkpoint over as one batch, as loads did before batches.
class HeapSampling : public ForwardingParquetHandler {
 public:
  HeapSampling(ParquetHandler& base, bool at_once)
      : ForwardingParquetHandler(base), at_once_(at_once) {}

  Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                 const ActionBatch& apply) override {
    const ActionBatch sampled = [&](std::vector<Action>& actions) {
      peak = std::max(peak, HeapInUse());
      const Status applied = apply(actions);
      peak = std::max(peak, HeapInUse());
      return applied;
    };
    return at_once_ ? ParquetHandler::ReadCheckpointInBatches(store, keys, sampled)
                    : ForwardingParquetHandler::ReadCheckpointInBatches(store, keys, sampled);
  }

  double peak = 0;

 private:
  const bool at_once_;
};

// A load through the checkpoint: its time and its peak heap above the
// heap before it.
std::pair<double, double> SampledLoad(const Table& t, ParquetHandler& parquet, bool at_once) {
  malloc_trim(0);
  const double before = HeapInUse();
  HeapSampling sampling(parquet, at_once);
  sampling.peak = before;
  const double s = LoadSeconds(t, sampling);
  return {s, sampling.peak - before};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One row: the log never checkpointed (every commit read: time, MB/s of
// JSON, raw parse of it) and checkpointed (the checkpoint and the commits
// after it read: time, the checkpoint reader's part of it timed alone, raw
// parse of those commits), and the ratio.
void PrintRow(const Table& plain, const Table& ckpt, std::FILE* data) {
  const double plain_load = Median(plain.load_s), ckpt_load = Median(ckpt.load_s);
  const double plain_raw = Median(plain.raw_s), ckpt_raw = Median(ckpt.raw_s);
  std::printf(
      "| %s | %d | %lld | %.2f | %.2f ms | %.0f MB/s | %.2f ms | %.1f | %lld | %.0f KB + %d | "
      "%.2f ms | %.2f ms | %.3f ms | %.0f | x%.2f |\n",
      plain.store_name, plain.commits, static_cast<long long>(plain.commits) * plain.adds,
      plain.log_json_bytes / 1e6, plain_load * 1e3, plain.json_bytes_read / plain_load / 1e6,
      plain_raw * 1e3, plain_load / plain_raw, static_cast<long long>(ckpt.checkpoint),
      ckpt.checkpoint_bytes / 1e3, ckpt.commits - 1 - static_cast<int>(ckpt.checkpoint),
      ckpt_load * 1e3, Median(ckpt.checkpoint_read_s) * 1e3, ckpt_raw * 1e3, ckpt_load / ckpt_raw,
      plain_load / ckpt_load);
  if (data != nullptr) {
    std::fprintf(data, "%s\t%d\t%lld\t%.4f\t%.4f\t%.4f\n", plain.store_name, plain.commits,
                 static_cast<long long>(plain.commits) * plain.adds, plain_load * 1e3,
                 ckpt_load * 1e3, plain_raw * 1e3);
  }
}

// The logs measured: (commits, adds per commit) each.
struct Shape {
  int commits = 0;
  int adds = 0;
  friend auto operator<=>(const Shape&, const Shape&) = default;
};

std::vector<Shape> Shapes(const ScalingOptions& o) {
  std::vector<Shape> shapes;
  if (o.files.empty()) {
    for (int n : o.lengths) shapes.push_back({n, o.adds});
  } else {
    for (int f : o.files) shapes.push_back({kFilesSweepCommits, f / kFilesSweepCommits});
  }
  // In ascending order, each once (two counts may round to one shape).
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  return shapes;
}

}  // namespace

int RunScaling(const ScalingOptions& o) {
  auto parquet = DuckDbParquetHandler::Create();
  Check(parquet.status(), "DuckDB");
  const std::vector<Shape> shapes = Shapes(o);
  auto start = std::chrono::steady_clock::now();
  // One log per number of adds, as long as the longest that needs it.
  std::map<int, std::vector<std::string>> logs;
  for (const Shape& shape : shapes) {
    std::vector<std::string>& log = logs[shape.adds];
    for (int v = static_cast<int>(log.size()); v < shape.commits; ++v) {
      log.push_back(BenchCommit(v, shape.adds));
    }
  }
  std::filesystem::remove_all(o.posix_dir);
  std::vector<Table> tables;  // pairs: never checkpointed, then checkpointed
  for (bool posix : {false, true}) {
    if (!posix && !o.memory) continue;
    const char* store_name = posix ? "posix" : "memory";
    for (const Shape& shape : shapes) {
      for (bool checkpointed : {false, true}) {
        std::unique_ptr<ObjectStore> store;
        std::string root;
        if (posix) {
          root = o.posix_dir + "/" + std::to_string(shape.commits) + "x" +
                 std::to_string(shape.adds) + (checkpointed ? "-checkpoint" : "-plain");
          store = std::make_unique<PosixObjectStore>(root);
        } else {
          store = std::make_unique<MemoryObjectStore>();
        }
        tables.push_back(Build(store_name, std::move(store), root, shape.commits, checkpointed,
                               logs[shape.adds], **parquet));
        tables.back().adds = shape.adds;
      }
    }
  }
  if (o.files.empty()) {
    std::printf(
        "scaling: logs of up to %d commits x %d adds, generated with their checkpoints "
        "in %.1f s; median of %d interleaved rounds\n",
        shapes.back().commits, o.adds, SecondsSince(start), o.rounds);
  } else {
    std::printf(
        "scaling: logs of %d commits holding up to %d active files, generated with their "
        "checkpoints in %.1f s; median of %d interleaved rounds\n",
        kFilesSweepCommits, shapes.back().commits * shapes.back().adds, SecondsSince(start),
        o.rounds);
  }

  // Interleaved, so noise hits every case alike. A small table is loaded
  // once uncounted before it is measured: the first load after a large
  // snapshot or checkpoint read (DuckDB's threads still releasing its
  // memory, the heap growing back) measured 5-20x its time.
  for (int r = 0; r < o.rounds; ++r) {
    for (Table& t : tables) {
      if (static_cast<int64_t>(t.commits) * t.adds < 10'000) LoadSeconds(t, **parquet);
      t.load_s.push_back(LoadSeconds(t, **parquet));
      t.raw_s.push_back(
          RawParseSeconds(*t.log, t.FirstCommitRead(), static_cast<size_t>(t.commits)));
      if (t.checkpoint >= 0) {
        t.checkpoint_read_s.push_back(CheckpointReadSeconds(t, **parquet));
        t.checkpoint_write_s.push_back(CheckpointWriteSeconds(t, **parquet));
        // Each way first in every other round: the first load after the
        // checkpoint write above runs slower.
        for (bool at_once : {r % 2 == 1, r % 2 == 0}) {
          const auto [s, peak] = SampledLoad(t, **parquet, at_once);
          (at_once ? t.at_once_s : t.batched_s).push_back(s);
          (at_once ? t.at_once_peak : t.batched_peak).push_back(peak);
        }
      }
    }
  }

  std::FILE* data = nullptr;
  if (!o.data_path.empty()) {
    data = std::fopen(o.data_path.c_str(), "w");
    if (data == nullptr) Check(InternalError("cannot write " + o.data_path), "--data");
  }
  std::printf(
      "| store | commits | active files | log MB | no checkpoint: load | MB/s | raw simdjson | "
      "load/raw "
      "| checkpoint at | read: checkpoint + commits | with checkpoint: load "
      "| of which ReadCheckpoint | raw simdjson | load/raw | without/with |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i + 1 < tables.size(); i += 2) PrintRow(tables[i], tables[i + 1], data);
  if (data != nullptr) std::fclose(data);
  std::printf(
      "\nCheckpoints written (the snapshot's actions, then WriteCheckpoint of the port) "
      "and read (ReadCheckpoint), medians:\n\n| store | checkpoint at | rows | write ms | "
      "write rows/s | read ms | read rows/s | write/read time |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Table& t : tables) {
    if (t.checkpoint < 0) continue;
    const double read_s = Median(t.checkpoint_read_s);
    const double write_s = Median(t.checkpoint_write_s);
    const auto rows = static_cast<double>(t.checkpoint_rows);
    std::printf("| %s | %lld | %lld | %.2f | %.0f | %.2f | %.0f | x%.2f |\n", t.store_name,
                static_cast<long long>(t.checkpoint), static_cast<long long>(t.checkpoint_rows),
                write_s * 1e3, rows / write_s, read_s * 1e3, rows / read_s, write_s / read_s);
  }
  std::printf(
      "\nLoads through the checkpoint, its actions applied in batches as they are read "
      "(ReadCheckpointInBatches) or once all are read; peak heap above the heap before the "
      "load, sampled at each batch; medians:\n\n| store | active files | batches: load ms | "
      "peak MB | bytes a file | all at once: load ms | peak MB | bytes a file | "
      "peak at once / in batches |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Table& t : tables) {
    if (t.checkpoint < 0) continue;
    const double files = static_cast<double>(t.commits) * t.adds;
    const double batched = Median(t.batched_peak), at_once = Median(t.at_once_peak);
    std::printf("| %s | %.0f | %.2f | %.1f | %.0f | %.2f | %.1f | %.0f | x%.2f |\n",
                t.store_name, files, Median(t.batched_s) * 1e3, batched / 1e6, batched / files,
                Median(t.at_once_s) * 1e3, at_once / 1e6, at_once / files, at_once / batched);
  }
  std::filesystem::remove_all(o.posix_dir);
  return 0;
}

}  // namespace deltacommit::bench
