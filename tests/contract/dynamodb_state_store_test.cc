// DynamoDbStateStore beyond the StateStore contract (which
// state_store_contract_test.cc runs): the table it creates, its items as
// dynamodb_state_items.h documents them, and items it did not write. Against
// the DynamoDB test server (dynalite); skipped without it, except in CI.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "state_store_envs.h"

namespace deltacommit::service {
namespace {

using dynamodb::AttributeValue;
using dynamodb::Item;
using ::testing::AllOf;
using ::testing::HasSubstr;

class DynamoDbStateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_DYNAMODB();
    dynamodb_ = std::make_unique<deltacommit::testing::DynamoDbTestClient>();
    name_ = DynamoDbEnv::SharedTable(*dynamodb_->client);
    store_ = std::make_unique<DynamoDbStateStore>(*dynamodb_->client, name_);
  }

  CommitRecord Record(Version version) {
    return {table_,
            version,
            StagedCommitPath(version, NewUuid()),
            std::string(64, 'f'),
            9,
            1,
            2,
            false,
            {}};
  }
  Item RawItem(Version version) {
    auto item =
        dynamodb_->client->GetItem({name_, ItemKey(table_, version), true});
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() && item->has_value() ? **item : Item{};
  }

  std::unique_ptr<deltacommit::testing::DynamoDbTestClient> dynamodb_;
  std::string name_;
  std::unique_ptr<DynamoDbStateStore> store_;
  const std::string table_ = "s3://bucket/warehouse/d-" + NewUuid();
};

TEST_F(DynamoDbStateStoreTest, CreatedTableHasTheKeySchema) {
  auto description = dynamodb_->client->DescribeTable(name_);
  ASSERT_TRUE(description.ok()) << description.status().ToString();
  EXPECT_EQ(description->status, "ACTIVE");
  EXPECT_EQ(description->hash_key, "table_uri");
  EXPECT_EQ(description->range_key, "version");
  Status again =
      CreateServiceStateTable(*dynamodb_->client, name_,
                              dynamodb::DeltaLogTableBilling::PayPerRequest());
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.ToString();
  EXPECT_EQ(store_->Describe(),
            "DynamoDB table " + name_ + " (" +
                dynamodb_->client->config().service.region + ", " +
                dynamodb_->client->config().service.endpoint_url + ")");
}

// The latest record lives in the head; the one below it in its own item,
// written when the head moved on.
TEST_F(DynamoDbStateStoreTest, ItemsAreAsDocumented) {
  const CommitRecord zero = Record(0);
  const CommitRecord one = Record(1);
  ASSERT_TRUE(store_->Ratify(zero, nullptr).ok());
  ASSERT_TRUE(store_->Ratify(one, nullptr).ok());

  Item head = RawItem(kHeadVersion);
  EXPECT_EQ(head.at("latest"), AttributeValue::Number(1));
  EXPECT_EQ(head.at("published_through"), AttributeValue::Number(-1));
  EXPECT_EQ(head.at("staged_file"), AttributeValue::String(one.staged_file));
  EXPECT_EQ(RawItem(0), CommitItem(zero));
  EXPECT_TRUE(RawItem(1).empty());

  ASSERT_TRUE(store_->MarkPublishedThrough(table_, 1).ok());
  EXPECT_EQ(RawItem(kHeadVersion).at("published_through"),
            AttributeValue::Number(1));
}

// A crash between keeping version 0's item and moving the head (step 3 and
// 4) leaves an item that the next ratification writes again, unchanged.
TEST_F(DynamoDbStateStoreTest, KeptItemWithoutAMovedHeadIsHarmless) {
  const CommitRecord zero = Record(0);
  ASSERT_TRUE(store_->Ratify(zero, nullptr).ok());
  ASSERT_TRUE(dynamodb_->client->PutItem({name_, CommitItem(zero), {}}).ok());
  auto listed = store_->ListFrom(table_, 0, 10);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, std::vector<CommitRecord>{zero});
  ASSERT_TRUE(store_->Ratify(Record(1), nullptr).ok());
  listed = store_->ListFrom(table_, 0, 10);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0], zero);
}

TEST_F(DynamoDbStateStoreTest, HeadOfAnotherShapeIsDataLoss) {
  Item head = FirstHeadRequest(name_, Record(0)).item;
  head["latest"] = AttributeValue::String("0");
  ASSERT_TRUE(dynamodb_->client->PutItem({name_, head, {}}).ok());
  auto latest = store_->Latest(table_);
  EXPECT_EQ(latest.status().code(), StatusCode::kDataLoss)
      << latest.status().ToString();
  EXPECT_THAT(
      latest.status().message(),
      AllOf(HasSubstr("DynamoDB table " + name_), HasSubstr(table_),
            HasSubstr("attribute latest is missing or not an integer")));
  EXPECT_EQ(store_->Ratify(Record(1), nullptr).code(), StatusCode::kDataLoss);
}

TEST_F(DynamoDbStateStoreTest, DeletedHeadIsDataLossNotAFreshStart) {
  ASSERT_TRUE(store_->Ratify(Record(0), nullptr).ok());
  ASSERT_TRUE(store_->Ratify(Record(1), nullptr).ok());
  ASSERT_TRUE(
      dynamodb_->client->DeleteItem({name_, ItemKey(table_, kHeadVersion), {}})
          .ok());
  Status s = store_->Ratify(Record(0), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  EXPECT_THAT(s.message(), AllOf(HasSubstr(table_), HasSubstr("no head item")));
  EXPECT_TRUE(RawItem(kHeadVersion).empty());
}

TEST_F(DynamoDbStateStoreTest, MissingTableIsNotFound) {
  DynamoDbStateStore missing(*dynamodb_->client,
                             "dc_test_missing_" + NewUuid());
  auto latest = missing.Latest(table_);
  EXPECT_EQ(latest.status().code(), StatusCode::kNotFound)
      << latest.status().ToString();
  Status ratify = missing.Ratify(Record(0), nullptr);
  EXPECT_EQ(ratify.code(), StatusCode::kNotFound) << ratify.ToString();
  EXPECT_THAT(ratify.message(), HasSubstr("dc_test_missing_"));
}

}  // namespace
}  // namespace deltacommit::service
