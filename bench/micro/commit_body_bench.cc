// The commit service's strict parse of a POST /v1/commits body
// (deltacommit/service_wire/commit_body.h), for a service-mode commit of
// range(0) adds and for a coordinated-mode commit (a staged file's key, no
// actions). The bodies are the ones the client writes.
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/service_wire/commit_body.h"

namespace deltacommit::service_wire {
namespace {

CommitBody WithCredentials(CommitBody body) {
  body.table = "s3://bucket/tables/sales";
  body.version = 1234;
  body.credentials = RequestCredentials{"ASIAEXAMPLEKEY123456",
                                        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                        "FwoGZXIvYXdzEXAMPLE", "2030-01-02T03:04:05Z"};
  return body;
}

std::string ServiceModeActions(int adds) {
  std::vector<Action> actions;
  CommitInfo info;
  info.timestamp = 1705312800123;
  info.operation = "WRITE";
  info.is_blind_append = true;
  actions.emplace_back(info);
  for (int i = 0; i < adds; ++i) {
    AddFile a;
    a.path = "date=2024-01-15/part-" + std::to_string(i) + ".c000.snappy.parquet";
    a.partition_values["date"] = "2024-01-15";
    a.size = 8388608;
    a.modification_time = 1705312800000;
    a.stats = R"({"numRecords":250000,"minValues":{"id":1},"maxValues":{"id":250000}})";
    actions.emplace_back(std::move(a));
  }
  return ActionsToCommit(actions);
}

void Parse(benchmark::State& state, const std::string& body) {
  for (auto _ : state) {
    auto parsed = ParseCommitBody(body);
    if (!parsed.ok()) {
      state.SkipWithError(parsed.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(parsed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(body.size()));
}

void BM_ParseCommitBodyService(benchmark::State& state) {
  CommitBody body;
  body.actions = ServiceModeActions(static_cast<int>(state.range(0)));
  Parse(state, SerializeCommitBody(WithCredentials(std::move(body))));
}

void BM_ParseCommitBodyCoordinated(benchmark::State& state) {
  CommitBody body;
  body.staged_file =
      "_delta_log/_staged_commits/00000000000000001234.0b7c2f3e-5d1a-4c8b-9e6f-2a4d8c1b7e90.json";
  Parse(state, SerializeCommitBody(WithCredentials(std::move(body))));
}

BENCHMARK(BM_ParseCommitBodyService)->Arg(1)->Arg(100);
BENCHMARK(BM_ParseCommitBodyCoordinated);

}  // namespace
}  // namespace deltacommit::service_wire
