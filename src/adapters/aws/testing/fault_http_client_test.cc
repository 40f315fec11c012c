// FaultInjectingHttpClient's rules: what they match, when they fire, and
// what reaches the wrapped client for each kind of fault.
#include "deltacommit/aws/testing/fault_http_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace deltacommit::aws::testing {
namespace {

// Records what reaches it and answers 200 "sent".
class RecordingHttpClient : public HttpClient {
 public:
  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    sent.push_back(request.body);
    HttpResponse r;
    r.status = 200;
    r.body = "sent";
    return r;
  }
  std::vector<std::string> sent;
};

HttpRequest DynamoDbCall(const std::string& operation, const std::string& body) {
  HttpRequest r;
  r.method = "POST";
  r.url = "http://127.0.0.1:8000/";
  r.headers = {{"x-amz-target", "DynamoDB_20120810." + operation}};  // any case matches
  r.body = body;
  return r;
}

HttpResponse Throttled() {
  HttpResponse r;
  r.status = 400;
  r.body = R"({"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException"})";
  return r;
}

TEST(HttpMatchTest, MatchesOperationMethodUrlAndBodyEmptyFieldsMatchAnything) {
  const HttpRequest put = DynamoDbCall("PutItem", R"({"ConditionExpression":"x"})");
  EXPECT_TRUE(HttpMatch{}.Matches(put));
  EXPECT_TRUE(HttpMatch::Operation("PutItem").Matches(put));
  EXPECT_FALSE(HttpMatch::Operation("Put").Matches(put));  // whole operation only
  EXPECT_FALSE(HttpMatch::Operation("GetItem").Matches(put));
  EXPECT_TRUE(HttpMatch::Request("post", "").Matches(put));
  EXPECT_FALSE(HttpMatch::Request("PUT", "").Matches(put));
  EXPECT_TRUE(HttpMatch::Request("", ":8000/").Matches(put));
  EXPECT_FALSE(HttpMatch::Request("", "/bucket/").Matches(put));
  EXPECT_TRUE(HttpMatch::Operation("PutItem").WithBody("ConditionExpression").Matches(put));
  EXPECT_FALSE(HttpMatch().WithBody("complete").Matches(put));
  // An S3 request has no X-Amz-Target: only an empty operation matches it.
  const HttpRequest get{"GET", "http://127.0.0.1:7480/bucket/key", {}, ""};
  EXPECT_FALSE(HttpMatch::Operation("PutItem").Matches(get));
  EXPECT_TRUE(HttpMatch::Request("GET", "/bucket/").Matches(get));
}

TEST(FaultInjectingHttpClientTest, CannedReplyFiresOnNthForTimesThenForwards) {
  RecordingHttpClient base;
  FaultInjectingHttpClient client(base);
  auto id = client.AddRule(
      HttpFaultRule::CannedReply(HttpMatch::Operation("PutItem"), Throttled()).From(2).Times(2));
  std::vector<long> statuses;
  for (int i = 1; i <= 4; ++i) {
    auto r = client.Send(DynamoDbCall("PutItem", "put" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    statuses.push_back(r->status);
  }
  ASSERT_TRUE(client.Send(DynamoDbCall("GetItem", "get")).ok());  // another operation
  EXPECT_EQ(statuses, (std::vector<long>{200, 400, 400, 200}));
  EXPECT_EQ(base.sent, (std::vector<std::string>{"put1", "put4", "get"}));
  EXPECT_EQ(client.FiredCount(id), 2);
  EXPECT_EQ(client.Count(HttpMatch::Operation("PutItem")), 4);  // received, faulted or not
  EXPECT_EQ(client.Count(HttpMatch()), 5);
}

TEST(FaultInjectingHttpClientTest, FailBeforeSendNeverReachesTheServer) {
  RecordingHttpClient base;
  FaultInjectingHttpClient client(base);
  client.AddRule(HttpFaultRule::FailBeforeSend(HttpMatch::Operation("Query")));
  auto r = client.Send(DynamoDbCall("Query", "q"));
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);  // safe to retry anything
  EXPECT_NE(r.status().message().find("injected"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("Query"), std::string::npos) << r.status().message();
  EXPECT_TRUE(base.sent.empty());
  client.AddRule(HttpFaultRule::FailBeforeSend(HttpMatch::Operation("GetItem"),
                                               UnknownOutcomeError("lost on the way")));
  EXPECT_EQ(client.Send(DynamoDbCall("GetItem", "g")).status().message(), "lost on the way");
  EXPECT_TRUE(base.sent.empty());
}

TEST(FaultInjectingHttpClientTest, DropReplySendsThenReportsUnknownOutcome) {
  RecordingHttpClient base;
  FaultInjectingHttpClient client(base);
  client.AddRule(HttpFaultRule::DropReply(HttpMatch::Operation("PutItem")));
  auto r = client.Send(DynamoDbCall("PutItem", "applied"));
  EXPECT_TRUE(r.status().IsUnknownOutcome()) << r.status().ToString();
  EXPECT_EQ(base.sent, (std::vector<std::string>{"applied"}));
  EXPECT_TRUE(client.Send(DynamoDbCall("PutItem", "next")).ok());  // times = 1
}

TEST(FaultInjectingHttpClientTest, EveryRequestUntilClearedFirstAddedRuleWins) {
  RecordingHttpClient base;
  FaultInjectingHttpClient client(base);
  auto every =
      client.AddRule(HttpFaultRule::CannedReply(HttpMatch::Operation("PutItem"), Throttled())
                         .Times(HttpFaultRule::kEveryRequest));
  auto later = client.AddRule(HttpFaultRule::FailBeforeSend(HttpMatch()).From(3));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(client.Send(DynamoDbCall("PutItem", "p"))->status, 400);
  EXPECT_EQ(client.FiredCount(every), 3);
  EXPECT_EQ(client.FiredCount(later), 0);  // its 3rd match was taken by the first rule
  client.ClearRules();
  EXPECT_EQ(client.Send(DynamoDbCall("PutItem", "p"))->status, 200);
  EXPECT_EQ(client.FiredCount(every), 3);
}

}  // namespace
}  // namespace deltacommit::aws::testing
