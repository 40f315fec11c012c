// A `deltacommit serve` child process for the API contract tests: started
// on a config written to a fresh directory (listen on port 0), its port
// read from --port-file, its stderr (the JSON log) kept in a file the test
// reads, and stopped with SIGTERM.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "deltacommit/status.h"

namespace deltacommit::testing {

class ServeProcess {
 public:
  // Writes `config` to <dir>/serve.toml, starts the CLI (CliPath()) with it
  // and waits up to `timeout` for the port file. The error names what went
  // wrong and carries the log.
  static StatusOr<std::unique_ptr<ServeProcess>> Start(
      const std::string& config, const std::string& log_level = "info",
      std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGKILL when still running; removes the directory.
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  // "http://127.0.0.1:<port><path>".
  std::string Url(const std::string& path) const;
  const std::string& dir() const { return dir_; }

  // Sends SIGTERM (once) and waits up to `timeout` for the exit; the exit
  // code, or -1 when it died of a signal or did not exit in time.
  int Terminate(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  void SendSigterm();
  // Waits for the exit after SendSigterm; as Terminate.
  int WaitForExit(std::chrono::milliseconds timeout);

  // SIGKILL (a crash: no drain, no shutdown line) and waits for the exit.
  void Kill();

  // Everything the process has logged so far.
  std::string Logs() const;

 private:
  explicit ServeProcess(std::string dir) : dir_(std::move(dir)) {}

  std::string dir_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  int exit_code_ = -1;
  bool exited_ = false;
};

}  // namespace deltacommit::testing
