// DynamoDbClient against a real DynamoDB API: dynalite in tests (see
// TESTINFRA.md), or AWS itself. The server comes from the environment:
// AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_REGION. Without it the tests skip, except in CI (CI set), where a
// skipped integration test is a failure. Every test uses its own table.
#include <atomic>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/dynamodb_test_client.h"
#include "common/test_servers.h"
#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/log_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::dynamodb {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

constexpr milliseconds kActiveTimeout{20'000};

Item Key(const std::string& table_path, const std::string& file_name) {
  return {{"tablePath", AttributeValue::String(table_path)},
          {"fileName", AttributeValue::String(file_name)}};
}

// docs/protocols/s3-dynamodb.md step 3: the commit point.
PutItemRequest CommitEntry(const std::string& table, const std::string& table_path, int version,
                           const std::string& temp_path) {
  Item item = Key(table_path, CommitFileName(version));
  item["tempPath"] = AttributeValue::String(temp_path);
  item["complete"] = AttributeValue::String("false");
  return {table, std::move(item), {"attribute_not_exists(fileName)", {}, {}}};
}

class DynamoDbClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    client_ = ddb_.emplace().client.get();
  }

  // A fresh table with the delta_log schema, ACTIVE.
  std::string NewDeltaLogTable() {
    const std::string name = "dc_test_" + NewUuid();
    auto created = client_->CreateTable({name, {"tablePath"}, KeyAttribute{"fileName"}});
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    Status active = client_->WaitForTableActive(name, kActiveTimeout);
    EXPECT_TRUE(active.ok()) << active.ToString();
    return name;
  }

  std::optional<testing::DynamoDbTestClient> ddb_;  // after DC_REQUIRE_DYNAMODB
  DynamoDbClient* client_ = nullptr;
};

TEST_F(DynamoDbClientIntegrationTest, CreateTableWithDeltaLogSchemaBecomesActive) {
  const std::string name = "dc_test_" + NewUuid();
  auto created = client_->CreateTable({name, {"tablePath"}, KeyAttribute{"fileName"}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->name, name);
  EXPECT_THAT(created->status, ::testing::AnyOf("CREATING", "ACTIVE"));
  ASSERT_TRUE(client_->WaitForTableActive(name, kActiveTimeout).ok());

  auto table = client_->DescribeTable(name);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->status, "ACTIVE");
  EXPECT_EQ(table->hash_key, "tablePath");
  EXPECT_EQ(table->range_key, "fileName");
  EXPECT_EQ(table->hash_key_type, "S");
  EXPECT_EQ(table->range_key_type, "S");
  EXPECT_EQ(table->billing_mode, "PAY_PER_REQUEST");

  auto again = client_->CreateTable({name, {"tablePath"}, KeyAttribute{"fileName"}});
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();

  auto ttl = client_->DescribeTimeToLive(name);
  ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
  EXPECT_EQ(ttl->status, "DISABLED");
}

TEST_F(DynamoDbClientIntegrationTest, CreateProvisionedTable) {
  const std::string name = "dc_test_" + NewUuid();
  auto created =
      client_->CreateTable({name, {"tableId"}, std::nullopt, BillingMode::kProvisioned, 5, 5});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE(client_->WaitForTableActive(name, kActiveTimeout).ok());
  auto table = client_->DescribeTable(name);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->billing_mode, "PROVISIONED");
  EXPECT_EQ(table->hash_key, "tableId");
  EXPECT_EQ(table->range_key, "");
}

TEST_F(DynamoDbClientIntegrationTest, SecondConditionalPutOfAVersionIsAlreadyExists) {
  const std::string table = NewDeltaLogTable();
  ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/t", 0, ".tmp/0.a")).ok());
  Status second = client_->PutItem(CommitEntry(table, "s3a://b/t", 0, ".tmp/0.b"));
  EXPECT_EQ(second.code(), StatusCode::kAlreadyExists) << second.ToString();
  EXPECT_THAT(second.message(), HasSubstr("ConditionalCheckFailedException"));
  // Another table path is another key.
  EXPECT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/u", 0, ".tmp/0.c")).ok());
}

TEST_F(DynamoDbClientIntegrationTest, RacingConditionalPutsExactlyOneWins) {
  const std::string table = NewDeltaLogTable();
  constexpr int kWriters = 16;
  for (int version = 0; version < 5; ++version) {
    std::atomic<int> ready{0};
    std::atomic<int> winners{0};
    std::atomic<int> losers{0};
    std::vector<std::thread> threads;
    std::vector<std::string> won_by(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        const std::string temp = ".tmp/" + CommitFileName(version) + ".writer" + std::to_string(w);
        ready.fetch_add(1);
        while (ready.load() < kWriters) std::this_thread::yield();
        Status s = client_->PutItem(CommitEntry(table, "s3a://b/race", version, temp));
        if (s.ok()) {
          winners.fetch_add(1);
          won_by[static_cast<size_t>(w)] = temp;
        } else if (s.IsAlreadyExists()) {
          losers.fetch_add(1);
        } else {
          ADD_FAILURE() << "writer " << w << ": " << s.ToString();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(winners.load(), 1) << "version " << version;
    EXPECT_EQ(losers.load(), kWriters - 1) << "version " << version;
    // The entry is the winner's.
    auto item = client_->GetItem({table, Key("s3a://b/race", CommitFileName(version)), true});
    ASSERT_TRUE(item.ok() && item->has_value()) << item.status().ToString();
    const std::optional<std::string> temp = GetString(**item, "tempPath");
    ASSERT_TRUE(temp.has_value());
    EXPECT_THAT(won_by, ::testing::Contains(*temp));
  }
}

TEST_F(DynamoDbClientIntegrationTest, ConsistentGetItemSeesTheWrite) {
  const std::string table = NewDeltaLogTable();
  auto missing = client_->GetItem({table, Key("s3a://b/t", CommitFileName(3)), true});
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_FALSE(missing->has_value());

  ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/t", 3, ".tmp/3.x")).ok());
  auto item = client_->GetItem({table, Key("s3a://b/t", CommitFileName(3)), true});
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  ASSERT_TRUE(item->has_value());
  EXPECT_EQ(GetString(**item, "tempPath"), ".tmp/3.x");
  EXPECT_EQ(GetString(**item, "complete"), "false");
  EXPECT_EQ(GetString(**item, "tablePath"), "s3a://b/t");
}

TEST_F(DynamoDbClientIntegrationTest, QueryLatestEntryIsTheHighestVersion) {
  const std::string table = NewDeltaLogTable();
  for (int v : {0, 1, 2, 10, 9}) {
    ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/t", v, ".tmp/x")).ok());
  }
  ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/other", 99, ".tmp/y")).ok());

  QueryRequest latest;
  latest.table = table;
  latest.key_condition = {"tablePath = :p", {}, {{":p", AttributeValue::String("s3a://b/t")}}};
  latest.scan_index_forward = false;
  latest.limit = 1;
  auto result = client_->Query(latest);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->items.size(), 1u);
  EXPECT_EQ(GetString(result->items[0], "fileName"), CommitFileName(10));

  // Ascending pages of two, following LastEvaluatedKey.
  QueryRequest pages = latest;
  pages.scan_index_forward = true;
  pages.limit = 2;
  std::vector<std::string> seen;
  for (int page = 0; page < 10; ++page) {
    auto r = client_->Query(pages);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const Item& item : r->items) seen.push_back(GetString(item, "fileName").value_or("?"));
    if (!r->last_evaluated_key) break;
    pages.exclusive_start_key = r->last_evaluated_key;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{CommitFileName(0), CommitFileName(1), CommitFileName(2), CommitFileName(9),
                                            CommitFileName(10)}));
}

TEST_F(DynamoDbClientIntegrationTest, UpdateItemMarksTheEntryComplete) {
  const std::string table = NewDeltaLogTable();
  ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/t", 5, ".tmp/5.x")).ok());
  const int64_t expire = 1'700'086'400;
  UpdateItemRequest update{
      table,
      Key("s3a://b/t", CommitFileName(5)),
      {"SET complete = :c, expireTime = :e",
       {},
       {{":c", AttributeValue::String("true")}, {":e", AttributeValue::Number(expire)}}},
      {"attribute_exists(fileName)", {}, {}}};
  Status s = client_->UpdateItem(update);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto item = client_->GetItem({table, Key("s3a://b/t", CommitFileName(5)), true});
  ASSERT_TRUE(item.ok() && item->has_value()) << item.status().ToString();
  EXPECT_EQ(GetString(**item, "complete"), "true");
  EXPECT_EQ((*item)->at("expireTime").type(), AttributeValue::Type::kNumber);
  EXPECT_EQ((*item)->at("expireTime").AsInt64(), expire);
  EXPECT_EQ(GetString(**item, "tempPath"), ".tmp/5.x");

  // The same update of an entry that does not exist fails its condition.
  update.key = Key("s3a://b/t", CommitFileName(6));
  EXPECT_EQ(client_->UpdateItem(update).code(), StatusCode::kAlreadyExists);
}

TEST_F(DynamoDbClientIntegrationTest, DeleteItemRemovesTheEntry) {
  const std::string table = NewDeltaLogTable();
  ASSERT_TRUE(client_->PutItem(CommitEntry(table, "s3a://b/t", 1, ".tmp/1.x")).ok());
  Status deleted = client_->DeleteItem({table, Key("s3a://b/t", CommitFileName(1)), {}});
  ASSERT_TRUE(deleted.ok()) << deleted.ToString();
  auto item = client_->GetItem({table, Key("s3a://b/t", CommitFileName(1)), true});
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_FALSE(item->has_value());
  // Deleting what is not there is not an error in DynamoDB.
  EXPECT_TRUE(client_->DeleteItem({table, Key("s3a://b/t", CommitFileName(1)), {}}).ok());
}

TEST_F(DynamoDbClientIntegrationTest, MissingTableIsNotFoundWithCreateTableHint) {
  const std::string name = "dc_test_missing_" + NewUuid();
  auto table = client_->DescribeTable(name);
  EXPECT_EQ(table.status().code(), StatusCode::kNotFound) << table.status().ToString();
  EXPECT_THAT(table.status().message(),
              HasSubstr("DynamoDB table " + name + " not found in region " +
                        client_->config().service.region + " at endpoint " +
                        client_->config().service.endpoint_url));
  EXPECT_THAT(table.status().message(), HasSubstr("`deltacommit dynamodb create-table`"));
  EXPECT_THAT(table.status().message(), HasSubstr("dynamodb:CreateTable"));
  auto item = client_->GetItem({name, Key("s3a://b/t", CommitFileName(0)), true});
  EXPECT_EQ(item.status().code(), StatusCode::kNotFound);
}

// dynalite has no UpdateTimeToLive; AWS has. Either way the outcome is clear.
TEST_F(DynamoDbClientIntegrationTest, UpdateTimeToLiveEnablesOrIsClearlyUnimplemented) {
  const std::string table = NewDeltaLogTable();
  Status s = client_->UpdateTimeToLive(table, "expireTime", true);
  if (s.ok()) {
    auto ttl = client_->DescribeTimeToLive(table);
    ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
    EXPECT_THAT(ttl->status, ::testing::AnyOf("ENABLING", "ENABLED"));
    return;
  }
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_THAT(s.message(),
              HasSubstr("DynamoDB UpdateTimeToLive is not supported by the server at " +
                        client_->config().service.endpoint_url));
  EXPECT_THAT(s.message(), HasSubstr("UnknownOperationException"));
}

}  // namespace
}  // namespace deltacommit::dynamodb
