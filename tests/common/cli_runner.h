// Runs the deltacommit CLI as a child process, for integration tests.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace deltacommit::testing {

struct CliResult {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;     // stdout
  std::string err;     // stderr
};

// The CLI under test: $DELTACOMMIT_CLI if set, else the one this build made.
std::string CliPath();

// The whole content of the file at `path` ("" when it cannot be read).
std::string Slurp(const std::string& path);

// Runs the CLI with `args`, feeding `stdin_data`, and waits for it.
CliResult RunCli(const std::vector<std::string>& args, const std::string& stdin_data = {});

// Runs `program` (a path, not looked up in PATH) the same way, with this
// process's environment.
CliResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                     const std::string& stdin_data = {});

// One `add` action line (size 100, no partition values) for `commit --actions -`.
std::string AddLine(const std::string& path);

// Starts the CLI in the background with stdout/stderr to /dev/null.
pid_t StartCli(const std::vector<std::string>& args);

}  // namespace deltacommit::testing
