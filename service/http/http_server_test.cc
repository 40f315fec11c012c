// HttpServer on 127.0.0.1 driven by the project's libcurl client (and a raw
// socket where a real client would not misbehave): routing, parameters,
// the server's own errors, keep-alive, pipelining, metrics and access log.
#include "service/http/http_server.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/http_test_util.h"

namespace deltacommit::http {
namespace {

using testing::Eventually;
using ::testing::HasSubstr;
using testing::LocalUrl;
using testing::RawConnection;
using testing::RawRequest;
using testing::Send;
using testing::StartTestServer;

// Echoes what the handler received as JSON.
Response Echo(const Request& request) {
  nlohmann::json query = nlohmann::json::array();
  for (const auto& [name, value] : request.query)
    query.push_back({name, value});
  nlohmann::json body = {{"method", request.method},
                         {"route", request.route},
                         {"path", request.path},
                         {"params", request.path_params},
                         {"query", query},
                         {"body", request.body},
                         {"peer", request.peer},
                         {"request_id", request.request_id},
                         {"x_test", request.Header("X-Test").value_or("")}};
  return Response::Json(200, body.dump());
}

Router TestRouter() {
  Router router;
  EXPECT_TRUE(router.Add("GET", "/v1/tables/{table}/commits", Echo).ok());
  EXPECT_TRUE(router.Add("POST", "/v1/commits", Echo).ok());
  EXPECT_TRUE(router
                  .Add("GET", "/throw",
                       [](const Request&) -> Response {
                         throw std::runtime_error("boom");
                       })
                  .ok());
  EXPECT_TRUE(router
                  .Add("GET", "/bad-header",
                       [](const Request&) {
                         Response response;
                         response.headers.emplace_back("X-Evil",
                                                       "a\r\nSet-Cookie: x");
                         return response;
                       })
                  .ok());
  return router;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartTestServer({}, TestRouter(), &metrics_, &log_.logger());
    ASSERT_NE(server_, nullptr);
  }

  nlohmann::json Json(const aws::HttpResponse& response) {
    return nlohmann::json::parse(response.body);
  }
  std::string Url(std::string_view target) {
    return LocalUrl(server_->port(), target);
  }

  testing::LogCapture log_;
  Metrics metrics_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<aws::HttpClient> client_ = aws::NewCurlHttpClient();
};

TEST_F(HttpServerTest, RoutesWithDecodedPathParameterAndQuery) {
  auto response = Send(*client_, "GET",
                       Url("/v1/tables/s3%3A%2F%2Fbucket%2Fevents/commits"
                           "?start=7&note=a+b%26c"));
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->Header("content-type"), "application/json");
  nlohmann::json body = Json(*response);
  EXPECT_EQ(body["route"], "/v1/tables/{table}/commits");
  EXPECT_EQ(body["params"]["table"], "s3://bucket/events");
  EXPECT_EQ(body["query"],
            nlohmann::json::parse(R"([["start","7"],["note","a b&c"]])"));
  EXPECT_THAT(body["peer"].get<std::string>(), HasSubstr("127.0.0.1:"));
  EXPECT_EQ(body["request_id"], response->Header("x-request-id"));
}

TEST_F(HttpServerTest, PostBodyReachesTheHandler) {
  auto response =
      Send(*client_, "POST", Url("/v1/commits"), R"({"version":7})");
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(Json(*response)["body"], R"({"version":7})");
}

TEST_F(HttpServerTest, UnknownPathIs404WithJsonError) {
  auto response = Send(*client_, "GET", Url("/v2/nothing"));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 404);
  nlohmann::json body = Json(*response);
  EXPECT_EQ(body["error"]["code"], "not_found");
  EXPECT_THAT(body["error"]["message"].get<std::string>(),
              HasSubstr("/v2/nothing"));
}

TEST_F(HttpServerTest, WrongMethodIs405WithAllow) {
  auto response = Send(*client_, "DELETE", Url("/v1/commits"));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 405);
  EXPECT_EQ(response->Header("allow"), "POST");
  EXPECT_EQ(Json(*response)["error"]["code"], "method_not_allowed");
}

TEST_F(HttpServerTest, MalformedEscapesAre400) {
  auto in_query = Send(*client_, "GET", Url("/v1/tables/t/commits?start=%zz"));
  ASSERT_TRUE(in_query.ok());
  EXPECT_EQ(in_query->status, 400);
  EXPECT_EQ(Json(*in_query)["error"]["code"], "bad_request");
  auto in_path = Send(*client_, "GET", Url("/v1/tables/t%G1/commits"));
  ASSERT_TRUE(in_path.ok());
  EXPECT_EQ(in_path->status, 400);
  EXPECT_THAT(Json(*in_path)["error"]["message"].get<std::string>(),
              HasSubstr("{table}"));
}

TEST_F(HttpServerTest, MalformedRequestIs400AndCloses) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(
      connection.Send("GET /v1/commits HTTP/1.1\r\nBad Header\r\n\r\n"));
  auto response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(nlohmann::json::parse(response->body)["error"]["code"],
            "bad_request");
  EXPECT_TRUE(connection.WaitForClose());
}

TEST_F(HttpServerTest, HandlerExceptionIs500AndServerKeepsServing) {
  auto thrown = Send(*client_, "GET", Url("/throw"));
  ASSERT_TRUE(thrown.ok());
  EXPECT_EQ(thrown->status, 500);
  nlohmann::json body = Json(*thrown);
  EXPECT_EQ(body["error"]["code"], "internal");
  // The client gets the request id, not the exception's text.
  EXPECT_THAT(body["error"]["message"].get<std::string>(),
              HasSubstr(thrown->Header("x-request-id")));
  EXPECT_THAT(thrown->body, ::testing::Not(HasSubstr("boom")));
  EXPECT_THAT(log_.text(), HasSubstr("\"msg\":\"handler threw\""));
  EXPECT_THAT(log_.text(), HasSubstr("boom"));
  auto after = Send(*client_, "POST", Url("/v1/commits"), "x");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, 200);
}

TEST_F(HttpServerTest, HeaderWithCrLfFromHandlerIs500NotSent) {
  auto response = Send(*client_, "GET", Url("/bad-header"));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->Header("set-cookie"), "");
  EXPECT_THAT(log_.text(), HasSubstr("header 'X-Evil' has a value with CR"));
}

TEST_F(HttpServerTest, KeepAliveReusesOneConnectionForManyRequests) {
  std::set<std::string> peers;
  for (int i = 0; i < 20; ++i) {
    auto response = Send(*client_, "POST", Url("/v1/commits"), "n");
    ASSERT_TRUE(response.ok()) << response.status().ToString();
    ASSERT_EQ(response->status, 200);
    peers.insert(Json(*response)["peer"].get<std::string>());
  }
  EXPECT_EQ(peers.size(), 1u);
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  RawConnection connection(server_->port());
  std::string batch;
  for (int i = 0; i < 5; ++i) {
    batch += RawRequest("POST", "/v1/commits", "", "body-" + std::to_string(i));
  }
  ASSERT_TRUE(connection.Send(batch));
  for (int i = 0; i < 5; ++i) {
    auto response = connection.ReadResponse();
    ASSERT_TRUE(response.has_value()) << i;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(nlohmann::json::parse(response->body)["body"],
              "body-" + std::to_string(i));
  }
}

TEST_F(HttpServerTest, ValidClientRequestIdIsKeptOthersReplaced) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.Send(
      RawRequest("POST", "/v1/commits", "X-Request-Id: abc-123\r\n", "x")));
  auto kept = connection.ReadResponse();
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->Header("x-request-id"), "abc-123");
  ASSERT_TRUE(connection.Send(
      RawRequest("POST", "/v1/commits", "X-Request-Id: a b\"c\r\n", "x")));
  auto replaced = connection.ReadResponse();
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->Header("x-request-id").size(), 36u);  // a UUID
}

TEST_F(HttpServerTest, ExpectContinueGetsTheGoAhead) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.Send(
      "POST /v1/commits HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
      "Expect: 100-continue\r\n\r\n"));
  auto go_ahead = connection.ReadResponse();
  ASSERT_TRUE(go_ahead.has_value());
  EXPECT_EQ(go_ahead->status, 100);
  ASSERT_TRUE(connection.Send("data"));
  auto response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(nlohmann::json::parse(response->body)["body"], "data");
}

TEST_F(HttpServerTest, Http10WithoutKeepAliveIsClosedAfterTheAnswer) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.Send("GET /v1/tables/t/commits HTTP/1.0\r\n\r\n"));
  auto response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(connection.WaitForClose());
}

TEST_F(HttpServerTest, CountsRequestsAndLogsOneJsonLinePerRequest) {
  ASSERT_TRUE(Send(*client_, "POST", Url("/v1/commits"), "x").ok());
  ASSERT_TRUE(Send(*client_, "GET", Url("/nowhere")).ok());
  const std::string not_found =
      "http_requests_total{route=\"unmatched\",method=\"GET\",status=\"404\"} "
      "1\n";
  ASSERT_TRUE(Eventually([&] {
    return metrics_.Render().find(not_found) != std::string::npos;
  })) << metrics_.Render();
  std::string text = metrics_.Render();
  EXPECT_THAT(text, HasSubstr("http_requests_total{route=\"/v1/commits\","
                              "method=\"POST\",status=\"200\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("http_request_duration_seconds_count{route=\"/v1/"
                              "commits\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("http_open_connections 1\n"));
  EXPECT_THAT(text, HasSubstr("http_handlers_in_flight 0\n"));
  ASSERT_TRUE(Eventually([&] {
    std::string log = log_.text();
    return std::count(log.begin(), log.end(), '\n') >= 3;  // listening + 2
  })) << log_.text();
  std::istringstream lines(log_.text());
  int requests = 0;
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json entry = nlohmann::json::parse(line);
    if (entry["msg"] != "request") continue;
    ++requests;
    for (const char* field : {"time", "level", "request_id", "route", "status",
                              "duration_ms", "peer", "method"}) {
      EXPECT_TRUE(entry.contains(field)) << field << " missing in " << line;
    }
  }
  EXPECT_EQ(requests, 2);
}

TEST(HttpServerStartTest, BadAddressAndBusyPortAreClearErrors) {
  HttpServerOptions bad;
  bad.address = "not-an-ip";
  HttpServer server(bad, Router(), nullptr, nullptr);
  Status started = server.Start();
  EXPECT_EQ(started.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(started.message(), HasSubstr("'not-an-ip'"));

  auto first = StartTestServer({}, Router());
  ASSERT_NE(first, nullptr);
  HttpServerOptions busy;
  busy.port = first->port();
  HttpServer second(busy, Router(), nullptr, nullptr);
  Status clash = second.Start();
  EXPECT_EQ(clash.code(), StatusCode::kUnavailable);
  EXPECT_THAT(clash.message(),
              HasSubstr("127.0.0.1:" + std::to_string(first->port())));
}

}  // namespace
}  // namespace deltacommit::http
