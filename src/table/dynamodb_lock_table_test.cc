// Auto-create of the s3-dynamodb lock table against a scripted DynamoDB:
// create on a missing table, a racing creator, a wrong key schema, a TTL
// failure that leaves a usable table; the missing-table hint and the
// storage option that turns auto-create on.
#include "deltacommit/table/dynamodb_lock_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/dynamodb/dynamodb_test_http.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit {
namespace {

using dynamodb::testing::Error;
using dynamodb::testing::HeaderOf;
using dynamodb::testing::Ok;
using dynamodb::testing::ScriptedHttpClient;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDeltaLogSchema[] =
    R"("AttributeDefinitions":[{"AttributeName":"tablePath","AttributeType":"S"},)"
    R"({"AttributeName":"fileName","AttributeType":"S"}],)"
    R"("KeySchema":[{"AttributeName":"tablePath","KeyType":"HASH"},)"
    R"({"AttributeName":"fileName","KeyType":"RANGE"}])";

aws::HttpResponse Table(const std::string& member, const std::string& status,
                        const std::string& schema = kDeltaLogSchema) {
  return Ok(R"({")" + member + R"(":{"TableName":"locks","TableStatus":")" + status + R"(",)" +
            schema + "}}");
}

class EnsureDeltaLogTableTest : public ::testing::Test {
 protected:
  EnsureDeltaLogTableTest()
      : credentials_(aws::StaticCredentialsProvider(
            {"AKIAIOSFODNN7EXAMPLE", "secret", "", std::nullopt, "test"})),
        client_(Config(), http_, *credentials_, clock_, sleeper_) {
    settings_.table_name = "locks";
  }

  static dynamodb::DynamoDbClientConfig Config() {
    dynamodb::DynamoDbClientConfig config;
    config.service.endpoint_url = "http://127.0.0.1:8000";
    config.service.region = "us-east-1";
    return config;
  }

  // The operations sent, in order.
  std::vector<std::string> Sent() const {
    std::vector<std::string> ops;
    for (const auto& r : http_.sent()) {
      ops.push_back(HeaderOf(r, "X-Amz-Target").substr(std::string("DynamoDB_20120810.").size()));
    }
    return ops;
  }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  ScriptedHttpClient http_;
  std::unique_ptr<aws::CredentialsProvider> credentials_;
  dynamodb::DynamoDbClient client_;
  DynamoDbSettings settings_;
};

TEST_F(EnsureDeltaLogTableTest, MissingTableIsCreatedWithTimeToLive) {
  http_.Script({Error(400, "ResourceNotFoundException"), Table("TableDescription", "CREATING"),
                Table("Table", "ACTIVE"), Ok()});
  auto result = EnsureDeltaLogTable(client_, settings_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->created);
  EXPECT_TRUE(result->warnings.empty());
  EXPECT_THAT(Sent(),
              ElementsAre("DescribeTable", "CreateTable", "DescribeTable", "UpdateTimeToLive"));
  EXPECT_THAT(http_.sent()[1].body, HasSubstr(R"("BillingMode":"PAY_PER_REQUEST")"));
  EXPECT_THAT(http_.sent()[3].body, HasSubstr(R"("AttributeName":"expireTime","Enabled":true)"));
}

TEST_F(EnsureDeltaLogTableTest, ProvisionedBillingIsUsedWhenConfigured) {
  settings_.provisioned = true;
  http_.Script({Error(400, "ResourceNotFoundException"), Table("TableDescription", "ACTIVE"),
                Table("Table", "ACTIVE"), Ok()});
  ASSERT_TRUE(EnsureDeltaLogTable(client_, settings_).ok());
  EXPECT_THAT(
      http_.sent()[1].body,
      HasSubstr(R"("ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5})"));
}

TEST_F(EnsureDeltaLogTableTest, RacingCreatorIsWaitedForNotAnError) {
  http_.Script({Error(400, "ResourceNotFoundException"), Error(400, "ResourceInUseException"),
                Table("Table", "CREATING"), Table("Table", "ACTIVE")});
  auto result = EnsureDeltaLogTable(client_, settings_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->created);
  EXPECT_THAT(Sent(), ElementsAre("DescribeTable", "CreateTable", "DescribeTable", "DescribeTable",
                                  "DescribeTable"));
}

TEST_F(EnsureDeltaLogTableTest, TimeToLiveFailureIsAWarningOnAUsableTable) {
  http_.Script({Error(400, "ResourceNotFoundException"), Table("TableDescription", "ACTIVE"),
                Table("Table", "ACTIVE"), Error(400, "AccessDeniedException", "no")});
  auto result = EnsureDeltaLogTable(client_, settings_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->created);
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_THAT(result->warnings[0], HasSubstr("without time to live on expireTime"));
  EXPECT_THAT(result->warnings[0], HasSubstr("UpdateTimeToLive"));
}

TEST_F(EnsureDeltaLogTableTest, ExistingTableWithAnotherKeySchemaIsRefused) {
  http_.Script({Table("Table", "ACTIVE",
                      R"("AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],)"
                      R"("KeySchema":[{"AttributeName":"id","KeyType":"HASH"}])")});
  auto result = EnsureDeltaLogTable(client_, settings_);
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(result.status().message(),
              HasSubstr("has key schema id S HASH, no RANGE key, but s3-dynamodb"));
  EXPECT_THAT(Sent(), ElementsAre("DescribeTable"));  // nothing created
}

TEST_F(EnsureDeltaLogTableTest, OtherDescribeErrorsAreReturned) {
  http_.Script({Error(400, "AccessDeniedException", "denied")});
  auto result = EnsureDeltaLogTable(client_, settings_);
  EXPECT_EQ(result.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(Sent(), ElementsAre("DescribeTable"));
}

TEST(KeySchemaProblemTest, TypesMatterNotOnlyNames) {
  dynamodb::TableDescription t{"locks", "ACTIVE", "tablePath", "fileName", "S", "S", ""};
  EXPECT_EQ(KeySchemaProblem(t), std::nullopt);
  t.range_key_type = "N";
  ASSERT_TRUE(KeySchemaProblem(t).has_value());
  EXPECT_THAT(*KeySchemaProblem(t), HasSubstr("tablePath S HASH, fileName N RANGE"));
}

TEST(AutoCreateHintTest, NamesTheFlagAndTheStorageOption) {
  EXPECT_THAT(AutoCreateHint(), HasSubstr("--create-dynamodb-table"));
  EXPECT_THAT(AutoCreateHint(), HasSubstr("deltacommit.dynamodb.autoCreate=true"));
}

TEST(AutoCreateSettingTest, OffByDefaultOnWithTheStorageOptionStrictlyBoolean) {
  auto off = ResolveDynamoDbSettings({});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->auto_create);
  // Keys arrive lower-cased (CheckStorageOptions); values in any case.
  auto on = ResolveDynamoDbSettings({{"deltacommit.dynamodb.autocreate", "TRUE"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->auto_create);
  auto bad = ResolveDynamoDbSettings({{"deltacommit.dynamodb.autocreate", "yes"}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("deltacommit.dynamodb.autoCreate=\"yes\": expected true or false"));
}

// delta-rs's storage options name the lock table, its region and plain
// http; Spark's key wins over delta-rs's.
TEST(DynamoDbSettingsTest, DeltaRsStorageOptionsNameTheTableRegionAndHttp) {
  auto named = ResolveDynamoDbSettings({{"delta_dynamo_table_name", "rs_locks"},
                                        {"aws_region", "eu-north-1"},
                                        {"aws_endpoint_url_dynamodb", "http://127.0.0.1:1"},
                                        {"aws_allow_http", "true"}});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->table_name, "rs_locks");
  EXPECT_EQ(named->service.region, "eu-north-1");
  auto spark = ResolveDynamoDbSettings(
      {{"delta_dynamo_table_name", "rs_locks"},
       {"io.delta.storage.s3dynamodblogstore.ddb.tablename", "spark_locks"}});
  ASSERT_TRUE(spark.ok()) << spark.status().ToString();
  EXPECT_EQ(spark->table_name, "spark_locks");
}

}  // namespace
}  // namespace deltacommit
