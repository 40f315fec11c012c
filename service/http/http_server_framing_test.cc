// HttpServer's checks of a request's framing and of its unique headers, on
// raw bytes over one TCP connection: each refused request is followed, in
// the same write, by a second request that a server splitting the stream
// differently would answer (request smuggling). The server must answer the
// first exactly once (400, or 501 for a coding it does not decode, with its
// JSON error body), close, and never answer or run the second.
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/http_server.h"
#include "service/http/http_test_util.h"

namespace deltacommit::http {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RawConnection;
using testing::RawResponse;
using testing::StartTestServer;

// The request hidden in the first one's body: answered only if the server
// took that body for the next request.
constexpr std::string_view kSmuggled =
    "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

// POST /echo answers the body it got; GET /smuggled counts its runs.
class HttpServerFramingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Router router;
    ASSERT_TRUE(router
                    .Add("POST", "/echo",
                         [this](const Request& request) {
                           echoes_.fetch_add(1);
                           nlohmann::json body = {{"body", request.body}};
                           return Response::Json(200, body.dump());
                         })
                    .ok());
    ASSERT_TRUE(router
                    .Add("GET", "/smuggled",
                         [this](const Request&) {
                           smuggled_.fetch_add(1);
                           return Response::Json(200, "{}");
                         })
                    .ok());
    server_ = StartTestServer({}, std::move(router));
    ASSERT_NE(server_, nullptr);
  }

  // Sends `bytes` in one write and expects one error answer with `status`
  // and `code`, then the close; no handler may have run. Returns the
  // answer's error message.
  std::string ExpectRefusedAndClosed(const std::string& bytes, int status,
                                     std::string_view code) {
    RawConnection connection(server_->port());
    EXPECT_TRUE(connection.Send(bytes));
    std::optional<RawResponse> response = connection.ReadResponse();
    if (!response.has_value()) {
      ADD_FAILURE() << "no answer to: " << bytes;
      return "";
    }
    EXPECT_EQ(response->status, status) << bytes << "\n" << response->body;
    EXPECT_EQ(response->Header("connection"), "close") << bytes;
    EXPECT_EQ(response->Header("content-type"), "application/json");
    nlohmann::json body = nlohmann::json::parse(response->body, nullptr, false);
    if (!body.is_object()) {
      ADD_FAILURE() << "not a JSON error body: " << response->body;
      return "";
    }
    EXPECT_EQ(body["error"]["code"], code) << response->body;
    // Nothing more: neither the smuggled request's answer nor a 100.
    std::optional<RawResponse> second =
        connection.ReadResponse(milliseconds(500));
    EXPECT_FALSE(second.has_value())
        << "a second answer, status " << second->status << ", to: " << bytes;
    EXPECT_TRUE(connection.WaitForClose()) << bytes;
    EXPECT_EQ(echoes_.load(), 0) << bytes;
    EXPECT_EQ(smuggled_.load(), 0) << bytes;
    return body["error"]["message"].is_string()
               ? body["error"]["message"].get<std::string>()
               : "";
  }

  std::unique_ptr<HttpServer> server_;
  std::atomic<int> echoes_{0};
  std::atomic<int> smuggled_{0};
};

std::string Post(std::string_view headers, std::string_view body) {
  return "POST /echo HTTP/1.1\r\nHost: x\r\n" + std::string(headers) + "\r\n" +
         std::string(body);
}

TEST_F(HttpServerFramingTest, TransferEncodingNotEndingInChunkedIs400) {
  for (std::string_view coding :
       {"gzip", "chunked, gzip", "chunked, chunked", "identity", "GZIP",
        "chunked;ext=1", "\"chunked\"", ""}) {
    std::string message = ExpectRefusedAndClosed(
        Post("Transfer-Encoding: " + std::string(coding) + "\r\n", kSmuggled),
        400, "bad_request");
    EXPECT_THAT(message, HasSubstr("Transfer-Encoding")) << coding;
  }
}

TEST_F(HttpServerFramingTest, TransferEncodingLinesCombineIntoOneList) {
  // chunked on the first line and gzip on the second: gzip is last.
  ExpectRefusedAndClosed(Post("Transfer-Encoding: chunked\r\n"
                              "transfer-encoding: gzip\r\n",
                              "0\r\n\r\n" + std::string(kSmuggled)),
                         400, "bad_request");
  // chunked on two lines: twice.
  ExpectRefusedAndClosed(Post("Transfer-Encoding: chunked\r\n"
                              "Transfer-Encoding: chunked\r\n",
                              "0\r\n\r\n" + std::string(kSmuggled)),
                         400, "bad_request");
}

TEST_F(HttpServerFramingTest, CodingBeforeChunkedIs501NamingIt) {
  const std::string chunked_body = "5\r\nhello\r\n0\r\n\r\n";
  for (std::string_view headers :
       {"Transfer-Encoding: gzip, chunked\r\n",
        "Transfer-Encoding: GZip ,\t CHUNKED \r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"}) {
    std::string message = ExpectRefusedAndClosed(
        Post(headers, chunked_body + std::string(kSmuggled)), 501,
        "not_implemented");
    EXPECT_THAT(message, HasSubstr("Transfer-Encoding gzip")) << headers;
  }
  std::string identity =
      ExpectRefusedAndClosed(Post("Transfer-Encoding: identity, chunked\r\n",
                                  chunked_body + std::string(kSmuggled)),
                             501, "not_implemented");
  EXPECT_THAT(identity, HasSubstr("identity"));
}

// The refusal comes before the go-ahead: no body is asked for.
TEST_F(HttpServerFramingTest, RefusedBeforeTheContinue) {
  ExpectRefusedAndClosed(Post("Transfer-Encoding: gzip, chunked\r\n"
                              "Expect: 100-continue\r\n",
                              ""),
                         501, "not_implemented");
}

TEST_F(HttpServerFramingTest, ContentLengthWithTransferEncodingIs400) {
  const std::string body = "0\r\n\r\n" + std::string(kSmuggled);
  const std::string length =
      "Content-Length: " + std::to_string(body.size()) + "\r\n";
  for (const std::string& headers : {length + "Transfer-Encoding: chunked\r\n",
                                     "Transfer-Encoding: chunked\r\n" + length,
                                     "Transfer-Encoding: gzip\r\n" + length}) {
    ExpectRefusedAndClosed(Post(headers, body), 400, "bad_request");
  }
}

TEST_F(HttpServerFramingTest, RepeatedContentLengthIs400) {
  const std::string body = "abcd" + std::string(kSmuggled);
  for (std::string_view headers :
       {"Content-Length: 4\r\nContent-Length: 40\r\n",  // differ
        "Content-Length: 4\r\nContent-Length: 4\r\n",   // repeat
        "Content-Length: 4, 4\r\n"}) {
    ExpectRefusedAndClosed(Post(headers, body), 400, "bad_request");
  }
}

TEST_F(HttpServerFramingTest, TransferEncodingInHttp10Is400) {
  ExpectRefusedAndClosed(
      "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
      "\r\n0\r\n\r\n" +
          std::string(kSmuggled),
      400, "bad_request");
}

// Chunked alone, in any case and with whitespace, is served and the
// connection stays open for the next request.
TEST_F(HttpServerFramingTest, ChunkedAloneIsServedAndKeptAlive) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.Send(
      Post("Transfer-Encoding: \t Chunked \r\n", "5\r\nhello\r\n0\r\n\r\n") +
      Post("Transfer-Encoding: ,chunked\r\n", "3\r\nabc\r\n0\r\n\r\n")));
  for (std::string_view expected : {"hello", "abc"}) {
    std::optional<RawResponse> response = connection.ReadResponse();
    ASSERT_TRUE(response.has_value()) << expected;
    EXPECT_EQ(response->status, 200) << response->body;
    EXPECT_EQ(nlohmann::json::parse(response->body)["body"], expected);
  }
  EXPECT_EQ(echoes_.load(), 2);
}

// A second Authorization: which one a proxy checked and which one a
// handler reads could differ. Refused before the body, so closed too.
TEST_F(HttpServerFramingTest, DuplicateAuthorizationIs400WithoutItsValue) {
  const std::string body = "{}";
  std::string message =
      ExpectRefusedAndClosed(Post("Authorization: Bearer first-token-value\r\n"
                                  "authorization: Bearer second-token-value\r\n"
                                  "Content-Length: 2\r\n",
                                  body + std::string(kSmuggled)),
                             400, "bad_request");
  EXPECT_THAT(message, HasSubstr("more than one Authorization header"));
  EXPECT_THAT(message, Not(HasSubstr("token-value")));
  EXPECT_THAT(message, Not(HasSubstr("Bearer")));
}

TEST_F(HttpServerFramingTest, DuplicateHostIs400) {
  std::string message = ExpectRefusedAndClosed(
      "GET /smuggled HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n" +
          std::string(kSmuggled),
      400, "bad_request");
  EXPECT_THAT(message, HasSubstr("more than one Host header"));
  EXPECT_THAT(message, Not(HasSubstr("example")));
}

TEST_F(HttpServerFramingTest, OneAuthorizationAndHostAreServed) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.Send(
      Post("Authorization: Bearer t\r\nContent-Length: 2\r\n", "{}")));
  std::optional<RawResponse> response = connection.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->Header("connection"), "");  // kept alive
}

}  // namespace
}  // namespace deltacommit::http
