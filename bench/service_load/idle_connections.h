// IdleConnections: many HTTP/1.1 keep-alive connections held open and idle
// against a server, as a crowd of quiet clients would. Plain sockets rather
// than libcurl, so that "still open" is observed directly: each connection
// sends one request (GET /healthz) so the server has really accepted and
// served it, then sits idle until Check() looks at it again.
//
// Thread-safety: none; one thread opens and checks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace deltacommit::bench {

// What happened to the connections at Open() or Check(): how many answered
// 200 on a kept-open connection, and every other outcome by name ("refused
// 503", "connect: Connection refused", "closed by the server", ...).
struct ConnectionTally {
  int ok = 0;
  std::map<std::string, int> failures;
  int failed() const;
};

class IdleConnections {
 public:
  IdleConnections() = default;
  ~IdleConnections();
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;

  // Opens `count` connections to 127.0.0.1:`port`, each answering one GET
  // `path` with 200 and keep-alive; the ones that fail are closed, tallied
  // and not kept.
  ConnectionTally Open(uint16_t port, int count, const std::string& path);

  // For every kept connection: was it closed (or reset) while idle, and does
  // it still answer GET `path` with 200 on the same connection?
  ConnectionTally Check(const std::string& path);

  size_t size() const { return fds_.size(); }

 private:
  std::vector<int> fds_;
};

}  // namespace deltacommit::bench
