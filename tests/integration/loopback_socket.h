// TCP on 127.0.0.1 for the tests' proxies (DelayProxy, HttpFaultProxy):
// listening on a port of the kernel's choice, connecting, and sending a
// whole buffer.
#pragma once

#include <cstdint>
#include <string_view>

namespace deltacommit::testing {

// How long a proxy's loop waits in poll(2) before it looks whether it was
// asked to stop.
constexpr int kProxyPollMs = 50;

// A socket listening on 127.0.0.1 at a port the kernel picks; -1 on failure.
struct LoopbackListener {
  int fd = -1;
  uint16_t port = 0;
};
LoopbackListener ListenOnLoopback();

// A socket connected to 127.0.0.1:`port`, or -1.
int ConnectToLoopback(uint16_t port);

// Sends all of `data` (no SIGPIPE); false when the peer is gone.
bool SendAll(int fd, std::string_view data);

}  // namespace deltacommit::testing
