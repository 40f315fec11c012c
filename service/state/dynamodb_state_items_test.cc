#include "service/state/dynamodb_state_items.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

using dynamodb::AttributeValue;
using dynamodb::Item;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kTable[] = "s3://bucket/t";
constexpr char kDynamoTable[] = "deltacommit_service";

CommitRecord Record(Version version) {
  return {kTable,
          version,
          StagedCommitPath(version, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"),
          std::string(64, 'e'),
          321,
          1'700'000'000'000,
          1'699'999'999'000,
          false,
          {}};
}

TEST(DynamoDbStateItemsTest, CommitItemHasTheDocumentedAttributes) {
  const CommitRecord r = Record(7);
  EXPECT_EQ(CommitItem(r),
            (Item{{"table_uri", AttributeValue::String(kTable)},
                  {"version", AttributeValue::Number(7)},
                  {"staged_file", AttributeValue::String(r.staged_file)},
                  {"content_sha256", AttributeValue::String(r.content_sha256)},
                  {"size", AttributeValue::Number(321)},
                  {"ratified_at_ms", AttributeValue::Number(r.ratified_at_ms)},
                  {"commit_timestamp_ms",
                   AttributeValue::Number(r.commit_timestamp_ms)}}));
}

TEST(DynamoDbStateItemsTest, CommitItemRoundTripsWithPublishedFromTheHead) {
  CommitRecord r = Record(7);
  auto unpublished = RecordFromCommitItem(CommitItem(r), kDynamoTable, 6);
  ASSERT_TRUE(unpublished.ok()) << unpublished.status().ToString();
  EXPECT_EQ(*unpublished, r);
  r.published = true;
  EXPECT_EQ(RecordFromCommitItem(CommitItem(r), kDynamoTable, 7).value(), r);
}

TEST(DynamoDbStateItemsTest, FirstHeadIsConditionalAndStartsPublishedBelowIt) {
  dynamodb::PutItemRequest put = FirstHeadRequest(kDynamoTable, Record(5));
  EXPECT_EQ(put.table, kDynamoTable);
  EXPECT_EQ(put.condition.text, "attribute_not_exists(#v)");
  EXPECT_EQ(put.item.at("version"), AttributeValue::Number(kHeadVersion));
  EXPECT_EQ(put.item.at("latest"), AttributeValue::Number(5));
  EXPECT_EQ(put.item.at("published_through"), AttributeValue::Number(4));
  auto head = HeadFromItem(put.item, kDynamoTable);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->latest, 5);
  EXPECT_EQ(head->published_through, 4);
  EXPECT_EQ(head->latest_record, Record(5));
}

TEST(DynamoDbStateItemsTest, AdvanceHeadIsACompareAndSwapOnLatest) {
  dynamodb::UpdateItemRequest update =
      AdvanceHeadRequest(kDynamoTable, Record(8));
  EXPECT_EQ(update.key, ItemKey(kTable, kHeadVersion));
  EXPECT_EQ(update.condition.text, "#l = :previous");
  EXPECT_EQ(update.condition.values.at(":previous"), AttributeValue::Number(7));
  EXPECT_EQ(update.update.values.at(":v"), AttributeValue::Number(8));
  EXPECT_THAT(update.update.text,
              ::testing::Not(HasSubstr("published_through")));
}

TEST(DynamoDbStateItemsTest, TheHeadWriteThatRatifiesACommitRecordsItsTxns) {
  CommitRecord r = Record(8);
  r.app_txns = {{"stream-a", 3}, {"b", 1}};
  dynamodb::UpdateItemRequest update = AdvanceHeadRequest(kDynamoTable, r);
  EXPECT_THAT(update.update.text, HasSubstr(", #a0 = :a0, #a1 = :a1"));
  EXPECT_EQ(update.update.names.at("#a0"), "app:stream-a");
  const Item applied{{"txn_version", AttributeValue::Number(3)},
                     {"commit_version", AttributeValue::Number(8)}};
  EXPECT_EQ(update.update.values.at(":a0"), AttributeValue::Map(applied));

  Item head_item = FirstHeadRequest(kDynamoTable, r).item;
  EXPECT_EQ(head_item.at("app:stream-a"), AttributeValue::Map(applied));
  auto head = HeadFromItem(head_item, kDynamoTable);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->app_txns.at("stream-a"), (AppliedTxn{3, 8}));
  EXPECT_EQ(head->app_txns.at("b"), (AppliedTxn{1, 8}));
  head_item["app:b"] = AttributeValue::String("1");
  EXPECT_THAT(HeadFromItem(head_item, kDynamoTable).status().message(),
              HasSubstr("attribute app:b is not a map of integers"));
}

TEST(DynamoDbStateItemsTest, MarkPublishedNeverLowersNorPassesLatest) {
  dynamodb::UpdateItemRequest update =
      MarkPublishedRequest(kDynamoTable, kTable, 3);
  EXPECT_EQ(update.condition.text, "#l >= :v AND #p < :v");
  EXPECT_EQ(update.update.values.at(":v"), AttributeValue::Number(3));
}

TEST(DynamoDbStateItemsTest, HeadWithoutLatestIsDataLossNamingAttributeAndKey) {
  Item item = FirstHeadRequest(kDynamoTable, Record(5)).item;
  item["latest"] = AttributeValue::String("5");
  auto head = HeadFromItem(item, kDynamoTable);
  EXPECT_EQ(head.status().code(), StatusCode::kDataLoss)
      << head.status().ToString();
  EXPECT_THAT(
      head.status().message(),
      AllOf(HasSubstr("DynamoDB table deltacommit_service"),
            HasSubstr("table_uri s3://bucket/t, version -1"),
            HasSubstr("attribute latest is missing or not an integer (N)")));
}

TEST(DynamoDbStateItemsTest, HeadPublishedBeyondLatestIsDataLoss) {
  Item item = FirstHeadRequest(kDynamoTable, Record(5)).item;
  item["published_through"] = AttributeValue::Number(6);
  auto head = HeadFromItem(item, kDynamoTable);
  EXPECT_EQ(head.status().code(), StatusCode::kDataLoss)
      << head.status().ToString();
  EXPECT_THAT(head.status().message(),
              HasSubstr("published_through 6 is not between -1 and latest 5"));
}

TEST(DynamoDbStateItemsTest, CommitItemWithAnInvalidRecordIsDataLoss) {
  Item item = CommitItem(Record(7));
  item["staged_file"] = AttributeValue::String(
      StagedCommitPath(9, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));
  auto record = RecordFromCommitItem(item, kDynamoTable, -1);
  EXPECT_EQ(record.status().code(), StatusCode::kDataLoss)
      << record.status().ToString();
  EXPECT_THAT(record.status().message(),
              AllOf(HasSubstr("version 7"), HasSubstr("staged for version 9")));
  item.erase("size");
  record = RecordFromCommitItem(item, kDynamoTable, -1);
  EXPECT_THAT(record.status().message(),
              HasSubstr("attribute size is missing"));
}

}  // namespace
}  // namespace deltacommit::service
