// Pieces of `deltacommit demo`: the table, the worker processes it starts
// (hidden subcommands demo-writer and demo-compactor), and the report.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "deltacommit/status.h"
#include "deltacommit/table/table_adapters.h"
#include "deltacommit/transaction.h"
#include "shared/self_process.h"  // RunSelf, SelfPath

namespace deltacommit::cli {

// Creates the demo's table, committing version 0 with `log_store`.
Status DemoCreateTable(const std::string& table, const std::string& log_store);
void RegisterDemoWorkers(CLI::App& app, int* exit_code);
// A commit's outcome as the demo's processes record it (one JSON line).
nlohmann::json DemoOutcomeJson(const CommitOutcome& outcome);
// The table's remote calls by kind so far (DELTACOMMIT_METER=1; empty
// without it).
std::map<std::string, int64_t> CallCounts(const TableAdapters& table);
// Completes `line` (one attempt of a demo process) with its start, its
// latency since `start` and the remote calls since `before`, and writes it.
void WriteAttemptLine(std::ostream& out, nlohmann::json line,
                      std::chrono::steady_clock::time_point start, int64_t start_ms,
                      const TableAdapters& table, const std::map<std::string, int64_t>& before);
// demo-primitive (demo/primitive.cc): the raw store primitive `bench` measures.
void RegisterDemoPrimitive(CLI::App& app, int* exit_code);
// demo-appender and demo-compactor (demo/appender.cc).
void RegisterDemoAppenders(CLI::App& app, int* exit_code);
// Prints history, per-writer outcomes and the verification; returns the exit
// code (0 only if every check passed).
int DemoReport(const std::string& self, const std::string& table, const std::string& dir,
               int writers, int commits, int rows);

}  // namespace deltacommit::cli
