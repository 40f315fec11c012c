#include "service/http/http_test_util.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "deltacommit/core/ascii.h"

namespace deltacommit::http::testing {
namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

std::string RawResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

LogCapture::LogCapture()
    : logger_([this](std::string_view line) {
        std::lock_guard<std::mutex> lock(mu_);
        text_ += line;
      }) {}

std::string LogCapture::text() const {
  std::lock_guard<std::mutex> lock(mu_);
  return text_;
}

bool Eventually(const std::function<bool()>& condition) {
  auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (SteadyClock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

RawConnection::RawConnection(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return;
  }
  fd_ = fd;
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawConnection::Fill(SteadyClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - SteadyClock::now());
  if (left.count() <= 0) return false;
  pollfd waiting{fd_, POLLIN, 0};
  if (poll(&waiting, 1, static_cast<int>(left.count())) <= 0) return false;
  char chunk[16384];
  ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::optional<RawResponse> RawConnection::ReadResponse(
    std::chrono::milliseconds timeout) {
  auto deadline = SteadyClock::now() + timeout;
  size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!Fill(deadline)) return std::nullopt;
  }
  RawResponse response;
  std::string_view head(buffer_.data(), header_end);
  size_t line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  if (status_line.size() < 12) return std::nullopt;
  response.status = std::stoi(std::string(status_line.substr(9, 3)));
  while (line_end != std::string_view::npos) {
    head.remove_prefix(line_end + 2);
    line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    response.headers.emplace_back(AsciiLower(line.substr(0, colon)), value);
  }
  std::string length = response.Header("content-length");
  size_t body_size = length.empty() ? 0 : std::stoul(length);
  while (buffer_.size() < header_end + 4 + body_size) {
    if (!Fill(deadline)) return std::nullopt;
  }
  response.body = buffer_.substr(header_end + 4, body_size);
  buffer_.erase(0, header_end + 4 + body_size);
  return response;
}

bool RawConnection::WaitForClose(std::chrono::milliseconds timeout) {
  auto deadline = SteadyClock::now() + timeout;
  while (SteadyClock::now() < deadline) {
    pollfd waiting{fd_, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - SteadyClock::now());
    if (poll(&waiting, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
    char chunk[16384];
    if (recv(fd_, chunk, sizeof(chunk), 0) <= 0) return true;
  }
  return false;
}

std::string RawRequest(std::string_view method, std::string_view target,
                       std::string_view extra_headers, std::string_view body) {
  std::string request = std::string(method) + " " + std::string(target) +
                        " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                        std::string(extra_headers);
  if (!body.empty()) {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return request + "\r\n" + std::string(body);
}

std::unique_ptr<HttpServer> StartTestServer(HttpServerOptions options,
                                            Router router, Metrics* metrics,
                                            JsonLogger* logger) {
  options.address = "127.0.0.1";
  options.port = 0;
  auto server = std::make_unique<HttpServer>(
      std::move(options), std::move(router), metrics, logger);
  Status started = server->Start();
  if (!started.ok()) {
    ADD_FAILURE() << "server did not start: " << started.ToString();
    return nullptr;
  }
  return server;
}

std::string LocalUrl(uint16_t port, std::string_view target) {
  return "http://127.0.0.1:" + std::to_string(port) + std::string(target);
}

StatusOr<aws::HttpResponse> Send(aws::HttpClient& client, std::string method,
                                 std::string url, std::string body) {
  aws::HttpRequest request;
  request.method = std::move(method);
  request.url = std::move(url);
  request.body = std::move(body);
  return client.Send(request);
}

}  // namespace deltacommit::http::testing
