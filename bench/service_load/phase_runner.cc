#include "service_load/phase_runner.h"

#include <algorithm>
#include <cstdio>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_conditional_log_store.h"
#include "service_load/table_check.h"
#include "service_load/table_store.h"

namespace deltacommit::bench {
namespace {

// `count` new tables under `prefix`, each with version 0 written.
StatusOr<std::vector<std::string>> CreateTables(const std::string& prefix,
                                                const std::string& phase,
                                                int count) {
  std::vector<std::string> tables;
  for (int i = 0; i < count; ++i) {
    tables.push_back(prefix + "/" + phase + "-t" + std::to_string(i));
    DC_ASSIGN_OR_RETURN(TableStore store, OpenTableStore(tables.back()));
    Status created =
        store.store->PutIfAbsent(CommitPath(0), CreateTableContent());
    if (!created.ok()) return created.WithContext("creating " + tables.back());
  }
  return tables;
}

// Checks each table's log against what its committers were told; prints
// the verdict; false on any problem. Deletes the tables unless `keep`.
bool CheckLogs(const std::string& phase, const std::vector<std::string>& tables,
               const LoadRun& run, bool keep) {
  int64_t commits = 0, staged = 0, problems = 0;
  for (const std::string& table : tables) {
    Acknowledged acknowledged;
    int64_t abandoned = 0;
    for (const CommitterResult& c : run.committers) {
      if (c.table != table) continue;
      abandoned += c.abandoned;
      for (const auto& [seq, version] : c.commits)
        acknowledged[{c.id, seq}] = version;
    }
    TableCheck check = CheckTableLog(table, acknowledged, abandoned);
    commits += std::max<int64_t>(0, check.commit_files - 1);
    staged += check.staged_left;
    for (size_t i = 0; i < check.problems.size() && i < 5; ++i) {
      std::printf("  !!!!! %s: %s\n", table.c_str(), check.problems[i].c_str());
    }
    problems += static_cast<int64_t>(check.problems.size());
    if (!keep) DeleteTable(table);
  }
  std::printf(
      "log check, %s: %zu tables, %lld commits; versions contiguous from 0, "
      "every acknowledged commit exactly once at its version: %s (%lld "
      "staged objects left)\n",
      phase.c_str(), tables.size(), static_cast<long long>(commits),
      problems == 0 ? "OK" : "FAILED", static_cast<long long>(staged));
  if (problems > 0)
    std::printf("!!!!! %lld problems in the logs !!!!!\n",
                static_cast<long long>(problems));
  return problems == 0;
}

// The s3-conditional store proves once per bucket that If-None-Match is
// enforced; done before the clock starts.
void WarmUpConditionalProbe(const std::string& table) {
  StatusOr<TableStore> store = OpenTableStore(table);
  if (!store.ok()) return;
  S3ConditionalLogStore log(*store->store,
                            store->store->config().service.endpoint_url,
                            store->store->config().bucket);
  log.VerifyConditionalPut().IgnoreError();
}

}  // namespace

PhaseSummary PhaseRunner::Run(const std::string& name, const std::string& id,
                              int table_count, Method method) {
  const bool direct = method == Method::kDirect;
  StatusOr<std::vector<std::string>> created =
      CreateTables(prefix, id, table_count);
  if (!created.ok()) {
    std::printf("!!!!! %s: %s\n", name.c_str(),
                created.status().ToString().c_str());
    ok = false;
    PhaseSummary nothing;
    nothing.name = name;
    return nothing;
  }
  const std::vector<std::string>& tables = *created;
  std::vector<std::string> assignment;
  for (int i = 0; i < committers; ++i) {
    assignment.push_back(tables[static_cast<size_t>(i % table_count)]);
  }
  CommitMethodFactory factory = [&](const std::string& table) {
    switch (method) {
      case Method::kDirect: return NewDirectCommitMethod(table);
      case Method::kAppend: return NewServiceAppendMethod(target, table);
      case Method::kService: break;
    }
    return NewServiceCommitMethod(target, table);
  };
  if (direct) WarmUpConditionalProbe(tables.front());
  const auto duration =
      std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  const CpuSample before = cpu != nullptr ? cpu->Sample() : CpuSample{};
  LoadRun run = RunCommitters(assignment, factory, duration, 1);
  PhaseSummary summary = Summarize(name, tables.size(), run);
  if (cpu != nullptr) summary.cpu = Between(before, cpu->Sample(), run.seconds);
  std::printf("%s: %lld commits in %.1f s\n", name.c_str(),
              static_cast<long long>(summary.commits), summary.seconds);
  ok = CheckLogs(name, tables, run, keep) && ok;
  ok = ok && summary.error_count() == 0 && summary.refusals == 0 &&
       summary.unpublished == 0;
  phases.push_back(summary);
  return summary;
}

}  // namespace deltacommit::bench
