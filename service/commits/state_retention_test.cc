// StateRetention on a real SQLite state store: records of published commits
// more than `keep_published` below the published version are forgotten at
// each multiple of `every`, the latest, unpublished records and the
// applications' txns stay, a failed forget is retried at the next multiple,
// and -1 keeps everything. The service-level behaviour (retention through
// commits, a resend of a forgotten commit) is in commit_service_test.
#include "service/commits/state_retention.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"
#include "service/commits/testing/faulty_state_store.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

using namespace std::chrono_literals;

constexpr char kTable[] = "s3://bucket/retained";

class StateRetentionTest : public ::testing::Test {
 protected:
  StateRetentionTest() {
    auto store = SqliteStateStore::Open({dir_.path() + "/state.db"});
    if (!store.ok()) ADD_FAILURE() << store.status().ToString();
    sqlite_ = std::move(store).value();
    faulty_ = std::make_unique<testing::FaultyStateStore>(*sqlite_);
  }

  // Ratifies versions [from, to) with a txn of app "app-<v % 3>" each,
  // publishes them, and tells `retention` of each, as the service does.
  void CommitAndPublish(StateRetention& retention, Version from, Version to) {
    for (Version v = from; v < to; ++v) {
      CommitRecord record{
          kTable, v,     StagedCommitPath(v, NewUuid()),       std::string(64, 'a'), 10, 1,
          2,      false, {{"app-" + std::to_string(v % 3), v}}};
      ASSERT_TRUE(sqlite_->Ratify(record, nullptr).ok());
      ASSERT_TRUE(sqlite_->MarkPublishedThrough(kTable, v).ok());
      retention.Published(kTable, v);
    }
  }

  std::vector<Version> Kept() {
    auto records = sqlite_->ListFrom(kTable, 0, 1'000'000);
    EXPECT_TRUE(records.ok()) << records.status().ToString();
    std::vector<Version> versions;
    for (const CommitRecord& r : *records) versions.push_back(r.version);
    return versions;
  }

  TempDir dir_;
  std::unique_ptr<SqliteStateStore> sqlite_;
  std::unique_ptr<testing::FaultyStateStore> faulty_;
};

TEST_F(StateRetentionTest, ForgetsAllButTheLastKeptAtEachMultiple) {
  StateRetention retention(*faulty_, {100, 100}, nullptr);
  CommitAndPublish(retention, 0, 350);
  ASSERT_TRUE(retention.WaitIdle(10s));
  // At 299 (the third multiple), everything below 200 went; 300..349 are
  // newer than the last multiple, so 150 records are left.
  const std::vector<Version> kept = Kept();
  ASSERT_EQ(kept.size(), 150u);
  EXPECT_EQ(kept.front(), 200);
  EXPECT_EQ(kept.back(), 349);
  EXPECT_EQ(retention.forgotten(), 200);
  // Each application's latest txn outlives the record that carried it.
  for (int app = 0; app < 3; ++app) {
    auto txn = sqlite_->LatestAppTxn(kTable, "app-" + std::to_string(app));
    ASSERT_TRUE(txn.ok() && txn->has_value());
    EXPECT_EQ((*txn)->commit_version % 3, app);
    EXPECT_GE((*txn)->commit_version, 347);
  }
  // The state stays the same size however many commits follow.
  CommitAndPublish(retention, 350, 1000);
  ASSERT_TRUE(retention.WaitIdle(10s));
  EXPECT_EQ(Kept().size(), 100u);
  EXPECT_EQ(Kept().front(), 900);
}

TEST_F(StateRetentionTest, UnpublishedAndLatestRecordsAreKept) {
  StateRetention retention(*faulty_, {0, 10}, nullptr);
  CommitAndPublish(retention, 0, 10);
  ASSERT_TRUE(retention.WaitIdle(10s));
  // keep 0 at 9: forget below 10, but 9 is the latest and stays.
  EXPECT_THAT(Kept(), ::testing::ElementsAre(9));
  // Ratified, not published: told of nothing, so it stays, and so does
  // everything after it once 19 is reached with 10 still unpublished.
  CommitRecord pending{kTable, 10, StagedCommitPath(10, NewUuid()), std::string(64, 'a'), 10, 1,
                       2,      false, {}};
  ASSERT_TRUE(sqlite_->Ratify(pending, nullptr).ok());
  retention.Published(kTable, 19);  // a stale claim: the store knows better
  ASSERT_TRUE(retention.WaitIdle(10s));
  EXPECT_THAT(Kept(), ::testing::ElementsAre(10));
  auto latest = sqlite_->Latest(kTable);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->version, 10);
}

TEST_F(StateRetentionTest, AFailedForgetIsRetriedAtTheNextMultiple) {
  faulty_->FailNthCall(testing::StateStoreOp::kForgetPublishedBefore, 1);
  StateRetention retention(*faulty_, {10, 20}, nullptr);
  CommitAndPublish(retention, 0, 20);
  ASSERT_TRUE(retention.WaitIdle(10s));
  EXPECT_EQ(Kept().size(), 20u) << "the forget at 19 failed: nothing went";
  CommitAndPublish(retention, 20, 40);
  ASSERT_TRUE(retention.WaitIdle(10s));
  EXPECT_EQ(Kept().front(), 30);  // at 39: everything below 39 + 1 - 10
  EXPECT_EQ(faulty_->CallCount(testing::StateStoreOp::kForgetPublishedBefore), 2);
}

TEST_F(StateRetentionTest, MinusOneKeepsEveryRecord) {
  StateRetention retention(*faulty_, {-1, 1}, nullptr);
  CommitAndPublish(retention, 0, 30);
  ASSERT_TRUE(retention.WaitIdle(10s));
  EXPECT_EQ(Kept().size(), 30u);
  EXPECT_EQ(faulty_->CallCount(testing::StateStoreOp::kForgetPublishedBefore), 0);
}

}  // namespace
}  // namespace deltacommit::service
