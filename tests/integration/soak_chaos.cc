#include "soak_chaos.h"

#include <signal.h>
#include <sys/wait.h>

#include <iostream>
#include <iterator>

#include "common/cli_runner.h"

namespace deltacommit::testing {
namespace {

std::string BaseUrl(const ServeProcess& instance) {
  return "http://127.0.0.1:" + std::to_string(instance.port());
}

}  // namespace

bool SoakChaos::StartInstances() {
  for (std::unique_ptr<ServeProcess>* instance : {&a_, &b_}) {
    auto started = ServeProcess::Start(config_);
    if (!started.ok()) {
      std::cerr << "soak: serve did not start: " << started.status().ToString() << "\n";
      return false;
    }
    *instance = std::move(started).value();
  }
  std::lock_guard<std::mutex> lock(mu_);
  a_up_ = true;
  return true;
}

std::string SoakChaos::ServiceUrl(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  return BaseUrl(n % 2 == 0 && a_up_ ? *a_ : *b_);
}

int SoakChaos::RunKillable(const std::vector<std::string>& args) {
  pid_t pid = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pid = StartCli(args);
    if (pid < 0) return -1;
    writers_.insert(pid);
  }
  // Waits without reaping, so that the pid cannot be reused while the chaos
  // may still pick it; then forgets it and reaps.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    writers_.erase(pid);
  }
  int status = -1;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void SoakChaos::Begin(std::chrono::steady_clock::time_point deadline) {
  thread_ = std::thread([this, deadline] { Run(deadline); });
}

void SoakChaos::End() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool SoakChaos::Pause(int ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

int SoakChaos::Uniform(int low, int high) {
  return std::uniform_int_distribution<int>(low, high)(random_);
}

void SoakChaos::Run(std::chrono::steady_clock::time_point deadline) {
  using std::chrono::steady_clock;
  const auto start = steady_clock::now();
  const auto span = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - start);
  // The first instance kill comes within the first half of the run, then
  // one every 10-20 s; writers die every 0.1-1 s.
  auto next_instance_kill =
      start + std::chrono::milliseconds(Uniform(static_cast<int>(span.count() / 5),
                                                static_cast<int>(span.count() / 2)));
  while (steady_clock::now() < deadline) {
    if (!Pause(Uniform(100, 1000))) return;
    KillARandomWriter();
    if (steady_clock::now() >= next_instance_kill && steady_clock::now() < deadline) {
      KillAndRestartA();
      next_instance_kill = steady_clock::now() + std::chrono::milliseconds(Uniform(10'000, 20'000));
    }
  }
}

void SoakChaos::KillARandomWriter() {
  std::lock_guard<std::mutex> lock(mu_);
  if (writers_.empty()) return;
  auto it = writers_.begin();
  std::advance(it, Uniform(0, static_cast<int>(writers_.size()) - 1));
  ::kill(*it, SIGKILL);  // not reaped yet (RunKillable), so still this writer
}

void SoakChaos::KillAndRestartA() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    a_up_ = false;
  }
  a_->Kill();  // a crash: its in-flight requests get no answer
  ++instance_kills_;
  Pause(Uniform(500, 2000));
  auto restarted = ServeProcess::Start(config_);
  if (!restarted.ok()) {
    std::cerr << "soak: serve A did not restart: " << restarted.status().ToString() << "\n";
    return;  // B serves on alone
  }
  std::lock_guard<std::mutex> lock(mu_);
  a_ = std::move(restarted).value();
  a_up_ = true;
}

}  // namespace deltacommit::testing
