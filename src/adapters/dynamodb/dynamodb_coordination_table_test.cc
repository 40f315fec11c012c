// DynamoDbCoordinationTable and CreateDeltaLogTable against a scripted
// HttpClient: the exact DynamoDB request of each call (Delta Spark's item
// shape), how items parse, and that items another writer got wrong are
// kDataLoss naming the attribute and the key, never a crash.
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_test_http.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <string_view>
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

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr char kEndpoint[] = "http://127.0.0.1:8000";
constexpr char kV7[] = "00000000000000000007.json";

class StaticCredentials : public aws::CredentialsProvider {
 public:
  std::string Name() const override { return "static"; }
  StatusOr<aws::Credentials> GetCredentials() override {
    return aws::Credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMIK7MDENG", "", std::nullopt,
                            "test"};
  }
};

class DynamoDbCoordinationTableTest : public ::testing::Test {
 protected:
  DynamoDbCoordinationTableTest()
      : client_(Config(), http_, credentials_, clock_, sleeper_), table_(client_, "delta_log") {}

  static DynamoDbClientConfig Config() {
    DynamoDbClientConfig config;
    config.service.endpoint_url = kEndpoint;
    config.service.region = "us-west-2";
    config.retry.max_attempts = 3;
    return config;
  }

  const aws::HttpRequest& OnlyRequest() const {
    EXPECT_EQ(http_.sent().size(), 1u);
    return http_.sent().back();
  }

  // A GetItem reply holding `item_json`.
  static aws::HttpResponse ItemReply(const std::string& item_json) {
    return Ok(R"({"Item":)" + item_json + "}");
  }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  ScriptedHttpClient http_;
  StaticCredentials credentials_;
  DynamoDbClient client_;
  DynamoDbCoordinationTable table_;
};

ExternalCommitEntry Incomplete() {
  return {"s3a://bucket/t", kV7, ".tmp/00000000000000000007.json.u1", false, std::nullopt};
}

ExternalCommitEntry Complete() {
  ExternalCommitEntry entry = Incomplete();
  entry.complete = true;
  entry.expire_time = 1'700'086'400;
  return entry;
}

// --- requests ----------------------------------------------------------------

TEST_F(DynamoDbCoordinationTableTest, DescribeNamesTableRegionAndEndpoint) {
  EXPECT_EQ(table_.Describe(), "DynamoDB table delta_log (us-west-2, http://127.0.0.1:8000)");
  EXPECT_TRUE(http_.sent().empty());
}

TEST_F(DynamoDbCoordinationTableTest, PutIfAbsentIsConditionalPutItemOfDeltaSparkItem) {
  ASSERT_TRUE(table_.PutIfAbsent(Incomplete()).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.PutItem");
  EXPECT_EQ(r.body,
            R"j({"ConditionExpression":"attribute_not_exists(fileName)",)j"
            R"("Item":{"complete":{"S":"false"},"fileName":{"S":"00000000000000000007.json"},)"
            R"("tablePath":{"S":"s3a://bucket/t"},)"
            R"("tempPath":{"S":".tmp/00000000000000000007.json.u1"}},"TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, PutIfAbsentConditionFailureIsAlreadyExistsNamingTheKey) {
  http_.Script({Error(400, "ConditionalCheckFailedException")});
  Status s = table_.PutIfAbsent(Incomplete());
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("DynamoDB table delta_log already has the commit entry "
                                     "tablePath s3a://bucket/t, fileName "
                                     "00000000000000000007.json"));
  EXPECT_THAT(s.message(), HasSubstr("ConditionalCheckFailedException"));
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbCoordinationTableTest, PutIfAbsentLostReplyIsUnknownOutcomeNamingTheKey) {
  http_.Script({Error(500, "InternalServerError")});
  Status s = table_.PutIfAbsent(Incomplete());
  EXPECT_EQ(s.code(), StatusCode::kUnknownOutcome) << s.ToString();
  EXPECT_THAT(s.message(),
              HasSubstr("commit entry tablePath s3a://bucket/t, fileName " + std::string(kV7)));
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbCoordinationTableTest, PutIsUnconditionalAndWritesExpireTimeAsNumber) {
  ASSERT_TRUE(table_.Put(Complete()).ok());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.PutItem");
  EXPECT_EQ(r.body,
            R"({"Item":{"complete":{"S":"true"},"expireTime":{"N":"1700086400"},)"
            R"("fileName":{"S":"00000000000000000007.json"},"tablePath":{"S":"s3a://bucket/t"},)"
            R"("tempPath":{"S":".tmp/00000000000000000007.json.u1"}},"TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, PutErrorNamesTheKey) {
  http_.Script({Error(400, "AccessDeniedException")});
  Status s = table_.Put(Complete());
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("commit entry tablePath s3a://bucket/t"));
}

TEST_F(DynamoDbCoordinationTableTest, GetIsConsistentGetItemAndParsesTheEntry) {
  http_.Script({ItemReply(
      R"({"complete":{"S":"true"},"expireTime":{"N":"1700086400"},)"
      R"("fileName":{"S":"00000000000000000007.json"},"tablePath":{"S":"s3a://bucket/t"},)"
      R"("tempPath":{"S":".tmp/00000000000000000007.json.u1"}})")});
  auto entry = table_.Get("s3a://bucket/t", kV7);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ(**entry, Complete());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.GetItem");
  EXPECT_EQ(r.body, R"({"ConsistentRead":true,"Key":{"fileName":{"S":"00000000000000000007.json"},)"
                    R"("tablePath":{"S":"s3a://bucket/t"}},"TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, GetOfAbsentEntryIsNullopt) {
  http_.Script({Ok("{}")});
  auto entry = table_.Get("s3a://bucket/t", kV7);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_FALSE(entry->has_value());
}

TEST_F(DynamoDbCoordinationTableTest, GetOfMissingTableIsNotFound) {
  http_.Script({Error(400, "ResourceNotFoundException")});
  auto entry = table_.Get("s3a://bucket/t", kV7);
  EXPECT_EQ(entry.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(entry.status().message(), HasSubstr("commit entry tablePath s3a://bucket/t"));
  EXPECT_THAT(entry.status().message(), HasSubstr("DynamoDB table delta_log not found"));
}

TEST_F(DynamoDbCoordinationTableTest, GetLatestIsDescendingLimitOneConsistentQuery) {
  http_.Script({Ok(R"({"Count":1,"Items":[{"complete":{"S":"false"},)"
                   R"("fileName":{"S":"00000000000000000007.json"},)"
                   R"("tablePath":{"S":"s3a://bucket/t"},)"
                   R"("tempPath":{"S":".tmp/00000000000000000007.json.u1"}}],)"
                   R"("LastEvaluatedKey":{"fileName":{"S":"00000000000000000007.json"},)"
                   R"("tablePath":{"S":"s3a://bucket/t"}}})")});
  auto entry = table_.GetLatest("s3a://bucket/t");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ(**entry, Incomplete());
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.Query");
  EXPECT_EQ(r.body,
            R"({"ConsistentRead":true,"ExpressionAttributeValues":{":p":{"S":"s3a://bucket/t"}},)"
            R"("KeyConditionExpression":"tablePath = :p","Limit":1,"ScanIndexForward":false,)"
            R"("TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, GetLatestOfTablePathWithoutEntriesIsNullopt) {
  http_.Script({Ok(R"({"Count":0,"Items":[]})")});
  auto entry = table_.GetLatest("s3a://bucket/empty");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_FALSE(entry->has_value());
}

// --- ListPage ----------------------------------------------------------------------

// A Query reply with the items of `versions` for s3a://bucket/t, and a
// LastEvaluatedKey at `last` when set.
aws::HttpResponse PageReply(const std::vector<int>& versions, const std::string& last = "") {
  std::string items;
  for (int v : versions) {
    const std::string name = "0000000000000000000" + std::to_string(v) + ".json";
    items += std::string(items.empty() ? "" : ",") + R"({"complete":{"S":"true"},)" +
             R"("expireTime":{"N":"1700086400"},"fileName":{"S":")" + name +
             R"("},"tablePath":{"S":"s3a://bucket/t"},"tempPath":{"S":".tmp/)" + name + R"(.u"}})";
  }
  std::string body = R"({"Count":)" + std::to_string(versions.size()) + R"(,"Items":[)" + items +
                     "]";
  if (!last.empty()) {
    body += R"(,"LastEvaluatedKey":{"fileName":{"S":")" + last +
            R"("},"tablePath":{"S":"s3a://bucket/t"}})";
  }
  return Ok(body + "}");
}

TEST_F(DynamoDbCoordinationTableTest, ListPageIsAscendingConsistentQueryWithLimit) {
  http_.Script({PageReply({0, 1}, "00000000000000000001.json")});
  auto page = table_.ListPage("s3a://bucket/t", "", 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_THAT(page->entries, SizeIs(2));
  EXPECT_EQ(page->entries[0].file_name, "00000000000000000000.json");
  EXPECT_EQ(page->entries[1].file_name, "00000000000000000001.json");
  EXPECT_TRUE(page->entries[1].complete);
  EXPECT_EQ(page->next_start_after, "00000000000000000001.json");
  const aws::HttpRequest& r = OnlyRequest();
  EXPECT_EQ(HeaderOf(r, "X-Amz-Target"), "DynamoDB_20120810.Query");
  EXPECT_EQ(r.body,
            R"({"ConsistentRead":true,"ExpressionAttributeValues":{":p":{"S":"s3a://bucket/t"}},)"
            R"("KeyConditionExpression":"tablePath = :p","Limit":2,"ScanIndexForward":true,)"
            R"("TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, ListPageStartsAfterTheGivenFileName) {
  http_.Script({PageReply({2})});
  auto page = table_.ListPage("s3a://bucket/t", "00000000000000000001.json", 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_THAT(page->entries, SizeIs(1));
  EXPECT_FALSE(page->next_start_after.has_value());  // no LastEvaluatedKey: the end
  EXPECT_EQ(OnlyRequest().body,
            R"({"ConsistentRead":true,"ExclusiveStartKey":{"fileName":)"
            R"({"S":"00000000000000000001.json"},"tablePath":{"S":"s3a://bucket/t"}},)"
            R"("ExpressionAttributeValues":{":p":{"S":"s3a://bucket/t"}},)"
            R"("KeyConditionExpression":"tablePath = :p","Limit":2,"ScanIndexForward":true,)"
            R"("TableName":"delta_log"})");
}

TEST_F(DynamoDbCoordinationTableTest, ForEachCommitEntryFollowsEveryPageInOrder) {
  // The last page is empty: DynamoDB may return a LastEvaluatedKey on a full
  // page with nothing after it.
  http_.Script({PageReply({0, 1}, "00000000000000000001.json"),
                PageReply({2, 3}, "00000000000000000003.json"), PageReply({})});
  std::vector<std::string> seen;
  Status s = ForEachCommitEntry(table_, "s3a://bucket/t", 2, [&](const ExternalCommitEntry& e) {
    seen.push_back(e.file_name);
    return OkStatus();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"00000000000000000000.json",
                                            "00000000000000000001.json",
                                            "00000000000000000002.json",
                                            "00000000000000000003.json"}));
  const std::vector<aws::HttpRequest>& sent = http_.sent();
  ASSERT_THAT(sent, SizeIs(3));
  EXPECT_THAT(sent[0].body, ::testing::Not(HasSubstr("ExclusiveStartKey")));
  EXPECT_THAT(sent[1].body, HasSubstr(R"("ExclusiveStartKey":{"fileName":)"
                                      R"({"S":"00000000000000000001.json"})"));
  EXPECT_THAT(sent[2].body, HasSubstr(R"("ExclusiveStartKey":{"fileName":)"
                                      R"({"S":"00000000000000000003.json"})"));
}

TEST_F(DynamoDbCoordinationTableTest, ForEachCommitEntryStopsAtTheVisitorsError) {
  http_.Script({PageReply({0, 1}, "00000000000000000001.json"), PageReply({2})});
  int visited = 0;
  Status s = ForEachCommitEntry(table_, "s3a://bucket/t", 2, [&](const ExternalCommitEntry&) {
    ++visited;
    return FailedPreconditionError("enough");
  });
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_EQ(visited, 1);
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbCoordinationTableTest, ListPageErrorsNameTheTablePath) {
  http_.Script({Error(400, "ResourceNotFoundException")});
  auto page = table_.ListPage("s3a://bucket/t", "", 10);
  EXPECT_EQ(page.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(page.status().message(), HasSubstr("commit entries of tablePath s3a://bucket/t"));

  http_.Script({Ok(R"({"Count":1,"Items":[{"complete":{"BOOL":true},)"
                   R"("fileName":{"S":"00000000000000000007.json"},)"
                   R"("tablePath":{"S":"s3a://bucket/t"},"tempPath":{"S":"t"}}]})")});
  page = table_.ListPage("s3a://bucket/t", "", 10);
  EXPECT_EQ(page.status().code(), StatusCode::kDataLoss) << page.status().ToString();
  EXPECT_THAT(page.status().message(), HasSubstr("attribute complete is BOOL, expected S"));

  http_.Script({Ok(R"({"Count":0,"Items":[],"LastEvaluatedKey":{"tablePath":{"S":"x"}}})")});
  page = table_.ListPage("s3a://bucket/t", "", 10);
  EXPECT_EQ(page.status().code(), StatusCode::kInternal) << page.status().ToString();
  EXPECT_THAT(page.status().message(), HasSubstr("LastEvaluatedKey without a string fileName"));
}

TEST_F(DynamoDbCoordinationTableTest, ListPageLimitMustBePositive) {
  auto page = table_.ListPage("s3a://bucket/t", "", 0);
  EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(page.status().message(), HasSubstr("page limit 0 is not positive"));
  EXPECT_TRUE(http_.sent().empty());
}

// --- items -----------------------------------------------------------------------

TEST(DeltaLogItemTest, ItemRoundTripsWithAndWithoutExpireTime) {
  for (const ExternalCommitEntry& entry : {Incomplete(), Complete()}) {
    Item item = ToItem(entry);
    EXPECT_EQ(item.count("expireTime"), entry.expire_time ? 1u : 0u);
    auto back = EntryFromItem(item, "delta_log");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, entry);
  }
}

TEST(DeltaLogItemTest, OtherAttributesAreIgnored) {
  Item item = ToItem(Complete());
  item["writer"] = AttributeValue::String("delta-rs 0.18");
  item["flag"] = AttributeValue::Bool(true);
  auto entry = EntryFromItem(item, "delta_log");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(*entry, Complete());
}

TEST(DeltaLogItemTest, IncompleteEntryWithExpireTimeIsKept) {
  ExternalCommitEntry entry = Incomplete();
  entry.expire_time = 5;
  auto back = EntryFromItem(ToItem(entry), "delta_log");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, entry);
}

struct MalformedCase {
  std::string name;
  std::string item_json;  // the GetItem reply's Item
  std::string attribute;
  std::string problem;
};

class MalformedItemTest : public DynamoDbCoordinationTableTest,
                          public ::testing::WithParamInterface<MalformedCase> {};

constexpr char kKeyJson[] =
    R"("fileName":{"S":"00000000000000000007.json"},"tablePath":{"S":"s3a://bucket/t"})";

std::string ItemJson(const std::string& attributes) {
  return "{" + std::string(kKeyJson) + (attributes.empty() ? "" : ",") + attributes + "}";
}

TEST_P(MalformedItemTest, GetIsDataLossNamingAttributeAndKey) {
  const MalformedCase& c = GetParam();
  http_.Script({ItemReply(c.item_json)});
  auto entry = table_.Get("s3a://bucket/t", kV7);
  ASSERT_EQ(entry.status().code(), StatusCode::kDataLoss) << entry.status().ToString();
  EXPECT_THAT(entry.status().message(), HasSubstr("DynamoDB table delta_log item ("));
  EXPECT_THAT(entry.status().message(), HasSubstr("attribute " + c.attribute + " " + c.problem));
}

TEST_P(MalformedItemTest, GetLatestIsDataLossToo) {
  const MalformedCase& c = GetParam();
  http_.Script({Ok(R"({"Count":1,"Items":[)" + c.item_json + "]}")});
  auto entry = table_.GetLatest("s3a://bucket/t");
  ASSERT_EQ(entry.status().code(), StatusCode::kDataLoss) << entry.status().ToString();
  EXPECT_THAT(entry.status().message(), HasSubstr("attribute " + c.attribute));
}

INSTANTIATE_TEST_SUITE_P(
    DeltaLogItems, MalformedItemTest,
    ::testing::Values(
        MalformedCase{"CompleteAsBool",
                      ItemJson(R"("complete":{"BOOL":true},"tempPath":{"S":"t"})"), "complete",
                      "is BOOL, expected S"},
        MalformedCase{"CompleteNotTrueOrFalse",
                      ItemJson(R"("complete":{"S":"yes"},"tempPath":{"S":"t"})"), "complete",
                      R"(is "yes", expected "true" or "false")"},
        MalformedCase{"CompleteMissing", ItemJson(R"("tempPath":{"S":"t"})"), "complete",
                      "is missing"},
        MalformedCase{"TempPathMissing", ItemJson(R"("complete":{"S":"false"})"), "tempPath",
                      "is missing"},
        MalformedCase{"TempPathNull",
                      ItemJson(R"("complete":{"S":"false"},"tempPath":{"NULL":true})"), "tempPath",
                      "is NULL, expected S"},
        MalformedCase{"ExpireTimeAsString",
                      ItemJson(R"("complete":{"S":"true"},"expireTime":{"S":"1700086400"},)"
                               R"("tempPath":{"S":"t"})"),
                      "expireTime", "is S, expected N"},
        MalformedCase{"ExpireTimeNotWholeSeconds",
                      ItemJson(R"("complete":{"S":"true"},"expireTime":{"N":"1.5"},)"
                               R"("tempPath":{"S":"t"})"),
                      "expireTime", "is 1.5, expected whole epoch seconds"},
        MalformedCase{"FileNameAsNumber",
                      R"({"complete":{"S":"true"},"fileName":{"N":"7"},)"
                      R"("tablePath":{"S":"s3a://bucket/t"},"tempPath":{"S":"t"}})",
                      "fileName", "is N, expected S"}),
    [](const ::testing::TestParamInfo<MalformedCase>& param) { return param.param.name; });

TEST_F(DynamoDbCoordinationTableTest, MalformedItemMessageNamesTheItemKey) {
  http_.Script({ItemReply(ItemJson(R"("complete":{"BOOL":false},"tempPath":{"S":"t"})"))});
  auto entry = table_.Get("s3a://bucket/t", kV7);
  EXPECT_EQ(entry.status().message(),
            "DynamoDB table delta_log item (tablePath s3a://bucket/t, fileName "
            "00000000000000000007.json): attribute complete is BOOL, expected S; it is not a "
            "Delta commit entry as Delta Spark and delta-rs write them (another program wrote "
            "it, or it was damaged)");
  http_.Script({ItemReply(R"({"complete":{"S":"true"},"tablePath":{"S":"s3a://bucket/t"}})")});
  entry = table_.Get("s3a://bucket/t", kV7);
  EXPECT_EQ(entry.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(entry.status().message(),
              HasSubstr("(tablePath s3a://bucket/t, fileName <not a string>): attribute "
                        "fileName is missing"));
}

// --- CreateDeltaLogTable -------------------------------------------------------

constexpr char kCreatingReply[] =
    R"({"TableDescription":{"TableName":"delta_log","TableStatus":"CREATING"}})";
constexpr char kActiveReply[] = R"({"Table":{"TableName":"delta_log","TableStatus":"ACTIVE"}})";

TEST_F(DynamoDbCoordinationTableTest, CreateDeltaLogTableOnDemandWaitsThenEnablesTtl) {
  http_.Script({Ok(kCreatingReply),
                Ok(R"({"Table":{"TableName":"delta_log","TableStatus":"CREATING"}})"),
                Ok(kActiveReply), Ok()});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::PayPerRequest(), true);
  ASSERT_TRUE(warnings.ok()) << warnings.status().ToString();
  EXPECT_THAT(*warnings, IsEmpty());
  const std::vector<aws::HttpRequest>& sent = http_.sent();
  ASSERT_THAT(sent, SizeIs(4));
  EXPECT_EQ(HeaderOf(sent[0], "X-Amz-Target"), "DynamoDB_20120810.CreateTable");
  EXPECT_EQ(sent[0].body,
            R"({"AttributeDefinitions":[{"AttributeName":"tablePath","AttributeType":"S"},)"
            R"({"AttributeName":"fileName","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",)"
            R"("KeySchema":[{"AttributeName":"tablePath","KeyType":"HASH"},)"
            R"({"AttributeName":"fileName","KeyType":"RANGE"}],"TableName":"delta_log"})");
  EXPECT_EQ(HeaderOf(sent[1], "X-Amz-Target"), "DynamoDB_20120810.DescribeTable");
  EXPECT_EQ(HeaderOf(sent[2], "X-Amz-Target"), "DynamoDB_20120810.DescribeTable");
  EXPECT_EQ(HeaderOf(sent[3], "X-Amz-Target"), "DynamoDB_20120810.UpdateTimeToLive");
  EXPECT_EQ(sent[3].body, R"({"TableName":"delta_log","TimeToLiveSpecification":)"
                          R"({"AttributeName":"expireTime","Enabled":true}})");
  EXPECT_THAT(sleeper_.sleeps(), SizeIs(1));  // one poll while CREATING, on the fake clock
}

TEST_F(DynamoDbCoordinationTableTest, CreateDeltaLogTableProvisionedWithoutTtl) {
  http_.Script({Ok(kCreatingReply), Ok(kActiveReply)});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::Provisioned(7, 3), false);
  ASSERT_TRUE(warnings.ok()) << warnings.status().ToString();
  EXPECT_THAT(*warnings, IsEmpty());
  const std::vector<aws::HttpRequest>& sent = http_.sent();
  ASSERT_THAT(sent, SizeIs(2));  // no UpdateTimeToLive
  EXPECT_EQ(sent[0].body,
            R"({"AttributeDefinitions":[{"AttributeName":"tablePath","AttributeType":"S"},)"
            R"({"AttributeName":"fileName","AttributeType":"S"}],"BillingMode":"PROVISIONED",)"
            R"("KeySchema":[{"AttributeName":"tablePath","KeyType":"HASH"},)"
            R"({"AttributeName":"fileName","KeyType":"RANGE"}],)"
            R"("ProvisionedThroughput":{"ReadCapacityUnits":7,"WriteCapacityUnits":3},)"
            R"("TableName":"delta_log"})");
  EXPECT_EQ(HeaderOf(sent[1], "X-Amz-Target"), "DynamoDB_20120810.DescribeTable");
}

TEST_F(DynamoDbCoordinationTableTest, ServerWithoutUpdateTimeToLiveIsAWarning) {
  http_.Script({Ok(kCreatingReply), Ok(kActiveReply),
                Reply(400, R"({"__type":"com.amazon.coral.service#UnknownOperationException"})")});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::PayPerRequest(), true);
  ASSERT_TRUE(warnings.ok()) << warnings.status().ToString();
  ASSERT_THAT(*warnings, SizeIs(1));
  EXPECT_THAT(warnings->front(), HasSubstr("DynamoDB table delta_log was created without time to "
                                           "live on expireTime, so complete commit entries will "
                                           "not expire"));
  EXPECT_THAT(warnings->front(),
              HasSubstr("not supported by the server at " + std::string(kEndpoint)));
}

TEST_F(DynamoDbCoordinationTableTest, OtherUpdateTimeToLiveErrorFailsSayingTheTableIsUsable) {
  http_.Script({Ok(kCreatingReply), Ok(kActiveReply), Error(400, "AccessDeniedException")});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::PayPerRequest(), true);
  EXPECT_EQ(warnings.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(warnings.status().message(),
              HasSubstr("DynamoDB table delta_log was created and is usable, but enabling time "
                        "to live on expireTime failed"));
  EXPECT_THAT(warnings.status().message(), HasSubstr("dynamodb:UpdateTimeToLive"));
}

TEST_F(DynamoDbCoordinationTableTest, CreateDeltaLogTableOfExistingTableIsAlreadyExists) {
  http_.Script({Error(400, "ResourceInUseException")});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::PayPerRequest(), true);
  EXPECT_EQ(warnings.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(warnings.status().message(), HasSubstr("table delta_log already exists"));
  EXPECT_EQ(http_.sent().size(), 1u);
}

TEST_F(DynamoDbCoordinationTableTest, TableBeingDeletedIsFailedPrecondition) {
  http_.Script(
      {Ok(kCreatingReply), Ok(R"({"Table":{"TableName":"delta_log","TableStatus":"DELETING"}})")});
  auto warnings =
      CreateDeltaLogTable(client_, "delta_log", DeltaLogTableBilling::PayPerRequest(), true);
  EXPECT_EQ(warnings.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(http_.sent().size(), 2u);
}

}  // namespace
}  // namespace deltacommit::dynamodb
