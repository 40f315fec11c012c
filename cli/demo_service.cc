// The commit service `deltacommit demo` commits through: this binary's
// `serve` on SQLite state in the work directory, serving that directory as
// its [local] root on a free port of 127.0.0.1, with a bearer token that only
// this run knows (its SHA-256 in the config, the token itself handed to the
// writers in their environment, never on a command line).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "adapters/aws/sigv4.h"
#include "demo.h"

namespace deltacommit::cli {
namespace {

std::string RandomToken() {
  std::random_device random;
  std::string token = "demo-";
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += kHex[random() % 16];
  return token;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// TOML basic strings: the demo's paths are its own temp directories, but a
// --dir with a quote or backslash must not break the file.
std::string TomlString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ServeConfig(const std::string& dir, const std::string& token) {
  return "# Written by `deltacommit demo` for this run only.\n"
         "[server]\nlisten = \"127.0.0.1:0\"\n"
         "[state]\nkind = \"sqlite\"\npath = \"state.sqlite\"\n"
         "[local]\nroots = [" + TomlString(dir) + "]\n"
         "[[token]]\nname = \"demo\"\nsha256 = \"" + aws::Sha256Hex(token) + "\"\n"
         "tables = [" + TomlString("file://" + dir) + "]\n"
         "actions = [\"commit\", \"read\"]\n";
}

}  // namespace

StatusOr<DemoService> DemoService::Start(const std::string& self, const std::string& dir) {
  DemoService service;
  service.token_ = RandomToken();
  service.log_ = dir + "/serve.log";
  const std::string config = dir + "/serve.toml";
  const std::string port_file = dir + "/serve.port";
  std::ofstream(config) << ServeConfig(dir, service.token_);
  service.pid_ = SpawnSelf(self, {"serve", "--config", config, "--port-file", port_file},
                           service.log_);
  if (service.pid_ < 0) return InternalError("could not start `deltacommit serve`");
  for (int i = 0; i < 300; ++i) {  // up to 30 s on a loaded machine
    const std::string port = ReadFile(port_file);
    if (!port.empty() && port.back() == '\n') {
      service.url_ = "http://127.0.0.1:" + port.substr(0, port.size() - 1);
      return service;
    }
    int status = 0;
    if (waitpid(service.pid_, &status, WNOHANG) == service.pid_) {
      service.pid_ = -1;
      return InternalError("`deltacommit serve` exited before serving: " +
                           ReadFile(service.log_ + ".err"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return DeadlineExceededError("`deltacommit serve` did not start serving within 30 s (see " +
                               service.log_ + ".err)");
}

DemoService::DemoService(DemoService&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      url_(std::move(other.url_)),
      token_(std::move(other.token_)),
      log_(std::move(other.log_)) {}

DemoService::~DemoService() { Stop().IgnoreError(); }

Status DemoService::Stop() {
  if (pid_ < 0) return OkStatus();
  kill(pid_, SIGTERM);  // drains: in-flight commits are answered first
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return OkStatus();
  return InternalError("`deltacommit serve` did not shut down cleanly (see " + log_ + ".err)");
}

}  // namespace deltacommit::cli
