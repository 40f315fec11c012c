#include "service_load/idle_connections.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace deltacommit::bench {
namespace {

// How long one exchange may take before the connection counts as hung.
constexpr int kIoTimeoutSeconds = 30;

std::string Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string ReadFailure(ssize_t n, bool got_nothing) {
  if (n == 0) return got_nothing ? "closed by the server" : "answer cut short";
  if (errno == ECONNRESET) return "reset by the server";
  if (errno == EAGAIN || errno == EWOULDBLOCK) return "no answer within 30 s";
  return Errno("recv");
}

// Reads one response to the end of its body (Content-Length); "" when it
// was 200 and keeps the connection open, else what was wrong.
std::string ReadResponse(int fd) {
  std::string buffer;
  size_t header_end = std::string::npos;
  char chunk[4096];
  while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return ReadFailure(n, buffer.empty());
    buffer.append(chunk, static_cast<size_t>(n));
  }
  const std::string headers =
      Lower(std::string_view(buffer).substr(0, header_end + 2));
  size_t body_bytes = 0;
  if (size_t at = headers.find("\r\ncontent-length:");
      at != std::string::npos) {
    body_bytes = std::strtoul(headers.c_str() + at + 17, nullptr, 10);
  }
  while (buffer.size() < header_end + 4 + body_bytes) {
    ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return ReadFailure(n, false);
    buffer.append(chunk, static_cast<size_t>(n));
  }
  if (!headers.starts_with("http/1.1 ")) return "not an HTTP/1.1 answer";
  const std::string status = headers.substr(9, 3);
  if (status == "503") return "refused (503)";
  if (status != "200") return "answered " + status;
  if (headers.find("\r\nconnection: close") != std::string::npos) {
    return "answered 200 but closes the connection";
  }
  return "";
}

std::string RoundTrip(int fd, const std::string& path) {
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n =
        send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0)
      return errno == ECONNRESET || errno == EPIPE ? "reset by the server"
                                                   : Errno("send");
    sent += static_cast<size_t>(n);
  }
  return ReadResponse(fd);
}

// "" while the idle connection is open with nothing to read.
std::string IdleState(int fd) {
  char byte;
  ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return "closed by the server while idle";
  if (n > 0) return "the server sent bytes while idle";
  if (errno == EAGAIN || errno == EWOULDBLOCK) return "";
  if (errno == ECONNRESET) return "reset by the server while idle";
  return Errno("recv while idle");
}

// A connected socket with I/O timeouts, or -1 and the failure in `error`.
int Connect(uint16_t port, std::string& error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = Errno("socket");  // EMFILE: the open-file limit
    return -1;
  }
  timeval timeout{kIoTimeoutSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address),
              sizeof address) != 0) {
    error = Errno("connect");
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int ConnectionTally::failed() const {
  int n = 0;
  for (const auto& [what, count] : failures) n += count;
  return n;
}

IdleConnections::~IdleConnections() {
  for (int fd : fds_) close(fd);
}

ConnectionTally IdleConnections::Open(uint16_t port, int count,
                                      const std::string& path) {
  ConnectionTally tally;
  for (int i = 0; i < count; ++i) {
    std::string error;
    int fd = Connect(port, error);
    if (fd >= 0) error = RoundTrip(fd, path);
    if (!error.empty()) {
      ++tally.failures[error];
      if (fd >= 0) close(fd);
      continue;
    }
    fds_.push_back(fd);
    ++tally.ok;
  }
  return tally;
}

ConnectionTally IdleConnections::Check(const std::string& path) {
  ConnectionTally tally;
  for (int fd : fds_) {
    std::string error = IdleState(fd);
    if (error.empty()) error = RoundTrip(fd, path);
    if (error.empty()) {
      ++tally.ok;
    } else {
      ++tally.failures[error];
    }
  }
  return tally;
}

}  // namespace deltacommit::bench
