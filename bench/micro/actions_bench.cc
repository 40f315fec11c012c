// Action JSON (parse and write one line, parse a commit) and log file name
// parsing: the per-action and per-listed-key costs of every snapshot load.
#include <benchmark/benchmark.h>

#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "snapshot_load/log_gen.h"

namespace deltacommit {
namespace {

// An add as Spark writes it for a partitioned table: partition values, a
// stats string of three columns, a tag.
constexpr std::string_view kAddLine =
    R"({"add":{"path":"date=2024-01-15/region=eu/part-00003-1f0c6a7e-9f52-4b8e-a3c1-)"
    R"(6d2e4b7a9c10.c000.snappy.parquet","partitionValues":{"date":"2024-01-15",)"
    R"("region":"eu"},"size":8388608,"modificationTime":1705312800000,"dataChange":true,)"
    R"("stats":"{\"numRecords\":250000,\"minValues\":{\"id\":1,\"name\":\"aaron\",)"
    R"(\"ts\":\"2024-01-15T00:00:00.000Z\"},\"maxValues\":{\"id\":250000,\"name\":)"
    R"(\"zoe\",\"ts\":\"2024-01-15T23:59:59.999Z\"},\"nullCount\":{\"id\":0,\"name\":)"
    R"(12,\"ts\":0}}","tags":{"INSERTION_TIME":"1705312800000000"}}})";

// A commitInfo as Spark writes it for an append (operationMetrics is kept
// verbatim as an unknown field).
constexpr std::string_view kCommitInfoLine =
    R"({"commitInfo":{"timestamp":1705312800123,"operation":"WRITE","operationParameters":)"
    R"({"mode":"Append","partitionBy":"[\"date\",\"region\"]"},"readVersion":41,)"
    R"("isolationLevel":"Serializable","isBlindAppend":true,"operationMetrics":)"
    R"({"numFiles":"4","numOutputRows":"1000000","numOutputBytes":"33554432"},)"
    R"("engineInfo":"Apache-Spark/3.5.0 Delta-Lake/3.1.0","txnId":)"
    R"("0b7c2f3e-5d1a-4c8b-9e6f-2a4d8c1b7e90"}})";

void ParseLine(benchmark::State& state, std::string_view line) {
  ActionParser parser;
  for (auto _ : state) {
    auto action = parser.ParseLine(line);
    if (!action.ok()) {
      state.SkipWithError(action.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(action);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(line.size()));
}

void BM_ParseAddLine(benchmark::State& state) { ParseLine(state, kAddLine); }
void BM_ParseCommitInfoLine(benchmark::State& state) { ParseLine(state, kCommitInfoLine); }

void WriteLine(benchmark::State& state, std::string_view line) {
  ActionParser parser;
  auto action = parser.ParseLine(line);
  if (!action.ok()) {
    state.SkipWithError(action.status().ToString().c_str());
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = ActionToJson(*action);
    bytes += json.size();
    benchmark::DoNotOptimize(json);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_WriteAdd(benchmark::State& state) { WriteLine(state, kAddLine); }
void BM_WriteCommitInfo(benchmark::State& state) { WriteLine(state, kCommitInfoLine); }

// A whole commit file of range(0) adds (the snapshot benchmarks' log).
void BM_ParseCommit(benchmark::State& state) {
  const std::string commit = bench::BenchCommit(1, static_cast<int>(state.range(0)));
  ActionParser parser;
  for (auto _ : state) {
    auto actions = parser.ParseCommit(commit);
    if (!actions.ok()) {
      state.SkipWithError(actions.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(actions);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(commit.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * (state.range(0) + 1));
}

// The same with a new ActionParser per commit, as ReadCommit (snapshot.cc)
// makes one for every commit it reads: the difference is the parser's
// set-up, paid once per commit file of a replay.
void BM_ParseCommitNewParser(benchmark::State& state) {
  const std::string commit = bench::BenchCommit(1, static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ActionParser parser;
    auto actions = parser.ParseCommit(commit);
    if (!actions.ok()) {
      state.SkipWithError(actions.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(actions);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(commit.size()));
}

// The names a listing of _delta_log/ returns, one of each kind that occurs
// in a busy table (a commit most of all).
void BM_ParseLogPath(benchmark::State& state) {
  const std::vector<std::string> names = {
      "00000000000000001234.json",
      "00000000000000001230.checkpoint.parquet",
      "00000000000000001230.checkpoint.0000000002.0000000004.parquet",
      "00000000000000001234.crc",
      "_last_checkpoint",
      "_staged_commits/00000000000000001235.3f2a1c4e-8b7d-4e6f-9a0b-1c2d3e4f5a6b.json",
      "00000000000000001235.json",
      "00000000000000001236.json",
  };
  size_t recognised = 0;
  for (auto _ : state) {
    for (const std::string& name : names) {
      ParsedLogPath parsed = ParseLogPath(name);
      recognised += parsed.type != LogFileType::kUnrecognized;
      benchmark::DoNotOptimize(parsed);
    }
  }
  if (recognised != static_cast<size_t>(state.iterations()) * names.size()) {
    state.SkipWithError("a log file name was not recognised");
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(names.size()));
}

BENCHMARK(BM_ParseAddLine);
BENCHMARK(BM_ParseCommitInfoLine);
BENCHMARK(BM_WriteAdd);
BENCHMARK(BM_WriteCommitInfo);
BENCHMARK(BM_ParseCommit)->Arg(2)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_ParseCommitNewParser)->Arg(2)->Arg(100);
BENCHMARK(BM_ParseLogPath);

}  // namespace
}  // namespace deltacommit
