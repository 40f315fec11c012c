// DelayProxy: a TCP proxy on 127.0.0.1 that holds each new connection for a
// while before it forwards it to a target port. Tests use it as a slow S3
// endpoint, so that a commit is reliably in flight when they act (SIGTERM).
//
// Thread-safety: the methods may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace deltacommit::testing {

class DelayProxy {
 public:
  DelayProxy(uint16_t target_port, std::chrono::milliseconds delay);
  // Closes every connection and joins the threads.
  ~DelayProxy();
  DelayProxy(const DelayProxy&) = delete;
  DelayProxy& operator=(const DelayProxy&) = delete;

  uint16_t port() const { return port_; }  // 0 when it could not listen
  // True once a connection has been accepted, false if `timeout` passes.
  bool WaitForConnection(std::chrono::milliseconds timeout);

 private:
  void Accept();
  void Forward(int client);

  const uint16_t target_port_;
  const std::chrono::milliseconds delay_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable accepted_cv_;
  int accepted_ = 0;                    // guarded by mu_
  std::vector<std::thread> forwarders_;  // guarded by mu_
  std::thread acceptor_;
};

}  // namespace deltacommit::testing
