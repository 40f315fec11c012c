#include "common/serve_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "common/cli_runner.h"

extern char** environ;

namespace deltacommit::testing {

StatusOr<std::unique_ptr<ServeProcess>> ServeProcess::Start(const std::string& config,
                                                            const std::string& log_level,
                                                            std::chrono::milliseconds timeout) {
  char dir_template[] = "/tmp/dc-serve-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return InternalError("mkdtemp failed");
  std::unique_ptr<ServeProcess> process(new ServeProcess(dir_template));
  const std::string config_path = process->dir_ + "/serve.toml";
  const std::string port_path = process->dir_ + "/port";
  const std::string log_path = process->dir_ + "/serve.log";
  std::ofstream(config_path) << config;

  const std::string cli = CliPath();
  std::vector<std::string> args = {cli,         "serve",   "--config",    config_path,
                                   "--port-file", port_path, "--log-level", log_level};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  int spawned = posix_spawn(&process->pid_, cli.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (spawned != 0) return InternalError("cannot start " + cli);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string port = Slurp(port_path);
    if (!port.empty() && port.back() == '\n') {
      process->port_ = static_cast<uint16_t>(std::stoi(port));
      return process;
    }
    if (process->WaitForExit(std::chrono::milliseconds(20)) != -1 || process->exited_) {
      return InternalError("deltacommit serve exited with " +
                           std::to_string(process->exit_code_) + ":\n" + process->Logs());
    }
  }
  return DeadlineExceededError("deltacommit serve wrote no port file within " +
                               std::to_string(timeout.count()) + " ms:\n" + process->Logs());
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ServeProcess::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void ServeProcess::Kill() {
  if (pid_ <= 0 || exited_) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  exited_ = true;
  exit_code_ = -1;
}

void ServeProcess::SendSigterm() {
  if (pid_ > 0 && !exited_) kill(pid_, SIGTERM);
}

int ServeProcess::WaitForExit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!exited_) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return exit_code_;
}

int ServeProcess::Terminate(std::chrono::milliseconds timeout) {
  SendSigterm();
  return WaitForExit(timeout);
}

std::string ServeProcess::Logs() const { return Slurp(dir_ + "/serve.log"); }

}  // namespace deltacommit::testing
