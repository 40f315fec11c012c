// The bench's side of `deltacommit serve`: the config it runs with, the open
// file limit the run needs, and what the service said about itself
// afterwards (its rejection metrics and warnings in its log).
#pragma once

#include <cstdint>
#include <string>

#include "common/serve_process.h"

namespace deltacommit::bench {

// The environment variable `name`, or `fallback` when it is unset or empty.
std::string EnvOr(const char* name, const char* fallback = "");

struct ServeSettings {
  int workers = 0;
  int max_connections = 0;
  std::string log_level;
  std::string
      state_path;  // the SQLite file; relative: in the service's directory
  std::string table_prefix;  // the token may commit under it
  std::string token_sha256;
  std::string extra;  // more sections, e.g. "[appends]\nmax_batch_appends = 1\n"
};

// A [server] section sized for the load (port 0, workers and
// max_connections as given, timeouts longer than any run), SQLite state in
// the service's directory, the environment's S3 endpoint, one token.
std::string ServeConfig(const ServeSettings& settings);

// Checks (and raises up to the hard limit) the open-file limit for
// `needed` descriptors; false, with a message on stderr saying what to do,
// when it cannot be.
bool EnsureOpenFileLimit(uint64_t needed);

// Prints the service's connection and commit metrics and the warnings and
// errors in its log; the number of rejected connections it counted.
int64_t ReportServiceSide(testing::ServeProcess& serve);

}  // namespace deltacommit::bench
