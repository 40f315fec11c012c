#include "delay_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace deltacommit::testing {
namespace {

constexpr int kPollMs = 50;

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Copies what `from` has to `to`; false when `from` closed or failed.
bool Pump(int from, int to) {
  char buffer[16384];
  ssize_t n = read(from, buffer, sizeof(buffer));
  if (n <= 0) return false;
  for (ssize_t sent = 0; sent < n;) {
    ssize_t m = send(to, buffer + sent, static_cast<size_t>(n - sent), MSG_NOSIGNAL);
    if (m <= 0) return false;
    sent += m;
  }
  return true;
}

}  // namespace

DelayProxy::DelayProxy(uint16_t target_port, std::chrono::milliseconds delay)
    : target_port_(target_port), delay_(delay) {
  listener_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof(address);
  if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listener_, 16) != 0 ||
      getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return;
  }
  port_ = ntohs(address.sin_port);
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
    if (poll(&p, 1, kPollMs) <= 0) continue;
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
  int target = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = Loopback(target_port_);
  if (target >= 0 &&
      connect(target, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    while (!stop_) {
      pollfd p[2] = {{client, POLLIN, 0}, {target, POLLIN, 0}};
      if (poll(p, 2, kPollMs) < 0) break;
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(client, target)) break;
      if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !Pump(target, client)) break;
    }
  }
  if (target >= 0) close(target);
  close(client);
}

}  // namespace deltacommit::testing
