// The subcommands of `deltacommit dynamodb` (registered by RegisterDynamoDb
// on its group): each callback stores the exit code in `*exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace deltacommit::cli {

void RegisterDynamoDbStatus(CLI::App& group, int* exit_code);
void RegisterDynamoDbRepair(CLI::App& group, int* exit_code);

}  // namespace deltacommit::cli
