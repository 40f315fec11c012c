// Snapshot replay of N adds: LoadSnapshot of an in-memory log (list, read,
// parse, replay), and LogReplay alone over actions already parsed.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/memory_object_store.h"
#include "snapshot_load/log_gen.h"

namespace deltacommit {
namespace {

constexpr int kAddsPerCommit = 100;

int Commits(const benchmark::State& state) {
  return static_cast<int>(state.range(0)) / kAddsPerCommit;
}

void BM_LoadSnapshotMemory(benchmark::State& state) {
  MemoryObjectStore store;
  int64_t bytes = 0;
  for (int v = 0; v < Commits(state); ++v) {
    const std::string commit = bench::BenchCommit(v, kAddsPerCommit);
    bytes += static_cast<int64_t>(commit.size());
    if (!store.Put(CommitPath(v), commit).ok()) std::abort();
  }
  ObjectStoreLogStore log(store, "memory");
  for (auto _ : state) {
    auto snapshot = LoadSnapshot(log, {});
    if (!snapshot.ok() ||
        static_cast<int64_t>((*snapshot)->active_files().size()) != state.range(0)) {
      state.SkipWithError(("load: " + snapshot.status().ToString()).c_str());
      break;
    }
    benchmark::DoNotOptimize(snapshot);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// The replay step alone: the actions are parsed once, and copied for each
// iteration with the timer paused (Apply consumes them).
void BM_ReplayAdds(benchmark::State& state) {
  ActionParser parser;
  std::vector<std::vector<Action>> log;
  for (int v = 0; v < Commits(state); ++v) {
    auto actions = parser.ParseCommit(bench::BenchCommit(v, kAddsPerCommit));
    if (!actions.ok()) std::abort();
    log.push_back(std::move(*actions));
  }
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::vector<Action>> copy = log;
    state.ResumeTiming();
    LogReplay replay;
    Status applied = OkStatus();
    for (size_t v = 0; v < copy.size() && applied.ok(); ++v) {
      applied = replay.Apply(static_cast<Version>(v), std::move(copy[v]));
    }
    auto snapshot = replay.Finish();
    if (!applied.ok() || !snapshot.ok()) {
      state.SkipWithError(
          ("replay: " + (applied.ok() ? snapshot.status() : applied).ToString()).c_str());
      break;
    }
    benchmark::DoNotOptimize(snapshot);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// A warm writer's step: the snapshot it holds (N active files) carried
// forward by one commit of one add, as Table::Commit applies its own commit
// and UpdateSnapshot applies another writer's. Each iteration carries the
// previous one's result forward, as a long-lived writer does.
void BM_CarryForwardOneCommit(benchmark::State& state) {
  ActionParser parser;
  LogReplay first;
  Version version = 0;
  for (int v = 0; v < Commits(state); ++v, ++version) {
    auto actions = parser.ParseCommit(bench::BenchCommit(v, kAddsPerCommit));
    if (!actions.ok() || !first.Apply(version, std::move(*actions)).ok()) std::abort();
  }
  auto held = first.Finish();
  if (!held.ok()) std::abort();
  std::shared_ptr<const Snapshot> snapshot = *held;
  for (auto _ : state) {
    state.PauseTiming();
    auto actions = parser.ParseCommit(bench::BenchCommit(static_cast<int>(version) + 1'000'000, 1));
    if (!actions.ok()) std::abort();
    state.ResumeTiming();
    LogReplay replay(*snapshot);
    auto next = replay.Apply(version++, std::move(*actions)).ok()
                    ? replay.Finish()
                    : StatusOr<std::shared_ptr<const Snapshot>>(InternalError("apply"));
    if (!next.ok()) {
      state.SkipWithError(next.status().ToString().c_str());
      break;
    }
    snapshot = *next;
  }
  state.counters["files"] = static_cast<double>(snapshot->active_files().size());
}

// A held snapshot of 10,000 files carried forward by one large commit of
// N adds (a bulk load read by UpdateSnapshot, or applied by its writer).
void BM_ApplyLargeCommitToHeldSnapshot(benchmark::State& state) {
  ActionParser parser;
  LogReplay first;
  for (int v = 0; v < 100; ++v) {
    auto actions = parser.ParseCommit(bench::BenchCommit(v, kAddsPerCommit));
    if (!actions.ok() || !first.Apply(v, std::move(*actions)).ok()) std::abort();
  }
  auto held = first.Finish();
  auto large = parser.ParseCommit(bench::BenchCommit(100, static_cast<int>(state.range(0))));
  if (!held.ok() || !large.ok()) std::abort();
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Action> copy = *large;
    state.ResumeTiming();
    LogReplay replay(**held);
    auto next = replay.Apply(100, std::move(copy)).ok()
                    ? replay.Finish()
                    : StatusOr<std::shared_ptr<const Snapshot>>(InternalError("apply"));
    if (!next.ok()) {
      state.SkipWithError(next.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(next);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

BENCHMARK(BM_LoadSnapshotMemory)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayAdds)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CarryForwardOneCommit)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ApplyLargeCommitToHeldSnapshot)
    ->Arg(1000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace deltacommit
