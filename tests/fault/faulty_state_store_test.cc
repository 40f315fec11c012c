// FaultyStateStore over a SQLite state store: no rules, no faults; a failed
// Ratify is not applied, a dropped reply's is (and says nothing else); the
// store-down switch fails every call until it is turned off.
#include "service/commits/testing/faulty_state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kTable[] = "s3://bucket/t";

CommitRecord Record(Version version, const std::string& table = kTable) {
  return {table,
          version,
          StagedCommitPath(version, NewUuid()),
          std::string(64, 'c'),
          10,
          1,
          2,
          false,
          {{"app", version}}};
}

class FaultyStateStoreTest : public ::testing::Test {
 protected:
  FaultyStateStoreTest() {
    auto sqlite = SqliteStateStore::Open({dir_.path() + "/state.db"});
    if (!sqlite.ok()) ADD_FAILURE() << sqlite.status().ToString();
    sqlite_ = std::move(sqlite).value();
    store_ = std::make_unique<FaultyStateStore>(*sqlite_);
  }

  // The version the SQLite store holds as latest, or -1.
  Version Latest() {
    auto latest = sqlite_->Latest(kTable);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    return latest.ok() && latest->has_value() ? (*latest)->version : -1;
  }

  TempDir dir_;
  std::unique_ptr<SqliteStateStore> sqlite_;
  std::unique_ptr<FaultyStateStore> store_;
};

TEST_F(FaultyStateStoreTest, NoRulesIsTransparent) {
  EXPECT_EQ(store_->Describe(), "faulty " + sqlite_->Describe());
  ASSERT_TRUE(store_->Ratify(Record(0), nullptr).ok());
  ASSERT_TRUE(store_->Ratify(Record(1), nullptr).ok());
  EXPECT_EQ((*store_->Get(kTable, 0))->version, 0);
  EXPECT_EQ((*store_->Latest(kTable))->version, 1);
  EXPECT_THAT(*store_->ListFrom(kTable, 0, 10), SizeIs(2));
  EXPECT_THAT(*store_->Unpublished(kTable, 10), SizeIs(2));
  ASSERT_TRUE(store_->MarkPublishedThrough(kTable, 1).ok());
  EXPECT_THAT(*sqlite_->Unpublished(kTable, 10), SizeIs(0));
  EXPECT_EQ((*store_->LatestAppTxn(kTable, "app"))->commit_version, 1);
  EXPECT_EQ(*store_->ForgetPublishedBefore(kTable, 1), 1);
  EXPECT_EQ(store_->TotalCallCount(), 9);
}

TEST_F(FaultyStateStoreTest, FailedRatifyIsNotApplied) {
  store_->FailNthCall(StateStoreOp::kRatify, 1);
  Status status = store_->Ratify(Record(0), nullptr);
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("Ratify \"s3://bucket/t\""));
  EXPECT_EQ(Latest(), -1);
  EXPECT_TRUE(store_->Ratify(Record(0), nullptr).ok());
  EXPECT_EQ(store_->RatifyCalls(), 2);
}

TEST_F(FaultyStateStoreTest, DroppedRatifyReplyIsAppliedAndTellsNothing) {
  store_->DropRatifyReplies(1);
  const CommitRecord record = Record(0);
  RatifyConflict conflict;
  Status status = store_->Ratify(record, &conflict);
  EXPECT_TRUE(status.IsUnknownOutcome()) << status.ToString();
  EXPECT_FALSE(conflict.latest.has_value());
  EXPECT_EQ(Latest(), 0);
  // Asked again, the store says taken by the same commit.
  EXPECT_TRUE(store_->Ratify(record, &conflict).IsAlreadyExists());
  ASSERT_TRUE(conflict.existing.has_value());
  EXPECT_TRUE(SameCommit(*conflict.existing, record));
}

TEST_F(FaultyStateStoreTest, DroppedReplyOfAConflictLeavesTheConflictEmpty) {
  ASSERT_TRUE(sqlite_->Ratify(Record(0), nullptr).ok());
  store_->DropReplyOnNthCall(StateStoreOp::kRatify, 1);
  RatifyConflict conflict;
  EXPECT_TRUE(store_->Ratify(Record(0), &conflict).IsUnknownOutcome());
  EXPECT_FALSE(conflict.latest.has_value());
  EXPECT_FALSE(conflict.existing.has_value());
}

TEST_F(FaultyStateStoreTest, DroppedPublishReplyIsApplied) {
  ASSERT_TRUE(sqlite_->Ratify(Record(0), nullptr).ok());
  store_->DropReplyOnNthCall(StateStoreOp::kMarkPublishedThrough, 1);
  EXPECT_TRUE(store_->MarkPublishedThrough(kTable, 0).IsUnknownOutcome());
  EXPECT_THAT(*sqlite_->Unpublished(kTable, 10), SizeIs(0));
}

TEST_F(FaultyStateStoreTest, DownFailsEveryCallWithoutEffectUntilUp) {
  ASSERT_TRUE(sqlite_->Ratify(Record(0), nullptr).ok());
  store_->SetDown(true);
  store_->SetDown(true);  // once is enough
  EXPECT_THAT(store_->Ratify(Record(1), nullptr).message(),
              HasSubstr("test state store is down"));
  EXPECT_TRUE(store_->Get(kTable, 0).status().code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->Latest(kTable).status().code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->ListFrom(kTable, 0, 1).status().code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->Unpublished(kTable, 1).status().code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->MarkPublishedThrough(kTable, 0).code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->LatestAppTxn(kTable, "app").status().code() ==
              StatusCode::kUnavailable);
  EXPECT_TRUE(store_->ForgetPublishedBefore(kTable, 0).status().code() ==
              StatusCode::kUnavailable);
  EXPECT_EQ(Latest(), 0);
  EXPECT_THAT(*sqlite_->Unpublished(kTable, 10), SizeIs(1));
  store_->SetDown(false);
  EXPECT_TRUE(store_->Ratify(Record(1), nullptr).ok());
  EXPECT_EQ(Latest(), 1);
  EXPECT_EQ(store_->RatifyCalls(), 2);
}

TEST_F(FaultyStateStoreTest, RulesMatchTheTable) {
  store_->FailEveryCall(StateStoreOp::kLatest, "s3://bucket/other");
  EXPECT_TRUE(store_->Latest(kTable).ok());
  EXPECT_FALSE(store_->Latest("s3://bucket/other").ok());
  store_->FailEveryCall(StateStoreOp::kLatestAppTxn, "writer-2");
  EXPECT_TRUE(store_->LatestAppTxn(kTable, "writer-1").ok());
  EXPECT_FALSE(store_->LatestAppTxn(kTable, "writer-2").ok());
  EXPECT_EQ(store_->CallCount(StateStoreOp::kLatest), 2);
  EXPECT_EQ(store_->CallCount(StateStoreOp::kLatestAppTxn), 2);
  EXPECT_EQ(store_->CallCount(StateStoreOp::kRatify), 0);
}

TEST(StateStoreOpNameTest, NamesEveryKind) {
  EXPECT_EQ(StateStoreOpName(StateStoreOp::kRatify), "Ratify");
  EXPECT_EQ(StateStoreOpName(StateStoreOp::kForgetPublishedBefore),
            "ForgetPublishedBefore");
}

}  // namespace
}  // namespace deltacommit::service::testing
