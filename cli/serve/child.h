// A `deltacommit serve` child process of this binary, for `deltacommit
// bench` (its service and coordinated modes) and `deltacommit demo`. Its
// config is generated in the work directory: port 0 (the port read back
// from --port-file), SQLite state, either the S3 endpoint the CLI resolves
// from the environment or a [local] root, and one bearer token (only its
// SHA-256 in the file) allowed on the caller's tables.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "deltacommit/status.h"

namespace deltacommit::cli {

struct ServeChildSettings {
  std::string self;          // this binary
  std::string dir;           // config, state, port file and log go here
  // s3://bucket/prefix, or file:///dir, the token may commit under.
  std::string table_prefix;
  std::string token_sha256;
  int workers = 4;
  std::string log_level = "warn";
  // Set: a service of local tables under this directory ([local] roots; no
  // [s3]). Empty: S3 tables at the environment's endpoint.
  std::string local_root;
};

// The [server], [state], [s3] or [local], and [[token]] sections for
// `settings`.
// kInvalidArgument when the environment's S3 endpoint settings do not
// resolve (the message names the setting).
StatusOr<std::string> ServeChildConfig(const ServeChildSettings& settings);

class ServeChild {
 public:
  // Writes the config, starts `serve` and waits up to 30 s for its port.
  // The error says what went wrong and carries the end of its log.
  static StatusOr<std::unique_ptr<ServeChild>> Start(const ServeChildSettings& settings);
  // SIGKILL when still running (Stop was not called or did not finish).
  ~ServeChild();
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;

  // "http://127.0.0.1:<port>".
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // SIGTERM (a graceful drain) and waits up to 60 s; an error when it did
  // not exit with 0, with the end of its log.
  Status Stop();
  // The service's log (JSON lines on its stderr).
  std::string log_path() const { return dir_ + "/serve.log"; }

 private:
  explicit ServeChild(std::string dir) : dir_(std::move(dir)) {}
  // Whether the process has exited (then exit_code_ is set); no wait.
  bool Exited();
  std::string LogTail() const;

  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace deltacommit::cli
