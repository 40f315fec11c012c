// RunService: the commit service as a process (`deltacommit serve` runs
// it). Loads the config, opens the state store, builds the commit logic, the
// API and the HTTP server, serves until SIGTERM or SIGINT, then shuts down
// gracefully: stop accepting, let requests in flight finish (up to
// drain_timeout_ms), stop the background publisher (what it has not
// published stays ratified and is published by the table's next request),
// exit 0.
//
// Logs are JSON lines on stderr (JsonLogger): one per request, one per
// commit, and the process's events ("listening", "stopping", "stopped").
#pragma once

#include <string>

#include "service/http/json_logger.h"

namespace deltacommit::service {

struct ServiceOptions {
  std::string config_path;
  // Written ("<port>\n", atomically) once the server listens and signals are
  // caught: scripts and tests that start the service on port 0 read it.
  std::string port_file;
  http::LogLevel log_level = http::LogLevel::kInfo;
};

// How the process ends. The numbers are the CLI's exit codes for the same
// cases (docs/configuration.md): `deltacommit serve` exits with them.
enum class ServiceExitCode : int {
  kOk = 0,        // stopped by SIGTERM or SIGINT
  kError = 1,     // the state store, the listener or the port file failed
  kBadInput = 2,  // a bad config (or TLS file)
  kNotFound = 5,  // a kNotFound after the state store opened
};

// Runs the service until SIGTERM or SIGINT. A config that does not load is
// kBadInput and a state store that cannot be opened kError; a failure after
// that (routes, listener, port file) gets the code for its Status as the
// CLI maps them (kInvalidArgument kBadInput, kNotFound kNotFound, others
// kError). Every failure is printed to stderr as "error: <status>".
ServiceExitCode RunService(const ServiceOptions& options);

}  // namespace deltacommit::service
