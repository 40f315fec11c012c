// HttpServer::Stop() and RunUntilSignal(): in-flight requests finish, idle
// connections close, new connections are refused, the drain deadline holds.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <optional>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/http_server.h"
#include "service/http/http_test_util.h"
#include "service/http/run_until_signal.h"

namespace deltacommit::http {
namespace {

using std::chrono::milliseconds;
using testing::LocalUrl;
using testing::RawConnection;
using testing::RawRequest;
using testing::Send;
using testing::StartTestServer;
using SteadyClock = std::chrono::steady_clock;

// GET /slow blocks until released; GET /ping answers at once.
class SlowRouter {
 public:
  Router Build() {
    Router router;
    EXPECT_TRUE(router
                    .Add("GET", "/slow",
                         [this](const Request&) {
                           entered_.set_value();
                           released_.wait();
                           return Response::Json(200, "{\"slow\":true}");
                         })
                    .ok());
    EXPECT_TRUE(
        router
            .Add("GET", "/ping",
                 [](const Request&) { return Response::Json(200, "{}"); })
            .ok());
    return router;
  }
  void WaitEntered() { entered_.get_future().wait(); }
  void Release() { release_.set_value(); }

 private:
  std::promise<void> entered_;
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
};

// True once connecting to `port` is refused, polling for up to 2 s.
bool RefusesConnections(uint16_t port) {
  auto deadline = SteadyClock::now() + milliseconds(2000);
  while (SteadyClock::now() < deadline) {
    if (!RawConnection(port).connected()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

TEST(HttpServerShutdownTest, InFlightRequestFinishesIdleClosesNewRefused) {
  SlowRouter slow;
  HttpServerOptions options;
  // This client never closes its end: don't wait the default 2 s for it.
  options.linger_timeout = milliseconds(100);
  auto server = StartTestServer(options, slow.Build());
  ASSERT_NE(server, nullptr);
  uint16_t port = server->port();
  RawConnection idle(port);
  ASSERT_TRUE(idle.Send(RawRequest("GET", "/ping")));
  ASSERT_TRUE(idle.ReadResponse().has_value());

  RawConnection in_flight(port);
  ASSERT_TRUE(in_flight.Send(RawRequest("GET", "/slow")));
  slow.WaitEntered();
  auto stopped = std::async(std::launch::async, [&] { server->Stop(); });

  EXPECT_TRUE(RefusesConnections(port));
  EXPECT_TRUE(idle.WaitForClose(milliseconds(2000)));
  EXPECT_TRUE(server->stopping());
  EXPECT_EQ(stopped.wait_for(milliseconds(100)), std::future_status::timeout);

  slow.Release();
  auto response = in_flight.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "{\"slow\":true}");
  EXPECT_EQ(response->Header("connection"), "close");
  EXPECT_TRUE(in_flight.WaitForClose());
  EXPECT_EQ(stopped.wait_for(milliseconds(5000)), std::future_status::ready);
}

TEST(HttpServerShutdownTest, DrainTimeoutClosesWhatIsLeft) {
  SlowRouter slow;
  HttpServerOptions options;
  options.drain_timeout = milliseconds(200);
  auto server = StartTestServer(options, slow.Build());
  ASSERT_NE(server, nullptr);
  RawConnection in_flight(server->port());
  ASSERT_TRUE(in_flight.Send(RawRequest("GET", "/slow")));
  slow.WaitEntered();
  auto start = SteadyClock::now();
  auto stopped = std::async(std::launch::async, [&] { server->Stop(); });
  // Closed without an answer once the drain deadline passes...
  EXPECT_FALSE(in_flight.ReadResponse(milliseconds(3000)).has_value());
  EXPECT_GE(SteadyClock::now() - start, milliseconds(150));
  // ...and Stop() returns once the handler it cannot interrupt is done.
  slow.Release();
  EXPECT_EQ(stopped.wait_for(milliseconds(5000)), std::future_status::ready);
}

TEST(HttpServerShutdownTest, StopIsIdempotentAndSafeBeforeStart) {
  HttpServer never_started({}, Router(), nullptr, nullptr);
  never_started.Stop();
  never_started.Stop();
  EXPECT_TRUE(never_started.stopping());
  auto server = StartTestServer({}, Router());
  ASSERT_NE(server, nullptr);
  server->Stop();
  server->Stop();
}

TEST(HttpServerShutdownTest, SigtermStopsTheServer) {
  SlowRouter slow;
  auto server = StartTestServer({}, slow.Build());
  ASSERT_NE(server, nullptr);
  uint16_t port = server->port();
  std::promise<void> waiting;
  auto run = std::async(std::launch::async, [&] {
    return RunUntilSignal(*server, [&] { waiting.set_value(); });
  });
  waiting.get_future().wait();
  auto client = aws::NewCurlHttpClient();
  auto before = Send(*client, "GET", LocalUrl(port, "/ping"));
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->status, 200);
  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  ASSERT_EQ(run.wait_for(milliseconds(5000)), std::future_status::ready);
  EXPECT_EQ(run.get(), SIGTERM);
  EXPECT_TRUE(server->stopping());
  EXPECT_FALSE(RawConnection(port).connected());
}

}  // namespace
}  // namespace deltacommit::http
