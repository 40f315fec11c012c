// `deltacommit serve --config FILE`: run the commit service (docs/api.md);
// `deltacommit serve hash-token`: the SHA-256 of a bearer token, for the
// config's [[token]] sha256.
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "commands.h"
#include "service/config/auth.h"
#include "service/process/service_process.h"
#include "shared/output.h"

namespace deltacommit::cli {
namespace {

struct ServeArgs {
  service::ServiceOptions options;
  std::string log_level = "info";
};

StatusOr<http::LogLevel> ParseLogLevel(const std::string& name) {
  for (http::LogLevel level : {http::LogLevel::kDebug, http::LogLevel::kInfo,
                               http::LogLevel::kWarn, http::LogLevel::kError}) {
    if (name == http::LogLevelName(level)) return level;
  }
  return InvalidArgumentError("--log-level " + name + ": use debug, info, warn or error");
}

// The service's exit codes as the CLI's (the same numbers).
int CliExitCode(service::ServiceExitCode code) {
  switch (code) {
    case service::ServiceExitCode::kOk: return kExitOk;
    case service::ServiceExitCode::kError: return kExitError;
    case service::ServiceExitCode::kBadInput: return kExitBadInput;
    case service::ServiceExitCode::kNotFound: return kExitNotFound;
  }
  return kExitError;
}

int RunServeCommand(ServeArgs& args) {
  StatusOr<http::LogLevel> level = ParseLogLevel(args.log_level);
  if (!level.ok()) return ReportError(level.status());
  args.options.log_level = *level;
  return CliExitCode(service::RunService(args.options));
}

// The token is read from stdin, not from an argument, so that it does not
// end up in the shell history or the process list. One trailing newline
// (what `echo` and a terminal add) is not part of it.
int RunHashToken() {
  std::string token(std::istreambuf_iterator<char>(std::cin), {});
  if (token.ends_with('\n')) token.pop_back();
  if (token.ends_with('\r')) token.pop_back();
  const std::string header = "Bearer " + token;  // `parsed` points into it
  StatusOr<std::string_view> parsed = service::ParseBearerToken(header);
  if (!parsed.ok() || *parsed != token) {
    return ReportError(InvalidArgumentError(
        "the token on stdin cannot be sent as a bearer token (" +
        (parsed.ok() ? std::string("it has spaces around it") : parsed.status().message()) +
        "); make one with: openssl rand -base64 32"));
  }
  std::cout << service::HashToken(token) << "\n";
  return kExitOk;
}

}  // namespace

void RegisterServe(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the commit service (HTTP API: docs/api.md) until SIGTERM or SIGINT");
  serve->add_option("--config", args->options.config_path,
                    "The service config (TOML; docs/examples/deltacommit-serve.toml)");
  serve->add_option("--port-file", args->options.port_file,
                    "Write the bound port to this file once serving (for listen = \"...:0\")");
  serve->add_option("--log-level", args->log_level, "debug, info (default), warn or error");
  CLI::App* hash = serve->add_subcommand(
      "hash-token", "Print the SHA-256 of the bearer token read from stdin, for [[token]] sha256");
  hash->callback([exit_code] { *exit_code = RunHashToken(); });
  serve->callback([serve, hash, args, exit_code] {
    if (hash->parsed()) return;
    if (args->options.config_path.empty()) {
      *exit_code = ReportError(InvalidArgumentError(
          "serve needs --config FILE (see docs/examples/deltacommit-serve.toml)"));
      return;
    }
    *exit_code = RunServeCommand(*args);
  });
}

}  // namespace deltacommit::cli
