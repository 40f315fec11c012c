// What `dynamodb status` concludes from what it saw: warnings (the table
// works, but something is off) and problems (something needs repair or a
// person). Pure functions over the states of dynamodb/inspect.h.
#pragma once

#include <string>
#include <vector>

#include "dynamodb/inspect.h"

namespace deltacommit::cli {

struct Findings {
  std::vector<std::string> warnings;
  std::vector<std::string> problems;  // non-empty: not healthy
};

Findings Assess(const std::string& table_path, const DeltaLogTableState& table,
                const EntriesState& entries);

// The `aws dynamodb delete-item` command that removes one entry: the way to
// unblock a table whose latest entry lost its content.
std::string DeleteEntryCommand(const std::string& dynamodb_table, const std::string& table_path,
                               const std::string& file_name);

}  // namespace deltacommit::cli
