// credential_process: runs the profile's command and reads AWS's JSON
// credential format from its stdout ("Sourcing credentials with an external
// process" in the AWS CLI guide).
//
// The command runs in its own process group so that a timeout kills the
// shell and whatever it started. Its stdout carries secrets, so no message
// here ever quotes it.

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <system_error>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "deltacommit/aws/credentials_internal.h"

namespace deltacommit::aws::internal {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

constexpr size_t kMaxStdout = size_t{64} * 1024;  // the AWS Java SDK's limit
constexpr size_t kMaxStderrInMessage = 1024;

std::string Who(const std::string& profile) {
  return "credential_process of profile \"" + profile + "\"";
}

Status SystemError(std::string_view what, int err) {
  return InternalError("credential_process: " + std::string(what) + ": " +
                       std::generic_category().message(err));
}

class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int& get() { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
  Status Open() {
    int fds[2];
    // O_CLOEXEC: another thread's child must not inherit our ends.
    if (::pipe2(fds, O_CLOEXEC) != 0) return SystemError("pipe", errno);
    read.get() = fds[0];
    write.get() = fds[1];
    return OkStatus();
  }
};

struct RunResult {
  std::string out;
  std::string err;
  bool out_truncated = false;
  bool timed_out = false;
  int wait_status = 0;
};

// Owns the spawn attributes so every exit path releases them.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  void Configure(int out_fd, int err_fd) {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    // Own process group (killable as a whole), default SIGPIPE and an empty
    // signal mask whatever this process has set for itself.
    sigset_t none;
    sigset_t defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETPGROUP |
                                                       POSIX_SPAWN_SETSIGMASK |
                                                       POSIX_SPAWN_SETSIGDEF));
  }
};

StatusOr<pid_t> Spawn(const std::string& command, const std::vector<std::string>& environment,
                      Pipe& out, Pipe& err) {
  SpawnSetup setup;
  setup.Configure(out.write.get(), err.write.get());
  std::string sh = "/bin/sh";
  std::string dash_c = "-c";
  std::string cmd = command;
  std::vector<char*> argv = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  std::vector<std::string> env_copy = environment;
  std::vector<char*> envp;
  for (std::string& e : env_copy) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, sh.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) return SystemError("cannot start /bin/sh", rc);
  return pid;
}

int MillisLeft(SteadyTime deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 60'000));
}

// Appends what is readable on `fd` to `sink` (up to `limit`, the rest is
// drained and dropped); closes `fd` at EOF.
void Drain(Fd& fd, std::string& sink, size_t limit, bool& truncated) {
  char buf[4096];
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    fd.Close();
    return;
  }
  size_t got = static_cast<size_t>(n);
  size_t keep = std::min(got, limit - std::min(limit, sink.size()));
  sink.append(buf, keep);
  if (keep < got) truncated = true;
}

// Reads both pipes until EOF on both; false if `deadline` passed first.
bool ReadUntilEof(Pipe& out, Pipe& err, SteadyTime deadline, RunResult& result) {
  bool err_truncated = false;
  while (out.read.get() >= 0 || err.read.get() >= 0) {
    pollfd fds[2] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
    int left = MillisLeft(deadline);
    if (left == 0) return false;
    int rc = ::poll(fds, 2, left);
    if (rc < 0 && errno != EINTR) return false;
    if (rc <= 0) continue;
    if (fds[0].revents != 0) Drain(out.read, result.out, kMaxStdout, result.out_truncated);
    if (fds[1].revents != 0) Drain(err.read, result.err, kMaxStderrInMessage, err_truncated);
  }
  return true;
}

// Waits for `pid` to exit; false if `deadline` passed first.
bool WaitUntil(pid_t pid, SteadyTime deadline, int& wait_status) {
  while (true) {
    pid_t done = ::waitpid(pid, &wait_status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return true;  // already reaped: nothing to wait for
    if (MillisLeft(deadline) == 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

StatusOr<RunResult> Run(const std::string& command, const ProcessOptions& options) {
  Pipe out;
  Pipe err;
  DC_RETURN_IF_ERROR(out.Open());
  DC_RETURN_IF_ERROR(err.Open());
  DC_ASSIGN_OR_RETURN(pid_t pid, Spawn(command, options.environment, out, err));
  out.write.Close();
  err.write.Close();
  SteadyTime deadline = std::chrono::steady_clock::now() + options.timeout;
  RunResult result;
  bool finished = ReadUntilEof(out, err, deadline, result) &&
                  WaitUntil(pid, deadline, result.wait_status);
  if (!finished) {
    result.timed_out = true;
    ::kill(-pid, SIGKILL);  // the whole group: the shell and its children
    while (::waitpid(pid, &result.wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  return result;
}

// The process's own explanation, shortened; stderr should carry no secrets
// (AWS tells credential_process authors so).
std::string StderrNote(std::string err) {
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r' || err.back() == ' ')) {
    err.pop_back();
  }
  return err.empty() ? std::string() : "; stderr: " + err;
}

Status RunFailure(const RunResult& r, const ProcessOptions& options) {
  std::string who = Who(options.profile);
  if (r.timed_out) {
    return UnauthenticatedError(who + " did not finish within " +
                                std::to_string(options.timeout.count()) + " ms and was killed" +
                                StderrNote(r.err));
  }
  if (WIFSIGNALED(r.wait_status)) {
    return UnauthenticatedError(who + " was killed by signal " +
                                std::to_string(WTERMSIG(r.wait_status)) + StderrNote(r.err));
  }
  if (!WIFEXITED(r.wait_status) || WEXITSTATUS(r.wait_status) != 0) {
    return UnauthenticatedError(who + " exited with status " +
                                std::to_string(WEXITSTATUS(r.wait_status)) + StderrNote(r.err));
  }
  if (r.out_truncated) {
    return UnauthenticatedError(who + " wrote more than " + std::to_string(kMaxStdout) +
                                " bytes to stdout");
  }
  return OkStatus();
}

// A required non-empty string field; the message names the field only.
StatusOr<std::string> RequiredString(const nlohmann::json& j, const char* field,
                                     const std::string& who) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return UnauthenticatedError(who + ": output has no " + field + " (a non-empty string)");
  }
  return it->get<std::string>();
}

Status CheckVersion(const nlohmann::json& j, const std::string& who) {
  auto it = j.find("Version");
  if (it == j.end()) return UnauthenticatedError(who + ": output has no Version (must be 1)");
  if (!it->is_number_integer() || it->get<int64_t>() != 1) {
    std::string shown = it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
    return UnauthenticatedError(who + ": output has Version " + shown +
                                "; only Version 1 is supported");
  }
  return OkStatus();
}

Status ReadOptional(const nlohmann::json& j, const std::string& who, Credentials& c) {
  if (auto it = j.find("SessionToken"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return UnauthenticatedError(who + ": SessionToken is not a string");
    c.session_token = it->get<std::string>();
  }
  if (auto it = j.find("Expiration"); it != j.end() && !it->is_null()) {
    std::string text = it->is_string() ? it->get<std::string>() : std::string();
    std::optional<int64_t> ms = ParseIso8601(text);
    if (!ms.has_value()) {
      return UnauthenticatedError(who + ": Expiration \"" + text.substr(0, 64) +
                                  "\" is not an ISO 8601 time such as 2026-11-29T10:00:00Z");
    }
    c.expiration_ms = ms;
  }
  return OkStatus();
}

}  // namespace

StatusOr<Credentials> ParseCredentialProcessOutput(std::string_view json,
                                                   const std::string& profile) {
  std::string who = Who(profile);
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return UnauthenticatedError(who + ": output is not a JSON object (" +
                                std::to_string(json.size()) + " bytes on stdout)");
  }
  DC_RETURN_IF_ERROR(CheckVersion(j, who));
  Credentials c;
  DC_ASSIGN_OR_RETURN(c.access_key_id, RequiredString(j, "AccessKeyId", who));
  DC_ASSIGN_OR_RETURN(c.secret_access_key, RequiredString(j, "SecretAccessKey", who));
  DC_RETURN_IF_ERROR(ReadOptional(j, who, c));
  c.source = who;
  return c;
}

StatusOr<Credentials> RunCredentialProcess(const std::string& command,
                                           const ProcessOptions& options) {
  DC_ASSIGN_OR_RETURN(RunResult result, Run(command, options));
  DC_RETURN_IF_ERROR(RunFailure(result, options));
  return ParseCredentialProcessOutput(result.out, options.profile);
}

}  // namespace deltacommit::aws::internal
