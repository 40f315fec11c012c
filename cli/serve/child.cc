#include "serve/child.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "deltacommit/aws/aws_config.h"
#include "shared/self_process.h"

namespace deltacommit::cli {
namespace {

// A TOML basic string: the bench's own paths and prefixes, quoted.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// [s3] as the writers resolve it (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
// profile, AWS's): the service must write where they read.
StatusOr<std::string> S3Section() {
  StatusOr<aws::AwsServiceConfig> s3 = aws::ResolveServiceConfig("s3", {});
  if (!s3.ok()) return s3.status().WithContext("the S3 endpoint for the started service");
  const bool aws_default = s3->endpoint_source == aws::kAwsDefaultEndpointSource;
  std::ostringstream c;
  c << "[s3]\nendpoint = " << Quoted(aws_default ? "" : s3->endpoint_url)
    << "\nregion = " << Quoted(s3->region)
    << "\naddressing = " << (s3->path_style ? "\"path\"" : "\"virtual\"")
    << "\nallow_http = " << (s3->endpoint_url.starts_with("http://") ? "true" : "false")
    << "\nenforces_if_none_match = true\n";
  return c.str();
}

}  // namespace

StatusOr<std::string> ServeChildConfig(const ServeChildSettings& s) {
  std::string storage = "[local]\nroots = [" + Quoted(s.local_root) + "]\n";
  if (s.local_root.empty()) {
    DC_ASSIGN_OR_RETURN(storage, S3Section());
  }
  std::ostringstream c;
  c << "[server]\nlisten = \"127.0.0.1:0\"\nio_threads = 2\nworkers = " << s.workers
    << "\nmax_connections = 512\n"
    // Longer than any run: a request may wait behind a hot table's lock.
    << "request_timeout_ms = 120000\nidle_timeout_ms = 3600000\ndrain_timeout_ms = 10000\n"
    << "[state]\nkind = \"sqlite\"\npath = \"state.sqlite\"\n"
    << storage << "[[token]]\nname = \"bench\"\nsha256 = " << Quoted(s.token_sha256)
    << "\ntables = [" << Quoted(s.table_prefix) << "]\nactions = [\"commit\", \"read\"]\n";
  return c.str();
}

StatusOr<std::unique_ptr<ServeChild>> ServeChild::Start(const ServeChildSettings& s) {
  DC_ASSIGN_OR_RETURN(const std::string config, ServeChildConfig(s));
  std::unique_ptr<ServeChild> service(new ServeChild(s.dir));
  std::filesystem::create_directories(s.dir);
  const std::string config_path = s.dir + "/serve.toml";
  const std::string port_path = s.dir + "/port";
  std::ofstream(config_path) << config;
  service->pid_ = Spawn(s.self,
                        {"serve", "--config", config_path, "--port-file", port_path,
                         "--log-level", s.log_level},
                        s.dir + "/serve.out", service->log_path());
  if (service->pid_ < 0) return InternalError("cannot start " + s.self + " serve");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string port = ReadChildOutput(port_path);
    if (!port.empty() && port.back() == '\n') {
      service->port_ = std::stoi(port);
      return service;
    }
    if (service->Exited()) {
      return UnavailableError("deltacommit serve (config " + config_path + ") exited with " +
                              std::to_string(service->exit_code_) + ":\n" + service->LogTail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return DeadlineExceededError("deltacommit serve (config " + config_path +
                               ") wrote no port file within 30 s:\n" + service->LogTail());
}

ServeChild::~ServeChild() {
  if (pid_ > 0 && !Exited()) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool ServeChild::Exited() {
  if (exited_ || pid_ <= 0) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  exited_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return true;
}

Status ServeChild::Stop() {
  if (pid_ <= 0) return OkStatus();
  if (!Exited()) kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!Exited()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return DeadlineExceededError("deltacommit serve did not exit within 60 s of SIGTERM:\n" +
                                   LogTail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (exit_code_ != 0) {
    return InternalError("deltacommit serve exited with " + std::to_string(exit_code_) +
                         " after SIGTERM:\n" + LogTail());
  }
  return OkStatus();
}

std::string ServeChild::LogTail() const {
  const std::string log = ReadChildOutput(log_path());
  constexpr size_t kTail = 2000;
  return log.size() <= kTail ? log : "..." + log.substr(log.size() - kTail);
}

}  // namespace deltacommit::cli
