// The soak's chaos: two serve instances (A and B) on one config, the writer
// processes it may kill, and a thread that kills random writers and
// instance A with SIGKILL at seeded random moments until a deadline,
// restarting A each time (on a new port, as a supervisor would).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/serve_process.h"

namespace deltacommit::testing {

class SoakChaos {
 public:
  SoakChaos(std::string serve_config, uint64_t seed)
      : config_(std::move(serve_config)), random_(seed) {}
  ~SoakChaos() { End(); }

  // A first: it creates the shared state table.
  bool StartInstances();

  // The base URL a request should go to: A for even `n` while A is up,
  // else B.
  std::string ServiceUrl(int n);

  // Runs the CLI with `args` as a writer the chaos may kill; the wait
  // status.
  int RunKillable(const std::vector<std::string>& args);

  // Starts killing until `deadline`; End() stops (and leaves A running).
  void Begin(std::chrono::steady_clock::time_point deadline);
  void End();

  int instance_kills() const { return instance_kills_; }

 private:
  void Run(std::chrono::steady_clock::time_point deadline);
  void KillARandomWriter();
  void KillAndRestartA();
  // Sleeps up to `ms` unless End() is called meanwhile; false then.
  bool Pause(int ms);
  int Uniform(int low, int high);

  const std::string config_;
  std::mt19937_64 random_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::unique_ptr<ServeProcess> a_, b_;
  bool a_up_ = false;
  std::set<pid_t> writers_;  // running, not yet reaped
  std::atomic<int> instance_kills_{0};
  std::thread thread_;
};

}  // namespace deltacommit::testing
