// Each CLI command registers itself on the app; its callback stores the
// process exit code in `*exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace deltacommit::cli {

void RegisterCreate(CLI::App& app, int* exit_code);
void RegisterCommit(CLI::App& app, int* exit_code);
void RegisterAppend(CLI::App& app, int* exit_code);
void RegisterDelete(CLI::App& app, int* exit_code);
void RegisterQuery(CLI::App& app, int* exit_code);
void RegisterCheckpoint(CLI::App& app, int* exit_code);
void RegisterSnapshot(CLI::App& app, int* exit_code);
void RegisterHistory(CLI::App& app, int* exit_code);
void RegisterCheck(CLI::App& app, int* exit_code);
void RegisterDynamoDb(CLI::App& app, int* exit_code);
void RegisterDoctor(CLI::App& app, int* exit_code);
void RegisterDemo(CLI::App& app, int* exit_code, const char* self_path);
void RegisterServe(CLI::App& app, int* exit_code);
void RegisterBench(CLI::App& app, int* exit_code, const char* self_path);

}  // namespace deltacommit::cli
