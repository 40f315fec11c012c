// Conflict checking of one transaction against N winning commits, as a
// commit that lost the race for its version does before it rebases (each
// winner is checked in turn; none conflicts, so every one is read in full).
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "deltacommit/conflict.h"

namespace deltacommit {
namespace {

constexpr int kAddsPerWinner = 8;
constexpr int kRemovesPerWinner = 2;

AddFile Add(const std::string& date, const std::string& name) {
  AddFile a;
  a.path = "date=" + date + "/" + name + ".c000.snappy.parquet";
  a.partition_values["date"] = date;
  a.size = 8388608;
  a.modification_time = 1705312800000;
  a.stats = R"({"numRecords":250000})";
  return a;
}

RemoveFile Remove(const std::string& date, const std::string& name) {
  RemoveFile r;
  r.path = "date=" + date + "/" + name + ".c000.snappy.parquet";
  r.deletion_timestamp = 1705312800000;
  return r;
}

// Winner i: an append (or a compaction, every other one) in another
// partition than the one the transaction read.
std::vector<Action> Winner(int i, bool blind_append) {
  const std::string date = "2024-02-" + std::to_string(10 + i % 18);
  std::vector<Action> actions;
  CommitInfo info;
  info.operation = blind_append ? "WRITE" : "OPTIMIZE";
  info.is_blind_append = blind_append;
  actions.emplace_back(info);
  for (int k = 0; k < kAddsPerWinner; ++k) {
    actions.emplace_back(Add(date, "part-w" + std::to_string(i) + "-" + std::to_string(k)));
  }
  for (int k = 0; !blind_append && k < kRemovesPerWinner; ++k) {
    actions.emplace_back(Remove(date, "part-old" + std::to_string(i) + "-" + std::to_string(k)));
  }
  return actions;
}

// range(0) winners; range(1) 1: the current transaction is a blind append,
// 0: a Serializable MERGE-like update of partition 2024-01-15 (read
// predicate, 50 files read, 2 removed, 2 added), which checks every add of
// every winner against its predicate and every remove against its reads.
void BM_CheckConflict(benchmark::State& state) {
  const bool blind = state.range(1) == 1;
  std::vector<std::vector<Action>> winners;
  for (int i = 0; i < state.range(0); ++i) winners.push_back(Winner(i, blind || i % 2 == 0));

  ReadSet read;
  std::vector<Action> actions;
  if (!blind) {
    read.predicates.push_back({PartitionFilter{"date", {std::string("2024-01-15")}}});
    for (int k = 0; k < 50; ++k) {
      read.files.insert("date=2024-01-15/part-" + std::to_string(k) + ".c000.snappy.parquet");
    }
    actions.emplace_back(Remove("2024-01-15", "part-0"));
    actions.emplace_back(Remove("2024-01-15", "part-1"));
  }
  actions.emplace_back(Add("2024-01-15", "part-new-0"));
  actions.emplace_back(Add("2024-01-15", "part-new-1"));
  CurrentTransaction current;
  current.read = &read;
  current.actions = &actions;
  current.is_blind_append = blind;
  current.table_partitioned = true;
  current.isolation_level =
      blind ? IsolationLevel::kWriteSerializable : IsolationLevel::kSerializable;

  std::optional<Conflict> conflict;
  for (auto _ : state) {
    for (size_t i = 0; i < winners.size() && !conflict; ++i) {
      conflict = CheckConflict(current, static_cast<Version>(i + 1), winners[i]);
    }
    if (conflict) {
      state.SkipWithError(("unexpected conflict: " + conflict->Describe()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

BENCHMARK(BM_CheckConflict)
    ->ArgNames({"winners", "blind"})
    ->ArgsProduct({{1, 10, 100, 1000}, {0, 1}});

}  // namespace
}  // namespace deltacommit
