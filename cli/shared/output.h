// Exit codes and printing shared by the CLI commands.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "deltacommit/actions.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit::cli {

// Documented in `deltacommit --help` and the README.
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,        // I/O, store or internal failure
  kExitBadInput = 2,     // bad usage or invalid input
  kExitConflict = 3,     // the commit conflicts with a concurrent commit
  kExitUnsound = 4,      // `check` found problems in the log; `dynamodb status` or
                         // `repair`: entries that need repair (or cannot be repaired)
  kExitNotFound = 5,     // no table, or no such version
};

// Prints "error: <message>" to stderr and returns the exit code for it.
int ReportError(const Status& status);
int ExitCodeFor(const Status& status);

// An action's body as JSON (e.g. the object inside {"protocol": {...}}).
nlohmann::ordered_json ActionBody(const Action& action);

// The `snapshot --json` object.
nlohmann::ordered_json SnapshotJson(const Snapshot& snapshot, bool with_files);

}  // namespace deltacommit::cli
