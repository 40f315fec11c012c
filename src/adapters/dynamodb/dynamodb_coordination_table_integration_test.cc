// DynamoDbCoordinationTable and CreateDeltaLogTable against a real DynamoDB
// API: dynalite in tests (see TESTINFRA.md), or AWS itself. The server comes
// from the environment: AWS_ENDPOINT_URL_DYNAMODB, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION. Without it the tests skip, except in
// CI (CI set), where a skipped integration test is a failure. Every test
// creates its own table with CreateDeltaLogTable.
#include <atomic>
#include <cstdlib>
#include <memory>
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
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/log_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::dynamodb {
namespace {

using ::testing::HasSubstr;

constexpr char kTablePath[] = "s3a://bucket/warehouse/t";

ExternalCommitEntry Entry(const std::string& table_path, int version, const std::string& temp) {
  return {table_path, CommitFileName(version), ".tmp/" + CommitFileName(version) + "." + temp, false,
          std::nullopt};
}

class DynamoDbCoordinationTableIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    client_ = ddb_.emplace().client.get();
    name_ = "dc_test_" + NewUuid();
    auto warnings =
        CreateDeltaLogTable(*client_, name_, DeltaLogTableBilling::PayPerRequest(), true);
    ASSERT_TRUE(warnings.ok()) << warnings.status().ToString();
    // dynalite has no UpdateTimeToLive (a warning); AWS has (none).
    for (const std::string& w : *warnings) {
      EXPECT_THAT(w, HasSubstr("created without time to live on expireTime"));
    }
    table_ = std::make_unique<DynamoDbCoordinationTable>(*client_, name_);
  }

  std::optional<testing::DynamoDbTestClient> ddb_;  // after DC_REQUIRE_DYNAMODB
  DynamoDbClient* client_ = nullptr;
  std::string name_;
  std::unique_ptr<DynamoDbCoordinationTable> table_;
};

TEST_F(DynamoDbCoordinationTableIntegrationTest, CreatedTableHasTheDeltaLogSchema) {
  auto description = client_->DescribeTable(name_);
  ASSERT_TRUE(description.ok()) << description.status().ToString();
  EXPECT_EQ(description->status, "ACTIVE");
  EXPECT_EQ(description->hash_key, "tablePath");
  EXPECT_EQ(description->range_key, "fileName");
  EXPECT_EQ(description->billing_mode, "PAY_PER_REQUEST");
  EXPECT_EQ(table_->Describe(), "DynamoDB table " + name_ + " (" +
                                    client_->config().service.region + ", " +
                                    client_->config().service.endpoint_url + ")");

  auto again = CreateDeltaLogTable(*client_, name_, DeltaLogTableBilling::PayPerRequest(), true);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, ProvisionedTableWithoutTtlHasNoWarnings) {
  const std::string name = "dc_test_" + NewUuid();
  auto warnings = CreateDeltaLogTable(*client_, name, DeltaLogTableBilling::Provisioned(5, 5),
                                      /*enable_ttl=*/false);
  ASSERT_TRUE(warnings.ok()) << warnings.status().ToString();
  EXPECT_TRUE(warnings->empty());
  auto description = client_->DescribeTable(name);
  ASSERT_TRUE(description.ok()) << description.status().ToString();
  EXPECT_EQ(description->billing_mode, "PROVISIONED");
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, PutIfAbsentThenCompleteWithPut) {
  const ExternalCommitEntry incomplete = Entry(kTablePath, 0, "a");
  ASSERT_TRUE(table_->PutIfAbsent(incomplete).ok());

  Status second = table_->PutIfAbsent(Entry(kTablePath, 0, "b"));
  EXPECT_EQ(second.code(), StatusCode::kAlreadyExists) << second.ToString();
  EXPECT_THAT(second.message(),
              HasSubstr("tablePath " + std::string(kTablePath) + ", fileName " + CommitFileName(0)));
  auto read = table_->Get(kTablePath, CommitFileName(0));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, incomplete);  // the loser changed nothing

  ExternalCommitEntry complete = incomplete;
  complete.complete = true;
  complete.expire_time = 1'700'086'400;
  Status put = table_->Put(complete);
  ASSERT_TRUE(put.ok()) << put.ToString();
  read = table_->Get(kTablePath, CommitFileName(0));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, complete);

  // Another table path is another key.
  EXPECT_TRUE(table_->PutIfAbsent(Entry("s3a://bucket/warehouse/u", 0, "c")).ok());
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, GetOfAbsentEntryIsNullopt) {
  auto read = table_->Get(kTablePath, CommitFileName(3));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(read->has_value());
  auto latest = table_->GetLatest(kTablePath);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_FALSE(latest->has_value());
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, GetLatestIsTheHighestVersion) {
  // Out of order, across a digit boundary (9 -> 10): the zero padding makes
  // lexicographic order version order.
  for (int v : {0, 3, 1, 12, 9, 10, 2, 11, 4, 5, 8, 6, 7}) {
    ASSERT_TRUE(table_->PutIfAbsent(Entry(kTablePath, v, "w")).ok()) << v;
    auto latest = table_->GetLatest(kTablePath);
    ASSERT_TRUE(latest.ok() && latest->has_value()) << latest.status().ToString();
  }
  ASSERT_TRUE(table_->PutIfAbsent(Entry("s3a://bucket/warehouse/t2", 99, "w")).ok());
  ASSERT_TRUE(table_->PutIfAbsent(Entry("s3a://bucket/warehouse", 50, "w")).ok());

  auto latest = table_->GetLatest(kTablePath);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ(**latest, Entry(kTablePath, 12, "w"));

  ExternalCommitEntry complete = Entry(kTablePath, 12, "w");
  complete.complete = true;
  complete.expire_time = 1'700'086'400;
  ASSERT_TRUE(table_->Put(complete).ok());
  latest = table_->GetLatest(kTablePath);
  ASSERT_TRUE(latest.ok() && latest->has_value()) << latest.status().ToString();
  EXPECT_EQ(**latest, complete);
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, ListPagesWalkEveryEntryAscending) {
  // Out of order and across a digit boundary; neighbouring table paths (a
  // prefix and an extension of it) must not leak in.
  const std::vector<int> versions = {4, 0, 11, 9, 2, 10, 1, 3};
  for (int v : versions) ASSERT_TRUE(table_->PutIfAbsent(Entry(kTablePath, v, "w")).ok()) << v;
  ASSERT_TRUE(table_->PutIfAbsent(Entry("s3a://bucket/warehouse", 5, "w")).ok());
  ASSERT_TRUE(table_->PutIfAbsent(Entry("s3a://bucket/warehouse/t2", 6, "w")).ok());
  const std::vector<std::string> expected = {CommitFileName(0),  CommitFileName(1),
                                             CommitFileName(2),  CommitFileName(3),
                                             CommitFileName(4),  CommitFileName(9),
                                             CommitFileName(10), CommitFileName(11)};

  // Pages of 3, chained by hand: 3 + 3 + 2 (maybe + an empty last page).
  std::vector<std::string> seen;
  std::string start_after;
  int pages = 0;
  while (true) {
    auto page = table_->ListPage(kTablePath, start_after, 3);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ASSERT_LE(page->entries.size(), 3u);
    for (const ExternalCommitEntry& e : page->entries) {
      EXPECT_EQ(e, Entry(kTablePath, static_cast<int>(ParseLogPath(e.file_name).version), "w"));
      seen.push_back(e.file_name);
    }
    ++pages;
    ASSERT_LE(pages, 4) << "the listing does not end";
    if (!page->next_start_after) break;
    start_after = *page->next_start_after;
  }
  EXPECT_GE(pages, 3);
  EXPECT_EQ(seen, expected);

  // The visitor over pages of 2, and a start that is no entry's name.
  seen.clear();
  Status s = ForEachCommitEntry(*table_, kTablePath, 2, [&](const ExternalCommitEntry& e) {
    seen.push_back(e.file_name);
    return OkStatus();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, expected);
  auto tail = table_->ListPage(kTablePath, CommitFileName(5), 10);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  ASSERT_EQ(tail->entries.size(), 3u);
  EXPECT_EQ(tail->entries.front().file_name, CommitFileName(9));
  EXPECT_FALSE(tail->next_start_after.has_value());

  auto none = table_->ListPage("s3a://bucket/warehouse/none", "", 10);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->entries.empty());
  EXPECT_FALSE(none->next_start_after.has_value());
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, RacingPutIfAbsentExactlyOneWins) {
  constexpr int kWriters = 16;
  std::atomic<int> ready{0};
  std::atomic<int> winners{0};
  std::atomic<int> losers{0};
  std::vector<std::string> won_by(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      const ExternalCommitEntry entry = Entry(kTablePath, 7, "writer" + std::to_string(w));
      ready.fetch_add(1);
      while (ready.load() < kWriters) std::this_thread::yield();
      Status s = table_->PutIfAbsent(entry);
      if (s.ok()) {
        winners.fetch_add(1);
        won_by[static_cast<size_t>(w)] = entry.temp_path;
      } else if (s.IsAlreadyExists()) {
        losers.fetch_add(1);
      } else {
        ADD_FAILURE() << "writer " << w << ": " << s.ToString();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(losers.load(), kWriters - 1);
  auto read = table_->Get(kTablePath, CommitFileName(7));
  ASSERT_TRUE(read.ok() && read->has_value()) << read.status().ToString();
  EXPECT_THAT(won_by, ::testing::Contains((*read)->temp_path));
}

// The items Delta Spark's S3DynamoDBLogStore writes, put with the raw
// client: the incomplete entry (no expireTime), then the complete one.
TEST_F(DynamoDbCoordinationTableIntegrationTest, ReadsItemsWrittenAsDeltaSparkWritesThem) {
  const std::string temp = ".tmp/" + CommitFileName(4) + ".0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  Item item{{"tablePath", AttributeValue::String(kTablePath)},
            {"fileName", AttributeValue::String(CommitFileName(4))},
            {"tempPath", AttributeValue::String(temp)},
            {"complete", AttributeValue::String("false")}};
  ASSERT_TRUE(client_->PutItem({name_, item, {"attribute_not_exists(fileName)"}}).ok());
  auto read = table_->Get(kTablePath, CommitFileName(4));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, (ExternalCommitEntry{kTablePath, CommitFileName(4), temp, false, std::nullopt}));
  auto latest = table_->GetLatest(kTablePath);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(*latest, *read);

  item["complete"] = AttributeValue::String("true");
  item["expireTime"] = AttributeValue::Number(1'700'086'400);
  ASSERT_TRUE(client_->PutItem({name_, item, {}}).ok());
  read = table_->Get(kTablePath, CommitFileName(4));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, (ExternalCommitEntry{kTablePath, CommitFileName(4), temp, true, 1'700'086'400}));

  // And ours reads back, item for item, as Delta Spark's.
  auto raw = client_->GetItem(
      {name_, {{"tablePath", item.at("tablePath")}, {"fileName", item.at("fileName")}}});
  ASSERT_TRUE(raw.ok() && raw->has_value()) << raw.status().ToString();
  ASSERT_TRUE(table_->Put(**read).ok());
  auto ours = client_->GetItem(
      {name_, {{"tablePath", item.at("tablePath")}, {"fileName", item.at("fileName")}}});
  ASSERT_TRUE(ours.ok() && ours->has_value()) << ours.status().ToString();
  EXPECT_EQ(**ours, item);
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, ItemOfAnotherShapeIsDataLoss) {
  Item item{{"tablePath", AttributeValue::String(kTablePath)},
            {"fileName", AttributeValue::String(CommitFileName(2))},
            {"tempPath", AttributeValue::String(".tmp/x")},
            {"complete", AttributeValue::Bool(false)}};
  ASSERT_TRUE(client_->PutItem({name_, item, {}}).ok());
  auto read = table_->Get(kTablePath, CommitFileName(2));
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
  EXPECT_THAT(read.status().message(), HasSubstr("attribute complete is BOOL, expected S"));
  auto latest = table_->GetLatest(kTablePath);
  EXPECT_EQ(latest.status().code(), StatusCode::kDataLoss) << latest.status().ToString();
}

TEST_F(DynamoDbCoordinationTableIntegrationTest, MissingTableIsNotFound) {
  DynamoDbCoordinationTable missing(*client_, "dc_test_missing_" + NewUuid());
  auto read = missing.Get(kTablePath, CommitFileName(0));
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound) << read.status().ToString();
  EXPECT_EQ(missing.PutIfAbsent(Entry(kTablePath, 0, "a")).code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.GetLatest(kTablePath).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace deltacommit::dynamodb
