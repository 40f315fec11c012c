// CurlHttpClient against a real HTTP/1.1 server on 127.0.0.1, run by the
// test: what reaches the wire, keep-alive reuse, and how transport failures
// are classified.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "deltacommit/aws/http.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::aws {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct ReceivedRequest {
  std::string method;
  std::string target;   // path and query, as sent
  HttpHeaders headers;  // as received, in order
  std::string body;
  int connection = 0;  // which accepted connection carried it

  std::vector<std::string> HeaderNames() const {
    std::vector<std::string> names;
    for (const auto& header : headers) names.push_back(Lower(header.first));
    return names;
  }
  std::string Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (Lower(key) == Lower(name)) return value;
    }
    return "<absent>";
  }
};

// A blocking HTTP/1.1 server: one thread per connection, keep-alive, bodies
// by Content-Length only. How it answers depends on the path:
//   /500...    500 with a short body
//   /stall...  never answers (until the server stops)
//   /close...  closes the connection right after reading the request
//   otherwise  200, echoing the request body (or "hello" if it is empty)
class TestHttpServer {
 public:
  TestHttpServer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(listen_fd_, 64) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address),
                    &length) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~TestHttpServer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    stopped_.notify_all();
    shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    acceptor_.join();
    close(listen_fd_);
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : connection_fds_) shutdown(fd, SHUT_RDWR);  // wakes recv()
      workers.swap(workers_);
    }
    for (std::thread& worker : workers) worker.join();
    for (int fd : connection_fds_) close(fd);
  }

  uint16_t port() const { return port_; }
  std::string HostPort() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string Url(std::string_view target) const {
    return "http://" + HostPort() + std::string(target);
  }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int connections() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(connection_fds_.size());
  }

 private:
  void AcceptLoop() {
    for (;;) {
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;  // shut down
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        close(fd);
        return;
      }
      int id = static_cast<int>(connection_fds_.size());
      connection_fds_.push_back(fd);
      workers_.emplace_back([this, fd, id] { Serve(fd, id); });
    }
  }

  // Fds are closed by the destructor only, so shutdown() there never hits a
  // reused descriptor.
  void Serve(int fd, int id) {
    std::string buffer;
    ReceivedRequest request;
    while (ReadRequest(fd, buffer, request)) {
      request.connection = id;
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(request);
      }
      if (request.target.starts_with("/close")) break;
      if (request.target.starts_with("/stall")) {
        std::unique_lock<std::mutex> lock(mu_);
        stopped_.wait(lock, [this] { return stopping_; });
        break;
      }
      if (!Respond(fd, request)) break;
    }
    shutdown(fd, SHUT_RDWR);
  }

  static bool ReadMore(int fd, std::string& buffer) {
    char chunk[64 * 1024];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
    return true;
  }

  // Reads one request from `buffer` + the socket; false on EOF or garbage.
  static bool ReadRequest(int fd, std::string& buffer, ReceivedRequest& out) {
    size_t head_end;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!ReadMore(fd, buffer)) return false;
    }
    out = ReceivedRequest();
    std::string_view head(buffer.data(), head_end + 2);
    size_t line_end = head.find("\r\n");
    std::string_view request_line = head.substr(0, line_end);
    size_t space1 = request_line.find(' ');
    size_t space2 = request_line.rfind(' ');
    out.method = std::string(request_line.substr(0, space1));
    out.target =
        std::string(request_line.substr(space1 + 1, space2 - space1 - 1));
    for (size_t pos = line_end + 2; pos < head.size();) {
      size_t next = head.find("\r\n", pos);
      std::string_view line = head.substr(pos, next - pos);
      size_t colon = line.find(':');
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      out.headers.emplace_back(std::string(line.substr(0, colon)),
                               std::string(value));
      pos = next + 2;
    }
    buffer.erase(0, head_end + 4);
    if (out.Header("transfer-encoding") != "<absent>")
      return false;  // refused, like RGW
    size_t length = 0;
    if (std::string value = out.Header("content-length"); value != "<absent>") {
      length = std::stoul(value);
    }
    while (buffer.size() < length) {
      if (!ReadMore(fd, buffer)) return false;
    }
    out.body = buffer.substr(0, length);
    buffer.erase(0, length);
    return true;
  }

  static bool Respond(int fd, const ReceivedRequest& request) {
    bool error = request.target.starts_with("/500");
    std::string body = error                  ? "boom"
                       : request.body.empty() ? "hello"
                                              : request.body;
    std::string reply = error ? "HTTP/1.1 500 Internal Server Error\r\n"
                              : "HTTP/1.1 200 OK\r\n";
    reply += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    reply += "X-Amz-Request-Id: Req-1\r\nETag:  \"abc\"  \r\n\r\n";
    if (request.method != "HEAD") reply += body;
    for (size_t sent = 0; sent < reply.size();) {
      ssize_t n =
          send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::condition_variable stopped_;
  bool stopping_ = false;                  // guarded by mu_
  std::vector<int> connection_fds_;        // guarded by mu_
  std::vector<std::thread> workers_;       // guarded by mu_
  std::vector<ReceivedRequest> requests_;  // guarded by mu_
};

HttpRequest Request(std::string method, std::string url,
                    HttpHeaders headers = {}, std::string body = "") {
  return HttpRequest{std::move(method), std::move(url), std::move(headers),
                     std::move(body)};
}

class CurlHttpClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<HttpClient> NewClient(
      std::chrono::milliseconds request_timeout =
          std::chrono::milliseconds(5000)) {
    return NewCurlHttpClient(
        {std::chrono::milliseconds(1000), request_timeout});
  }

  TestHttpServer server_;
};

TEST_F(CurlHttpClientTest, GetSendsExactlyTheGivenHeadersAndHost) {
  auto client = NewClient();
  auto response = client->Send(
      Request("GET", server_.Url("/bucket/key%20a?list-type=2&x=y"),
              {{"X-Amz-Date", "20240101T000000Z"},
               {"Authorization", "AWS4-HMAC-SHA256 secret"}}));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/bucket/key%20a?list-type=2&x=y");
  // No Accept, User-Agent, Expect or Content-Type added by libcurl.
  EXPECT_THAT(requests[0].HeaderNames(),
              UnorderedElementsAre("host", "x-amz-date", "authorization"));
  EXPECT_EQ(requests[0].Header("host"), server_.HostPort());
  EXPECT_EQ(requests[0].Header("x-amz-date"), "20240101T000000Z");
}

TEST_F(CurlHttpClientTest, CallerHostHeaderIsSentOnceAsGiven) {
  auto client = NewClient();
  auto response = client->Send(
      Request("GET", server_.Url("/k"), {{"host", server_.HostPort()}}));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].HeaderNames(), ElementsAre("host"));
  EXPECT_EQ(requests[0].Header("host"), server_.HostPort());
}

TEST_F(CurlHttpClientTest, PutSendsContentLengthWithoutExpectOrChunking) {
  auto client = NewClient();
  // Large enough that libcurl would otherwise add Expect: 100-continue.
  std::string body(2 * 1024 * 1024 + 7, 'x');
  auto response = client->Send(
      Request("PUT", server_.Url("/bucket/big"),
              {{"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}}, body));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, body);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "PUT");
  EXPECT_THAT(
      requests[0].HeaderNames(),
      UnorderedElementsAre("host", "content-length", "x-amz-content-sha256"));
  EXPECT_EQ(requests[0].Header("content-length"), std::to_string(body.size()));
  EXPECT_EQ(requests[0].body, body);
}

TEST_F(CurlHttpClientTest, BinaryBodyWithNulsRoundTrips) {
  auto client = NewClient();
  std::string body;
  for (int i = 0; i < 4096; ++i) body.push_back(static_cast<char>(i % 256));
  auto response = client->Send(
      Request("POST", server_.Url("/"),
              {{"Content-Type", "application/x-amz-json-1.0"}}, body));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, body);
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].body, body);
  EXPECT_EQ(requests[0].Header("content-type"), "application/x-amz-json-1.0");
  EXPECT_EQ(requests[0].Header("content-length"), "4096");
}

TEST_F(CurlHttpClientTest, EmptyPutSendsContentLengthZero) {
  auto client = NewClient();
  auto response = client->Send(Request("PUT", server_.Url("/empty")));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].HeaderNames(),
              UnorderedElementsAre("host", "content-length"));
  EXPECT_EQ(requests[0].Header("content-length"), "0");
}

TEST_F(CurlHttpClientTest, HeadReturnsHeadersWithoutBody) {
  auto client = NewClient();
  auto response = client->Send(Request("HEAD", server_.Url("/k")));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "");
  EXPECT_EQ(response->Header("Content-Length"), "5");
  // A GET after a HEAD on the same (reset) handle still gets its body.
  auto get = client->Send(Request("GET", server_.Url("/k")));
  ASSERT_TRUE(get.ok()) << get.status().ToString();
  EXPECT_EQ(get->body, "hello");
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "HEAD");
  EXPECT_EQ(requests[1].method, "GET");
}

TEST_F(CurlHttpClientTest, DeleteSendsDeleteWithoutBody) {
  auto client = NewClient();
  auto response = client->Send(Request("DELETE", server_.Url("/bucket/k")));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "DELETE");
  EXPECT_THAT(requests[0].HeaderNames(), ElementsAre("host"));
}

TEST_F(CurlHttpClientTest, ResponseHeadersAreLowerCasedAndTrimmed) {
  auto client = NewClient();
  auto response = client->Send(Request("GET", server_.Url("/k")));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  std::vector<std::string> names;
  for (const auto& header : response->headers) names.push_back(header.first);
  EXPECT_THAT(names, ElementsAre("content-length", "x-amz-request-id", "etag"));
  EXPECT_EQ(response->Header("X-AMZ-REQUEST-ID"), "Req-1");
  EXPECT_EQ(response->Header("etag"), "\"abc\"");
  EXPECT_EQ(response->Header("absent"), "");
}

TEST_F(CurlHttpClientTest, ServerErrorIsAResponseNotAnError) {
  auto client = NewClient();
  auto response = client->Send(Request("PUT", server_.Url("/500"), {}, "data"));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->body, "boom");
}

TEST_F(CurlHttpClientTest, SequentialRequestsReuseOneConnection) {
  auto client = NewClient();
  for (const char* method : {"GET", "PUT", "HEAD", "POST", "DELETE", "GET"}) {
    std::string body =
        std::string(method) == "PUT" || std::string(method) == "POST" ? "b"
                                                                      : "";
    auto response = client->Send(Request(method, server_.Url("/k"), {}, body));
    ASSERT_TRUE(response.ok())
        << method << ": " << response.status().ToString();
  }
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 6u);
  for (const auto& request : requests) EXPECT_EQ(request.connection, 0);
  EXPECT_EQ(server_.connections(), 1);
}

TEST_F(CurlHttpClientTest, ConcurrentRequestsFromEightThreads) {
  auto client = NewClient();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string body =
            "thread " + std::to_string(t) + " request " + std::to_string(i);
        auto response = client->Send(
            Request("PUT", server_.Url("/c?t=" + std::to_string(t)), {}, body));
        if (!response.ok() || response->status != 200 || response->body != body)
          ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(server_.requests().size(),
            static_cast<size_t>(kThreads * kPerThread));
  // At most one handle (and so one connection) per concurrent caller.
  EXPECT_LE(server_.connections(), kThreads);
}

TEST_F(CurlHttpClientTest, ConnectionRefusedIsUnavailable) {
  uint16_t port;
  {
    TestHttpServer closed;  // a port that was just listening and now is not
    port = closed.port();
  }
  auto client = NewClient();
  auto response = client->Send(Request(
      "PUT",
      "http://127.0.0.1:" + std::to_string(port) + "/k?X-Amz-Signature=s3cr3t",
      {{"Authorization", "top-secret"}}, "x"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(),
              HasSubstr("request not sent: could not connect to 127.0.0.1:" +
                        std::to_string(port)));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("top-secret")));
}

TEST_F(CurlHttpClientTest, UnresolvableHostIsUnavailable) {
  auto client = NewClient();
  auto response = client->Send(Request("GET", "http://no-such-host.invalid/k"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(),
              HasSubstr("no-such-host.invalid:80"));
}

TEST_F(CurlHttpClientTest, TimeoutAfterSendingIsUnknownOutcome) {
  auto client = NewClient(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  auto response = client->Send(
      Request("PUT", server_.Url("/stall/k?X-Amz-Signature=s3cr3t"),
              {{"x-amz-security-token", "tok3n"}}, "data"));
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnknownOutcome);
  EXPECT_THAT(response.status().message(),
              HasSubstr(server_.HostPort() + "/stall/k"));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("tok3n")));
  EXPECT_LT(elapsed, std::chrono::seconds(3));
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(CurlHttpClientTest, ConnectionClosedAfterRequestIsUnknownOutcome) {
  auto client = NewClient();
  auto response =
      client->Send(Request("PUT", server_.Url("/close/k"), {}, "data"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnknownOutcome);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(CurlHttpClientTest, WriteOnReusedConnectionThatDiesIsNotResent) {
  auto client = NewClient();
  ASSERT_TRUE(client->Send(Request("GET", server_.Url("/warm"))).ok());
  // libcurl would resend this on a fresh connection and apply it twice.
  auto response =
      client->Send(Request("PUT", server_.Url("/close/k"), {}, "data"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnknownOutcome);
  EXPECT_THAT(response.status().message(), HasSubstr("not resent"));
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].method, "PUT");
  // The client recovers: the next request opens a new connection.
  auto after = client->Send(Request("GET", server_.Url("/again")));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
}

TEST_F(CurlHttpClientTest, MalformedRequestsAreRejectedBeforeSending) {
  auto client = NewClient();
  auto injected =
      client->Send(Request("GET", server_.Url("/k"), {{"X-A", "v\r\nX-B: w"}}));
  EXPECT_EQ(injected.status().code(), StatusCode::kInvalidArgument);
  auto method = client->Send(Request("PATCH", server_.Url("/k")));
  EXPECT_EQ(method.status().code(), StatusCode::kInvalidArgument);
  auto length = client->Send(
      Request("PUT", server_.Url("/k"), {{"Content-Length", "9"}}, "x"));
  EXPECT_EQ(length.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(CurlHttpClientTest, EmptyHeaderValueIsSentEmpty) {
  auto client = NewClient();
  ASSERT_TRUE(
      client
          ->Send(Request("GET", server_.Url("/k"), {{"X-Amz-Meta-Empty", ""}}))
          .ok());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].Header("x-amz-meta-empty"), "");
}

}  // namespace
}  // namespace deltacommit::aws
