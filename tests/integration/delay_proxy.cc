#include "delay_proxy.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loopback_socket.h"

namespace deltacommit::testing {
namespace {

// Copies what `from` has to `to`; false when `from` closed or failed.
bool Pump(int from, int to) {
  char buffer[16384];
  ssize_t n = read(from, buffer, sizeof(buffer));
  return n > 0 && SendAll(to, std::string_view(buffer, static_cast<size_t>(n)));
}

}  // namespace

DelayProxy::DelayProxy(uint16_t target_port, std::chrono::milliseconds delay)
    : target_port_(target_port), delay_(delay) {
  LoopbackListener listener = ListenOnLoopback();
  if (listener.fd < 0) return;
  listener_ = listener.fd;
  port_ = listener.port;
  acceptor_ = std::thread([this] { Accept(); });
}

DelayProxy::~DelayProxy() {
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> forwarders;
  {
    std::lock_guard<std::mutex> lock(mu_);
    forwarders.swap(forwarders_);
  }
  for (std::thread& t : forwarders) t.join();
  if (listener_ >= 0) close(listener_);
}

bool DelayProxy::WaitForConnection(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return accepted_cv_.wait_for(lock, timeout, [this] { return accepted_ > 0; });
}

void DelayProxy::Accept() {
  while (!stop_) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, kProxyPollMs) <= 0) continue;
    int client = accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    ++accepted_;
    accepted_cv_.notify_all();
    forwarders_.emplace_back([this, client] { Forward(client); });
  }
}

void DelayProxy::Forward(int client) {
  const auto until = std::chrono::steady_clock::now() + delay_;
  while (!stop_ && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int target = ConnectToLoopback(target_port_);
  if (target >= 0) {
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {target, POLLIN, 0}};
      if (poll(p, 2, kProxyPollMs) < 0) break;
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(client, target)) break;
      if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(target, client)) break;
    }
  }
  if (target >= 0) close(target);
  close(client);
}

}  // namespace deltacommit::testing
