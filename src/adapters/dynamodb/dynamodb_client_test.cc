// DynamoDbClient against a scripted HttpClient: the exact request of each
// operation, how replies decode, how each error code maps into Status, and
// which failures are sent again (with the backoff recorded by a
// RecordingSleeper over a FakeClock, so nothing sleeps).
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/dynamodb/dynamodb_test_http.h"

#include <chrono>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::dynamodb {
namespace {

using ::deltacommit::dynamodb::testing::Reply;
using ::deltacommit::dynamodb::testing::Ok;
using ::deltacommit::dynamodb::testing::Error;
using ::deltacommit::dynamodb::testing::HeaderOf;
using ::deltacommit::dynamodb::testing::ScriptedHttpClient;

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kEndpoint[] = "http://127.0.0.1:8000";

// Counts how often the client asks for credentials (once per attempt).
class CountingCredentials : public aws::CredentialsProvider {
 public:
  std::string Name() const override { return "counting"; }
  StatusOr<aws::Credentials> GetCredentials() override {
    ++calls;
    return credentials;
  }
  aws::Credentials credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMIK7MDENG", "", std::nullopt,
                               "environment (AWS_ACCESS_KEY_ID)"};
  int calls = 0;
};

class DynamoDbClientTest : public ::testing::Test {
 protected:
  DynamoDbClientTest() : client_(Config(), http_, credentials_, clock_, sleeper_) {}

  static DynamoDbClientConfig Config() {
    DynamoDbClientConfig config;
    config.service.endpoint_url = kEndpoint;
    config.service.region = "us-west-2";
    config.retry.max_attempts = 4;
    return config;
  }

  const aws::HttpRequest& OnlyRequest() const {
    EXPECT_EQ(http_.sent().size(), 1u);
    return http_.sent().back();
  }

  static Item DeltaKey(const std::string& file) {
    return {{"tablePath", AttributeValue::String("s3a://bucket/t")},
            {"fileName", AttributeValue::String(file)}};
  }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  ScriptedHttpClient http_;
  CountingCredentials credentials_;
  DynamoDbClient client_;
};

// --- requests ---------------------------------------------------------------

TEST_F(DynamoDbClientTest, GetItemIsSignedJsonPostWithConsistentRead) {
  http_.Script({Ok()});
  auto item = client_.GetItem({"delta_log", DeltaKey("00000000000000000007.json"), true});
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_FALSE(item->has_value());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "http://127.0.0.1:8000/");
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.GetItem");
  EXPECT_EQ(HeaderOf(r, "Content-Type"), "application/x-amz-json-1.0");
  EXPECT_EQ(HeaderOf(r, "Host"), "127.0.0.1:8000");
  EXPECT_EQ(HeaderOf(r, "x-amz-date"), "20231114T221320Z");
  EXPECT_EQ(HeaderOf(r, "x-amz-content-sha256"), "<absent>");
  EXPECT_EQ(HeaderOf(r, "x-amz-security-token"), "<absent>");
  EXPECT_THAT(
      HeaderOf(r, "Authorization"),
      StartsWith("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20231114/us-west-2/dynamodb/"
                 "aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                 "Signature="));
  EXPECT_EQ(r.body, R"({"ConsistentRead":true,"Key":{"fileName":{"S":"00000000000000000007.json"},)"
                    R"("tablePath":{"S":"s3a://bucket/t"}},"TableName":"delta_log"})");
}

TEST_F(DynamoDbClientTest, SessionTokenIsSentAndSigned) {
  credentials_.credentials.session_token = "TOKEN";
  ASSERT_TRUE(client_.GetItem({"delta_log", DeltaKey("0.json"), false}).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "x-amz-security-token"), "TOKEN");
  EXPECT_THAT(HeaderOf(r, "Authorization"), HasSubstr("x-amz-security-token"));
  EXPECT_THAT(r.body, HasSubstr(R"("ConsistentRead":false)"));
}

TEST_F(DynamoDbClientTest, GetItemDecodesEveryAttributeType) {
  http_.Script({Ok(R"({"Item":{"complete":{"S":"true"},"expireTime":{"N":"1700086400"},)"
                   R"("b":{"BOOL":true},"z":{"NULL":true},"l":{"L":[{"N":"1"}]},)"
                   R"("m":{"M":{"k":{"S":"v"}}}}})")});
  auto item = client_.GetItem({"delta_log", DeltaKey("0.json"), true});
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  ASSERT_TRUE(item->has_value());
  const Item& i = **item;
  EXPECT_EQ(GetString(i, "complete"), "true");
  EXPECT_EQ(i.at("expireTime").AsInt64(), 1700086400);
  EXPECT_TRUE(i.at("b").bool_value());
  EXPECT_TRUE(i.at("z").is_null());
  EXPECT_EQ(i.at("l").list().at(0), AttributeValue::Number(1));
  EXPECT_EQ(i.at("m").map().at("k"), AttributeValue::String("v"));
}

TEST_F(DynamoDbClientTest, ConditionalPutItemSendsConditionNamesAndValues) {
  Item item = DeltaKey("00000000000000000001.json");
  item["tempPath"] = AttributeValue::String(".tmp/00000000000000000001.json.u1");
  item["complete"] = AttributeValue::String("false");
  PutItemRequest request{"delta_log", item, {"attribute_not_exists(#f)", {{"#f", "fileName"}}, {}}};
  ASSERT_TRUE(client_.PutItem(request).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.PutItem");
  EXPECT_EQ(r.body,
            R"j({"ConditionExpression":"attribute_not_exists(#f)",)j"
            R"("ExpressionAttributeNames":{"#f":"fileName"},)"
            R"("Item":{"complete":{"S":"false"},"fileName":{"S":"00000000000000000001.json"},)"
            R"("tablePath":{"S":"s3a://bucket/t"},)"
            R"("tempPath":{"S":".tmp/00000000000000000001.json.u1"}},"TableName":"delta_log"})");
}

TEST_F(DynamoDbClientTest, UnconditionalPutItemSendsNoEmptyExpressionMaps) {
  ASSERT_TRUE(client_.PutItem({"delta_log", DeltaKey("0.json"), {}}).ok());
  EXPECT_EQ(OnlyRequest().body,
            R"({"Item":{"fileName":{"S":"0.json"},"tablePath":{"S":"s3a://bucket/t"}},)"
            R"("TableName":"delta_log"})");
}

TEST_F(DynamoDbClientTest, UpdateItemMergesUpdateAndConditionPlaceholders) {
  UpdateItemRequest request{
      "delta_log",
      DeltaKey("0.json"),
      {"SET complete = :c, expireTime = :e",
       {},
       {{":c", AttributeValue::String("true")}, {":e", AttributeValue::Number(1700086400)}}},
      {"attribute_exists(#f)", {{"#f", "fileName"}}, {}}};
  ASSERT_TRUE(client_.UpdateItem(request).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.UpdateItem");
  EXPECT_EQ(r.body,
            R"j({"ConditionExpression":"attribute_exists(#f)",)j"
            R"("ExpressionAttributeNames":{"#f":"fileName"},)"
            R"("ExpressionAttributeValues":{":c":{"S":"true"},":e":{"N":"1700086400"}},)"
            R"("Key":{"fileName":{"S":"0.json"},"tablePath":{"S":"s3a://bucket/t"}},)"
            R"("TableName":"delta_log","UpdateExpression":"SET complete = :c, expireTime = :e"})");
}

TEST_F(DynamoDbClientTest, UpdateItemPlaceholderWithTwoMeaningsIsRefusedUnsent) {
  UpdateItemRequest request{"delta_log",
                            DeltaKey("0.json"),
                            {"SET complete = :v", {}, {{":v", AttributeValue::String("true")}}},
                            {"complete = :v", {}, {{":v", AttributeValue::String("false")}}}};
  Status s = client_.UpdateItem(request);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(":v"));
  EXPECT_TRUE(http_.sent().empty());
}

TEST_F(DynamoDbClientTest, DeleteItemSendsKeyAndCondition) {
  DeleteItemRequest request{"delta_log",
                            DeltaKey("0.json"),
                            {"complete = :c", {}, {{":c", AttributeValue::String("true")}}}};
  ASSERT_TRUE(client_.DeleteItem(request).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.DeleteItem");
  EXPECT_EQ(r.body, R"({"ConditionExpression":"complete = :c",)"
                    R"("ExpressionAttributeValues":{":c":{"S":"true"}},)"
                    R"("Key":{"fileName":{"S":"0.json"},"tablePath":{"S":"s3a://bucket/t"}},)"
                    R"("TableName":"delta_log"})");
}

TEST_F(DynamoDbClientTest, QueryLatestEntryIsDescendingLimitOneConsistent) {
  http_.Script({Ok(R"({"Count":1,"Items":[{"fileName":{"S":"00000000000000000009.json"}}],)"
                   R"("LastEvaluatedKey":{"fileName":{"S":"00000000000000000009.json"},)"
                   R"("tablePath":{"S":"s3a://bucket/t"}}})")});
  QueryRequest request;
  request.table = "delta_log";
  request.key_condition = {
      "tablePath = :p", {}, {{":p", AttributeValue::String("s3a://bucket/t")}}};
  request.scan_index_forward = false;
  request.limit = 1;
  auto result = client_.Query(request);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(OnlyRequest().body,
            R"({"ConsistentRead":true,"ExpressionAttributeValues":{":p":{"S":"s3a://bucket/t"}},)"
            R"("KeyConditionExpression":"tablePath = :p","Limit":1,"ScanIndexForward":false,)"
            R"("TableName":"delta_log"})");
  EXPECT_EQ(HeaderOf(OnlyRequest(), "X-Amz-Target"), "DynamoDB_20120810.Query");
  ASSERT_EQ(result->items.size(), 1u);
  EXPECT_EQ(GetString(result->items[0], "fileName"), "00000000000000000009.json");
  ASSERT_TRUE(result->last_evaluated_key.has_value());
  EXPECT_EQ(result->last_evaluated_key->size(), 2u);
}

TEST_F(DynamoDbClientTest, QueryFollowsExclusiveStartKey) {
  QueryRequest request;
  request.table = "delta_log";
  request.key_condition = {"tablePath = :p", {}, {{":p", AttributeValue::String("t")}}};
  request.exclusive_start_key = Item{{"tablePath", AttributeValue::String("t")}};
  http_.Script({Ok(R"({"Count":0,"Items":[]})")});
  auto result = client_.Query(request);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->items.empty());
  EXPECT_FALSE(result->last_evaluated_key.has_value());
  EXPECT_THAT(OnlyRequest().body, HasSubstr(R"("ExclusiveStartKey":{"tablePath":{"S":"t"}})"));
}

TEST_F(DynamoDbClientTest, CreateTableOnDemandWithDeltaLogSchema) {
  http_.Script({Ok(R"({"TableDescription":{"TableName":"delta_log","TableStatus":"CREATING",)"
                   R"("AttributeDefinitions":[{"AttributeName":"fileName","AttributeType":"S"},)"
                   R"({"AttributeName":"tablePath","AttributeType":"N"}],)"
                   R"("KeySchema":[{"AttributeName":"tablePath","KeyType":"HASH"},)"
                   R"({"AttributeName":"fileName","KeyType":"RANGE"}],)"
                   R"("BillingModeSummary":{"BillingMode":"PAY_PER_REQUEST"}}})")});
  CreateTableRequest request{"delta_log", {"tablePath"}, KeyAttribute{"fileName"}};
  auto table = client_.CreateTable(request);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(OnlyRequest().body,
            R"({"AttributeDefinitions":[{"AttributeName":"tablePath","AttributeType":"S"},)"
            R"({"AttributeName":"fileName","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",)"
            R"("KeySchema":[{"AttributeName":"tablePath","KeyType":"HASH"},)"
            R"({"AttributeName":"fileName","KeyType":"RANGE"}],"TableName":"delta_log"})");
  EXPECT_EQ(HeaderOf(OnlyRequest(), "X-Amz-Target"), "DynamoDB_20120810.CreateTable");
  EXPECT_EQ(table->name, "delta_log");
  EXPECT_EQ(table->status, "CREATING");
  EXPECT_EQ(table->hash_key, "tablePath");
  EXPECT_EQ(table->range_key, "fileName");
  EXPECT_EQ(table->hash_key_type, "N");  // matched by name, not by position
  EXPECT_EQ(table->range_key_type, "S");
  EXPECT_EQ(table->billing_mode, "PAY_PER_REQUEST");
}

TEST_F(DynamoDbClientTest, CreateTableProvisionedSendsThroughput) {
  http_.Script({Ok(R"({"TableDescription":{"TableName":"c","TableStatus":"CREATING"}})")});
  CreateTableRequest request{"c", {"tableId"}, std::nullopt, BillingMode::kProvisioned, 7, 3};
  auto table = client_.CreateTable(request);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(
      OnlyRequest().body,
      R"({"AttributeDefinitions":[{"AttributeName":"tableId","AttributeType":"S"}],)"
      R"("BillingMode":"PROVISIONED","KeySchema":[{"AttributeName":"tableId","KeyType":"HASH"}],)"
      R"("ProvisionedThroughput":{"ReadCapacityUnits":7,"WriteCapacityUnits":3},)"
      R"("TableName":"c"})");
  EXPECT_EQ(table->billing_mode, "PROVISIONED");  // no BillingModeSummary
  EXPECT_EQ(table->range_key, "");
}

TEST_F(DynamoDbClientTest, DescribeTableAndTimeToLive) {
  http_.Script({Ok(R"({"Table":{"TableName":"delta_log","TableStatus":"ACTIVE"}})")});
  auto table = client_.DescribeTable("delta_log");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->status, "ACTIVE");
  EXPECT_EQ(OnlyRequest().body, R"({"TableName":"delta_log"})");
  EXPECT_EQ(HeaderOf(OnlyRequest(), "X-Amz-Target"), "DynamoDB_20120810.DescribeTable");

  http_.Script({Ok(R"({"TimeToLiveDescription":{"TimeToLiveStatus":"ENABLED",)"
                   R"("AttributeName":"expireTime"}})")});
  auto ttl = client_.DescribeTimeToLive("delta_log");
  ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
  EXPECT_EQ(ttl->status, "ENABLED");
  EXPECT_EQ(ttl->attribute_name, "expireTime");
  EXPECT_EQ(HeaderOf(http_.sent().back(), "X-Amz-Target"), "DynamoDB_20120810.DescribeTimeToLive");
}

TEST_F(DynamoDbClientTest, UpdateTimeToLiveNamesTheAttribute) {
  ASSERT_TRUE(client_.UpdateTimeToLive("delta_log", "expireTime", true).ok());
  EXPECT_EQ(OnlyRequest().body, R"({"TableName":"delta_log","TimeToLiveSpecification":)"
                                R"({"AttributeName":"expireTime","Enabled":true}})");
  EXPECT_EQ(HeaderOf(OnlyRequest(), "X-Amz-Target"), "DynamoDB_20120810.UpdateTimeToLive");
}

TEST_F(DynamoDbClientTest, InvalidUtf8IsRefusedBeforeSending) {
  Status s = client_.PutItem({"delta_log", {{"tablePath", AttributeValue::String("bad\xff")}}, {}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB PutItem table delta_log"));
  EXPECT_TRUE(http_.sent().empty());
}

// --- error mapping ------------------------------------------------------------

TEST_F(DynamoDbClientTest, ConditionalCheckFailedIsAlreadyExistsAndNotResent) {
  http_.Script({Error(400, "ConditionalCheckFailedException", "The conditional request failed")});
  Status s = client_.PutItem({"delta_log", DeltaKey("0.json"), {"attribute_not_exists(fileName)"}});
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB PutItem table delta_log"));
  EXPECT_THAT(s.message(), HasSubstr("request id REQ123"));
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbClientTest, MissingTableIsNotFoundWithCreateTableHint) {
  http_.Script({Error(400, "ResourceNotFoundException", "Requested resource not found")});
  auto r = client_.DescribeTable("delta_log");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(),
              StartsWith("DynamoDB table delta_log not found in region us-west-2 at endpoint "
                         "http://127.0.0.1:8000: create it with `deltacommit dynamodb "
                         "create-table` or grant dynamodb:CreateTable"));
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbClientTest, CredentialErrorsNameSourceKeyAndAction) {
  struct Case {
    std::string code;
    StatusCode status;
  } cases[] = {{"UnrecognizedClientException", StatusCode::kUnauthenticated},
               {"ExpiredTokenException", StatusCode::kUnauthenticated},
               {"InvalidSignatureException", StatusCode::kUnauthenticated},
               {"AccessDeniedException", StatusCode::kPermissionDenied}};
  for (const Case& c : cases) {
    http_.Script({Error(400, c.code)});
    auto r = client_.GetItem({"delta_log", DeltaKey("0.json"), true});
    EXPECT_EQ(r.status().code(), c.status) << c.code;
    EXPECT_THAT(r.status().message(), HasSubstr("DynamoDB GetItem table delta_log")) << c.code;
    EXPECT_THAT(r.status().message(), HasSubstr("environment (AWS_ACCESS_KEY_ID)")) << c.code;
    EXPECT_THAT(r.status().message(), HasSubstr("AKIA…MPLE")) << c.code;
    EXPECT_THAT(r.status().message(), Not(HasSubstr("wJalrXUtnFEMIK7MDENG"))) << c.code;
  }
  EXPECT_THAT(client_.GetItem({"delta_log", DeltaKey("0.json"), true}).status().message(),
              HasSubstr("IAM action dynamodb:GetItem"));
  EXPECT_EQ(http_.sent().size(), 5u);  // none retried
}

TEST_F(DynamoDbClientTest, UnknownOperationIsUnimplemented) {
  http_.Script({Reply(400, R"({"__type":"com.amazon.coral.service#UnknownOperationException"})")});
  Status s = client_.UpdateTimeToLive("delta_log", "expireTime", true);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB UpdateTimeToLive is not supported by the server at "
                                     "http://127.0.0.1:8000"));
}

TEST_F(DynamoDbClientTest, ValidationExceptionIsInvalidArgument) {
  http_.Script({Error(400, "ValidationException", "One or more parameter values were invalid")});
  Status s = client_.PutItem({"delta_log", {}, {}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("server says: One or more parameter values were invalid"));
}

TEST_F(DynamoDbClientTest, ResourceInUseIsAlreadyExistsForCreateTableOnly) {
  http_.Script({Error(400, "ResourceInUseException")});
  auto created = client_.CreateTable({"delta_log", {"tablePath"}, KeyAttribute{"fileName"}});
  EXPECT_EQ(created.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(created.status().message(), HasSubstr("table delta_log already exists"));
  Status ttl = client_.UpdateTimeToLive("delta_log", "expireTime", true);
  EXPECT_EQ(ttl.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(ttl.message(), HasSubstr("wait until it is ACTIVE"));
}

TEST_F(DynamoDbClientTest, MalformedReplyIsInternal) {
  http_.Script({Ok("not json")});
  EXPECT_EQ(client_.GetItem({"delta_log", DeltaKey("0.json"), true}).status().code(),
            StatusCode::kInternal);
  http_.Script({Ok(R"({"Item":{"a":{"S":1}}})")});
  auto bad_value = client_.GetItem({"delta_log", DeltaKey("0.json"), true});
  EXPECT_EQ(bad_value.status().code(), StatusCode::kInternal);
  EXPECT_THAT(bad_value.status().message(), HasSubstr("Item.a"));
  http_.Script({Ok(R"({"Item":{"a":{"B":"AAE="}}})")});
  EXPECT_EQ(client_.GetItem({"delta_log", DeltaKey("0.json"), true}).status().code(),
            StatusCode::kUnimplemented);
  http_.Script({Ok(R"({"Table":{"TableName":"x"}})")});
  EXPECT_EQ(client_.DescribeTable("x").status().code(), StatusCode::kInternal);
}

TEST_F(DynamoDbClientTest, ExpiredCredentialsFailBeforeSending) {
  credentials_.credentials.expiration_ms = FakeClock::kDefaultStartMillis - 1000;
  Status s = client_.PutItem({"delta_log", DeltaKey("0.json"), {}});
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB PutItem table delta_log"));
  EXPECT_THAT(s.message(), HasSubstr("environment (AWS_ACCESS_KEY_ID)"));
  EXPECT_TRUE(http_.sent().empty());
}

// --- retries ------------------------------------------------------------------

TEST_F(DynamoDbClientTest, ThrottledWriteIsResentAndResignedEachAttempt) {
  for (const char* code : {"ProvisionedThroughputExceededException", "ThrottlingException",
                           "RequestLimitExceeded", "TransactionConflictException"}) {
    ScriptedHttpClient http;
    CountingCredentials credentials;
    RecordingSleeper sleeper(&clock_);
    DynamoDbClient client(Config(), http, credentials, clock_, sleeper);
    http.Script({Error(400, code), Error(400, code), Ok()});
    Status s =
        client.PutItem({"delta_log", DeltaKey("0.json"), {"attribute_not_exists(fileName)"}});
    EXPECT_TRUE(s.ok()) << code << ": " << s.ToString();
    EXPECT_EQ(http.sent().size(), 3u) << code;
    EXPECT_EQ(credentials.calls, 3) << code;
    ASSERT_EQ(sleeper.sleeps().size(), 2u) << code;
    EXPECT_LE(sleeper.sleeps()[0], aws::BackoffBound(Config().retry, 1));
    EXPECT_LE(sleeper.sleeps()[1], aws::BackoffBound(Config().retry, 2));
  }
}

TEST_F(DynamoDbClientTest, ThrottlingUntilAttemptsRunOutIsUnavailable) {
  http_.Script({Error(400, "ProvisionedThroughputExceededException")});
  Status s =
      client_.UpdateItem({"delta_log",
                          DeltaKey("0.json"),
                          {"SET complete = :c", {}, {{":c", AttributeValue::String("true")}}},
                          {}});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("still refused after all attempts"));
  EXPECT_EQ(http_.sent().size(), 4u);
  EXPECT_EQ(sleeper_.sleeps().size(), 3u);
}

TEST_F(DynamoDbClientTest, LostReplyToWriteIsUnknownOutcomeAndNotResent) {
  http_.Script({UnknownOutcomeError("timeout after sending")});
  Status s = client_.PutItem({"delta_log", DeltaKey("0.json"), {"attribute_not_exists(fileName)"}});
  EXPECT_EQ(s.code(), StatusCode::kUnknownOutcome);
  EXPECT_THAT(s.message(), HasSubstr("read the item back"));
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB PutItem table delta_log at http://127.0.0.1:8000"));
  EXPECT_EQ(http_.sent().size(), 1u);
  EXPECT_TRUE(sleeper_.sleeps().empty());
}

TEST_F(DynamoDbClientTest, LostReplyToReadIsResent) {
  http_.Script({UnknownOutcomeError("timeout"), UnknownOutcomeError("timeout"),
                Ok(R"({"Item":{"complete":{"S":"true"}}})")});
  auto item = client_.GetItem({"delta_log", DeltaKey("0.json"), true});
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_TRUE(item->has_value());
  EXPECT_EQ(http_.sent().size(), 3u);
  EXPECT_EQ(credentials_.calls, 3);
}

TEST_F(DynamoDbClientTest, ReadWhoseRepliesAreAllLostIsUnavailable) {
  http_.Script({UnknownOutcomeError("timeout")});
  QueryRequest request;
  request.table = "delta_log";
  request.key_condition = {"tablePath = :p", {}, {{":p", AttributeValue::String("t")}}};
  auto r = client_.Query(request);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(http_.sent().size(), 4u);
}

TEST_F(DynamoDbClientTest, ServerErrorOnWriteIsUnknownOutcomeAndNotResent) {
  for (long status : {500L, 502L, 504L}) {
    ScriptedHttpClient http;
    DynamoDbClient client(Config(), http, credentials_, clock_, sleeper_);
    http.Script({Error(status, "InternalServerError")});
    Status s = client.DeleteItem({"delta_log", DeltaKey("0.json"), {}});
    EXPECT_EQ(s.code(), StatusCode::kUnknownOutcome) << status;
    EXPECT_THAT(s.message(), HasSubstr("read the item back")) << status;
    EXPECT_EQ(http.sent().size(), 1u) << status;
  }
}

TEST_F(DynamoDbClientTest, ServerErrorOnReadIsResent) {
  http_.Script({Error(500, "InternalServerError"), Error(502, "BadGateway"), Ok()});
  EXPECT_TRUE(client_.GetItem({"delta_log", DeltaKey("0.json"), true}).ok());
  EXPECT_EQ(http_.sent().size(), 3u);
}

TEST_F(DynamoDbClientTest, ServerErrorOnReadUntilAttemptsRunOutIsUnavailable) {
  http_.Script({Error(500, "InternalServerError")});
  EXPECT_EQ(client_.DescribeTimeToLive("delta_log").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(http_.sent().size(), 4u);
}

TEST_F(DynamoDbClientTest, RefusalsBeforeApplyingAreResentForWrites) {
  http_.Script({Reply(503, ""), Error(429, "TooManyRequests"),
                StatusOr<aws::HttpResponse>(UnavailableError("connection refused")), Ok()});
  EXPECT_TRUE(client_.PutItem({"delta_log", DeltaKey("0.json"), {}}).ok());
  EXPECT_EQ(http_.sent().size(), 4u);
  EXPECT_EQ(sleeper_.sleeps().size(), 3u);
}

// --- WaitForTableActive ---------------------------------------------------------

aws::HttpResponse TableIs(const std::string& status) {
  return Ok(R"({"Table":{"TableName":"delta_log","TableStatus":")" + status + R"("}})");
}

TEST_F(DynamoDbClientTest, WaitForTableActivePollsWithGrowingDelay) {
  http_.Script({TableIs("CREATING"), TableIs("CREATING"), TableIs("UPDATING"), TableIs("ACTIVE")});
  EXPECT_TRUE(client_.WaitForTableActive("delta_log", milliseconds(10'000)).ok());
  EXPECT_EQ(sleeper_.sleeps(),
            (std::vector<milliseconds>{milliseconds(50), milliseconds(100), milliseconds(200)}));
}

TEST_F(DynamoDbClientTest, WaitForTableActiveWaitsForANewTableToAppear) {
  http_.Script({Error(400, "ResourceNotFoundException"), TableIs("ACTIVE")});
  EXPECT_TRUE(client_.WaitForTableActive("delta_log", milliseconds(10'000)).ok());
  EXPECT_EQ(sleeper_.sleeps().size(), 1u);
}

TEST_F(DynamoDbClientTest, WaitForTableActiveStopsAtTheDeadline) {
  http_.Script({TableIs("CREATING")});
  Status s = client_.WaitForTableActive("delta_log", milliseconds(3000));
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("still CREATING after 3000 ms"));
  EXPECT_EQ(sleeper_.total(), milliseconds(3000));
}

TEST_F(DynamoDbClientTest, WaitForTableActiveOnAMissingTableIsNotFound) {
  http_.Script({Error(400, "ResourceNotFoundException")});
  Status s = client_.WaitForTableActive("delta_log", milliseconds(500));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("deltacommit dynamodb create-table"));
}

TEST_F(DynamoDbClientTest, WaitForTableActiveRefusesADeletingTable) {
  http_.Script({TableIs("DELETING")});
  EXPECT_EQ(client_.WaitForTableActive("delta_log", milliseconds(500)).code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace deltacommit::dynamodb
