#include "http_fault_proxy.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <optional>
#include <string_view>

#include "deltacommit/core/ascii.h"
#include "loopback_socket.h"

namespace deltacommit::testing {
namespace {

constexpr std::string_view kHeadEnd = "\r\n\r\n";

// The Content-Length of a message head (request or status line and
// headers); 0 without one.
size_t ContentLength(std::string_view head) {
  for (size_t at = head.find("\r\n"); at != std::string_view::npos;) {
    const size_t start = at + 2;
    const size_t end = head.find("\r\n", start);
    std::string_view line = head.substr(start, end == std::string_view::npos ? end : end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos &&
        EqualsIgnoreCase(line.substr(0, colon), "content-length")) {
      size_t length = 0;
      for (char c : line.substr(colon + 1)) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
          length = length * 10 + static_cast<size_t>(c - '0');
        }
      }
      return length;
    }
    at = end;
  }
  return 0;
}

// The length of the complete message at the start of `buffer`, or 0 while
// it is incomplete.
size_t CompleteMessageLength(const std::string& buffer) {
  const size_t head_end = buffer.find(kHeadEnd);
  if (head_end == std::string::npos) return 0;
  const size_t length =
      head_end + kHeadEnd.size() + ContentLength(std::string_view(buffer).substr(0, head_end));
  return buffer.size() >= length ? length : 0;
}

// Reads from `fd` until `buffer` starts with a complete message, and takes
// it out; nullopt when `fd` closed or failed first, or `stop` was set.
std::optional<std::string> ReadMessage(int fd, std::string& buffer,
                                       const std::atomic<bool>& stop) {
  while (!stop) {
    if (const size_t length = CompleteMessageLength(buffer); length > 0) {
      std::string message = buffer.substr(0, length);
      buffer.erase(0, length);
      return message;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kProxyPollMs) <= 0) continue;
    char chunk[16384];
    const ssize_t got = read(fd, chunk, sizeof(chunk));
    if (got <= 0) return std::nullopt;
    buffer.append(chunk, static_cast<size_t>(got));
  }
  return std::nullopt;
}

}  // namespace

HttpFaultProxy::HttpFaultProxy(uint16_t target_port, Faults faults)
    : target_port_(target_port), faults_(std::move(faults)) {
  LoopbackListener listener = ListenOnLoopback();
  if (listener.fd < 0) return;
  listener_ = listener.fd;
  port_ = listener.port;
  acceptor_ = std::thread([this] { Accept(); });
}

HttpFaultProxy::~HttpFaultProxy() {
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> relays;
  {
    std::lock_guard<std::mutex> lock(mu_);
    relays.swap(relays_);
  }
  for (std::thread& t : relays) t.join();
  if (listener_ >= 0) close(listener_);
}

std::string HttpFaultProxy::Url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<std::string> HttpFaultProxy::commit_bodies() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commit_bodies_;
}

std::vector<std::string> HttpFaultProxy::commit_answers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commit_answers_;
}

void HttpFaultProxy::Accept() {
  while (!stop_) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, kProxyPollMs) <= 0) continue;
    const int client = accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    relays_.emplace_back([this, client] { Relay(client); });
  }
}

void HttpFaultProxy::Relay(int client) {
  const int target = ConnectToLoopback(target_port_);
  auto lose_reply = [&] {
    close(client);
    client = -1;
    reply_lost_ = true;
  };
  std::string from_client;
  std::string from_target;
  while (target >= 0 && !stop_) {
    std::optional<std::string> request = ReadMessage(client, from_client, stop_);
    if (!request) break;
    const bool is_commit = request->starts_with("POST /v1/commits ");
    bool lose = false;
    if (is_commit && !Rewrite(*request, lose)) break;
    if (!SendAll(target, *request)) break;
    if (lose && faults_.lose_first_commit_reply == LoseReply::kBeforeTheAnswer) lose_reply();
    // Read serve's answer even when the writer will not get it, so that
    // serve finishes the request undisturbed.
    std::optional<std::string> answer = ReadMessage(target, from_target, stop_);
    if (is_commit && answer) {
      std::lock_guard<std::mutex> lock(mu_);
      commit_answers_.push_back(*answer);
    }
    if (lose) {
      if (client >= 0) lose_reply();
      break;
    }
    if (!answer || !SendAll(client, *answer)) break;
  }
  if (target >= 0) close(target);
  if (client >= 0) close(client);
}

bool HttpFaultProxy::Rewrite(std::string& request, bool& lose_reply) {
  const size_t body_at = request.find(kHeadEnd) + kHeadEnd.size();
  std::string body = request.substr(body_at);
  {
    std::lock_guard<std::mutex> lock(mu_);
    commit_bodies_.push_back(body);
  }
  lose_reply = faults_.lose_first_commit_reply != LoseReply::kNever &&
               !lose_claimed_.exchange(true);
  if (!faults_.rewrite_commit_body) return true;
  const size_t length = body.size();
  faults_.rewrite_commit_body(body);
  if (body.size() != length) return false;
  request.replace(body_at, length, body);
  return true;
}

}  // namespace deltacommit::testing
