// HttpServer limits and timeouts on 127.0.0.1: 413, 431, 408, idle close,
// 503 on a full worker queue and at max_connections, and many idle
// keep-alive connections held while others are served.
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/http_server.h"
#include "service/http/http_test_util.h"

namespace deltacommit::http {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using testing::LocalUrl;
using testing::RawConnection;
using testing::RawRequest;
using testing::RawResponse;
using testing::Send;
using testing::StartTestServer;
using SteadyClock = std::chrono::steady_clock;

std::string ErrorCode(const RawResponse& response) {
  return nlohmann::json::parse(response.body)["error"]["code"];
}

// A router whose POST /echo counts the handler runs.
Router CountingRouter(std::atomic<int>& runs) {
  Router router;
  EXPECT_TRUE(
      router
          .Add("POST", "/echo",
               [&runs](const Request& request) {
                 runs.fetch_add(1);
                 return Response::Json(
                     200,
                     "{\"size\":" + std::to_string(request.body.size()) + "}");
               })
          .ok());
  EXPECT_TRUE(router
                  .Add("GET", "/ping",
                       [](const Request&) { return Response::Json(200, "{}"); })
                  .ok());
  return router;
}

TEST(HttpServerLimitsTest, OversizedBodyIs413OnTheHeaderAndCloses) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  // Announces 10 MB but sends only 100 bytes: the answer must come anyway.
  ASSERT_TRUE(
      connection.Send("POST /echo HTTP/1.1\r\nHost: x\r\n"
                      "Content-Length: 10000000\r\n\r\n" +
                      std::string(100, 'a')));
  auto response = connection.ReadResponse(milliseconds(3000));
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 413);
  EXPECT_EQ(ErrorCode(*response), "too_large");
  EXPECT_THAT(response->body, HasSubstr("1024 bytes"));
  EXPECT_EQ(response->Header("connection"), "close");
  EXPECT_TRUE(connection.WaitForClose());
  EXPECT_EQ(runs.load(), 0);
}

TEST(HttpServerLimitsTest, OversizedBodyFromCurlIs413) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  auto client = aws::NewCurlHttpClient();
  auto response = Send(*client, "POST", LocalUrl(server->port(), "/echo"),
                       std::string(256 * 1024, 'b'));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 413);
  // A body at the limit passes.
  auto at_limit = Send(*client, "POST", LocalUrl(server->port(), "/echo"),
                       std::string(1024, 'c'));
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
  EXPECT_EQ(at_limit->status, 200);
  EXPECT_EQ(runs.load(), 1);
}

TEST(HttpServerLimitsTest, ChunkedBodyOverTheLimitIs413) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.Send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "800\r\n" +
      std::string(0x800, 'd') + "\r\n"));
  auto response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 413);
  EXPECT_TRUE(connection.WaitForClose());
  EXPECT_EQ(runs.load(), 0);
}

TEST(HttpServerLimitsTest, OversizedHeadersAre431AndClose) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.Send(RawRequest(
      "POST", "/echo", "X-Big: " + std::string(2000, 'h') + "\r\n", "x")));
  auto response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 431);
  EXPECT_EQ(ErrorCode(*response), "headers_too_large");
  EXPECT_TRUE(connection.WaitForClose());
  EXPECT_EQ(runs.load(), 0);
}

TEST(HttpServerLimitsTest, StalledHeaderIs408AfterTheRequestTimeout) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.request_timeout = milliseconds(300);
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  auto start = SteadyClock::now();
  ASSERT_TRUE(connection.Send("POST /echo HTTP/1.1\r\nHost: x\r\n"));
  auto response = connection.ReadResponse(milliseconds(5000));
  auto waited = SteadyClock::now() - start;
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 408);
  EXPECT_EQ(ErrorCode(*response), "request_timeout");
  EXPECT_GE(waited, milliseconds(250));
  EXPECT_LT(waited, milliseconds(3000));
  EXPECT_TRUE(connection.WaitForClose());
}

TEST(HttpServerLimitsTest, StalledBodyIs408) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.request_timeout = milliseconds(300);
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.Send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc"));
  auto response = connection.ReadResponse(milliseconds(5000));
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 408);
  EXPECT_EQ(runs.load(), 0);
}

TEST(HttpServerLimitsTest, IdleKeepAliveConnectionIsClosedWithoutAnAnswer) {
  std::atomic<int> runs{0};
  HttpServerOptions options;
  options.idle_timeout = milliseconds(200);
  options.request_timeout = milliseconds(10000);
  auto server = StartTestServer(options, CountingRouter(runs));
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.Send(RawRequest("GET", "/ping")));
  ASSERT_TRUE(connection.ReadResponse().has_value());
  auto start = SteadyClock::now();
  EXPECT_FALSE(connection.ReadResponse(milliseconds(5000)).has_value());
  EXPECT_LT(SteadyClock::now() - start,
            milliseconds(3000));  // closed, not timed out
}

TEST(HttpServerLimitsTest, FullWorkerQueueIs503WithRetryAfter) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> entered{0};
  Router router;
  ASSERT_TRUE(router
                  .Add("GET", "/slow",
                       [&](const Request&) {
                         entered.fetch_add(1);
                         released.wait();
                         return Response::Json(200, "{}");
                       })
                  .ok());
  HttpServerOptions options;
  options.worker_threads = 1;
  options.max_queued_requests = 1;
  auto server = StartTestServer(options, std::move(router));
  ASSERT_NE(server, nullptr);

  RawConnection running(server->port()), queued(server->port()),
      refused(server->port());
  ASSERT_TRUE(running.Send(RawRequest("GET", "/slow")));
  while (entered.load() == 0) std::this_thread::sleep_for(milliseconds(5));
  ASSERT_TRUE(queued.Send(RawRequest("GET", "/slow")));
  // The queued request must be in the queue before the third arrives: it
  // shows up as a response-less connection, so give it a moment.
  EXPECT_FALSE(queued.ReadResponse(milliseconds(200)).has_value());
  ASSERT_TRUE(refused.Send(RawRequest("GET", "/slow")));
  auto response = refused.ReadResponse(milliseconds(2000));
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(ErrorCode(*response), "unavailable");
  EXPECT_EQ(response->Header("retry-after"), "1");
  release.set_value();
  auto first = running.ReadResponse();
  auto second = queued.ReadResponse();
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(entered.load(), 2);
}

TEST(HttpServerLimitsTest, ConnectionBeyondMaxConnectionsIs503AndClosed) {
  std::atomic<int> runs{0};
  Metrics metrics;
  HttpServerOptions options;
  options.max_connections = 2;
  auto server = StartTestServer(options, CountingRouter(runs), &metrics);
  ASSERT_NE(server, nullptr);
  RawConnection a(server->port()), b(server->port());
  for (RawConnection* held : {&a, &b}) {
    ASSERT_TRUE(held->Send(RawRequest("GET", "/ping")));
    ASSERT_TRUE(held->ReadResponse().has_value());
  }
  RawConnection third(server->port());
  ASSERT_TRUE(third.connected());
  auto response = third.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 503);
  EXPECT_THAT(response->body, HasSubstr("limit of 2 connections"));
  EXPECT_TRUE(third.WaitForClose());
  EXPECT_THAT(metrics.Render(),
              HasSubstr("http_connections_rejected_total{reason=\"max_"
                        "connections\"} 1\n"));
  // The held connections still work.
  ASSERT_TRUE(a.Send(RawRequest("GET", "/ping")));
  auto again = a.ReadResponse();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);
}

// 300 idle keep-alive connections (the 1,000 figure is for the benchmark)
// must neither block nor slow the others: no thread per connection.
TEST(HttpServerLimitsTest, HundredsOfIdleConnectionsWhileOthersAreServed) {
  constexpr int kIdle = 300;
  std::atomic<int> runs{0};
  Metrics metrics;
  HttpServerOptions options;
  options.io_threads = 2;
  options.worker_threads = 4;
  auto server = StartTestServer(options, CountingRouter(runs), &metrics);
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < kIdle; ++i) {
    idle.push_back(std::make_unique<RawConnection>(server->port()));
    ASSERT_TRUE(idle.back()->connected()) << i;
    ASSERT_TRUE(idle.back()->Send(RawRequest("GET", "/ping")));
  }
  for (auto& connection : idle) {
    auto response = connection->ReadResponse();
    ASSERT_TRUE(response.has_value());
    ASSERT_EQ(response->status, 200);
  }
  EXPECT_THAT(metrics.Render(), HasSubstr("http_open_connections " +
                                          std::to_string(kIdle) + "\n"));

  std::vector<std::thread> committers;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    committers.emplace_back([&] {
      auto client = aws::NewCurlHttpClient();
      for (int i = 0; i < 25; ++i) {
        auto response =
            Send(*client, "POST", LocalUrl(server->port(), "/echo"), "c");
        if (response.ok() && response->status == 200) ok.fetch_add(1);
      }
    });
  }
  for (auto& thread : committers) thread.join();
  EXPECT_EQ(ok.load(), 100);
  for (auto& connection : idle) {  // every idle connection is still served
    ASSERT_TRUE(connection->Send(RawRequest("GET", "/ping")));
    auto response = connection->ReadResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 200);
  }
}

}  // namespace
}  // namespace deltacommit::http
