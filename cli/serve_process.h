// `deltacommit serve`: the commit service as a process. Loads the config,
// opens the state store, builds the commit logic, the API and the HTTP
// server, serves until SIGTERM or SIGINT, then shuts down gracefully: stop
// accepting, let requests in flight finish (up to drain_timeout_ms), stop
// the background publisher (what it has not published stays ratified and
// is published by the table's next request), exit 0.
//
// Logs are JSON lines on stderr (JsonLogger): one per request, one per
// commit, and the process's events ("listening", "stopping", "stopped").
#pragma once

#include <string>

#include "service/http/json_logger.h"

namespace deltacommit::cli {

struct ServeOptions {
  std::string config_path;
  // Written ("<port>\n", atomically) once the server listens and signals are
  // caught: scripts and tests that start the service on port 0 read it.
  std::string port_file;
  http::LogLevel log_level = http::LogLevel::kInfo;
};

// The process's exit code: 0 after a signal, kExitBadInput for a bad
// config, kExitError when the state store or the listener cannot be opened.
int RunServe(const ServeOptions& options);

}  // namespace deltacommit::cli
