// deltacommit: safe multi-writer commits for Delta Lake tables.
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "shared/output.h"

namespace {

constexpr const char* kFooter = R"(
Exit codes:
  0  success
  1  error (I/O, store or internal failure); `doctor`: a check failed
  2  bad usage or invalid input
  3  the commit conflicts with a concurrent commit (nothing was written)
  4  `check` found problems in the log; `dynamodb status` found entries to
     repair; `dynamodb repair` found lost content
  5  no table at that location, or no such version

TABLE is a local directory, a file:// URI, or s3://bucket/path (also s3a://, s3n://).
S3 settings come from the AWS environment variables and profiles, or the options.)";

// CLI11 answers an unknown command with "A subcommand is required", which
// does not name it; this names it and the commands there are. -1 when
// argv[1] is an option or a command.
int RefuseUnknownCommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return -1;
  const std::string given = argv[1];
  std::string names;
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    if (command->get_name() == given) return -1;
    if (command->get_group().empty()) continue;  // hidden
    names += (names.empty() ? "" : ", ") + command->get_name();
  }
  std::cerr << "error: unknown command \"" << given << "\" (commands: " << names
            << "; see --help)\n";
  return deltacommit::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"deltacommit: safe concurrent commits to Delta Lake tables"};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.set_version_flag("--version", "deltacommit 0.1.0");
  int exit_code = deltacommit::cli::kExitOk;
  deltacommit::cli::RegisterCreate(app, &exit_code);
  deltacommit::cli::RegisterCommit(app, &exit_code);
  deltacommit::cli::RegisterAppend(app, &exit_code);
  deltacommit::cli::RegisterDelete(app, &exit_code);
  deltacommit::cli::RegisterQuery(app, &exit_code);
  deltacommit::cli::RegisterCheckpoint(app, &exit_code);
  deltacommit::cli::RegisterSnapshot(app, &exit_code);
  deltacommit::cli::RegisterHistory(app, &exit_code);
  deltacommit::cli::RegisterCheck(app, &exit_code);
  deltacommit::cli::RegisterDynamoDb(app, &exit_code);
  deltacommit::cli::RegisterDoctor(app, &exit_code);
  deltacommit::cli::RegisterDemo(app, &exit_code, argv[0]);
  deltacommit::cli::RegisterServe(app, &exit_code);
  deltacommit::cli::RegisterBench(app, &exit_code, argv[0]);
  if (int rc = RefuseUnknownCommand(app, argc, argv); rc >= 0) return rc;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : deltacommit::cli::kExitBadInput;
  }
  return exit_code;
}
