// FaultInjectingCoordinationTable: no rules, no faults; each rule fires on
// the calls it names only; a failed write never reaches the table, a dropped
// reply's write does.
#include "deltacommit/testing/fault_coordination_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_coordination_table.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* kTable = "s3://b/t";

ExternalCommitEntry Entry(int version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020d.json", version);
  return {kTable, name, std::string(".tmp/") + name + ".u", false,
          std::nullopt};
}

class FaultCoordinationTableTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryCoordinationTable base_;
  FaultInjectingCoordinationTable table_{base_, sleeper_};
};

TEST_F(FaultCoordinationTableTest, NoRulesIsTransparent) {
  EXPECT_EQ(table_.Describe(), base_.Describe());
  ASSERT_TRUE(table_.PutIfAbsent(Entry(0)).ok());
  ExternalCommitEntry done = Entry(0);
  done.complete = true;
  done.expire_time = 5;
  ASSERT_TRUE(table_.Put(done).ok());
  EXPECT_EQ(**table_.Get(kTable, done.file_name), done);
  EXPECT_EQ(**table_.GetLatest(kTable), done);
  EXPECT_EQ(table_.ListPage(kTable, "", 10)->entries.size(), 1u);
  EXPECT_EQ(table_.TotalCallCount(), 5);
}

TEST_F(FaultCoordinationTableTest, FailNthCallFailsOnlyThatCall) {
  ASSERT_TRUE(base_.PutIfAbsent(Entry(0)).ok());
  const auto rule = table_.FailNthCall(CoordinationTableOp::kGet, 2,
                                       DeadlineExceededError("slow"));
  EXPECT_TRUE(table_.Get(kTable, Entry(0).file_name).ok());
  EXPECT_EQ(table_.Get(kTable, Entry(0).file_name).status(),
            DeadlineExceededError("slow"));
  EXPECT_TRUE(table_.Get(kTable, Entry(0).file_name).ok());
  EXPECT_TRUE(table_.GetLatest(kTable).ok());  // other kinds are not counted
  EXPECT_EQ(table_.FiredCount(rule), 1);
}

TEST_F(FaultCoordinationTableTest, FailedWriteDoesNotReachTheTable) {
  table_.FailNthCall(CoordinationTableOp::kPutIfAbsent, 1);
  Status status = table_.PutIfAbsent(Entry(3));
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(status.message(),
              HasSubstr("PutIfAbsent \"00000000000000000003.json\""));
  EXPECT_FALSE(base_.GetLatest(kTable)->has_value());
  EXPECT_TRUE(table_.PutIfAbsent(Entry(3)).ok());  // the 2nd call goes on
}

TEST_F(FaultCoordinationTableTest, RulesMatchTheFileNameOrTheTablePath) {
  table_.FailEveryCall(CoordinationTableOp::kPut, "0001.json");
  EXPECT_FALSE(table_.Put(Entry(1)).ok());
  EXPECT_TRUE(table_.Put(Entry(2)).ok());
  table_.FailEveryCall(CoordinationTableOp::kListPage, "s3://b/other");
  EXPECT_TRUE(table_.ListPage(kTable, "", 10).ok());
  EXPECT_FALSE(table_.ListPage("s3://b/other", "", 10).ok());
  table_.FailEveryCall(CoordinationTableOp::kGet, "s3://b/other");
  EXPECT_TRUE(table_.Get(kTable, Entry(2).file_name).ok());
  EXPECT_FALSE(table_.Get("s3://b/other", Entry(2).file_name).ok());
}

TEST_F(FaultCoordinationTableTest, DropReplyAppliesTheCommitPointThenUnknown) {
  table_.DropReplyOnNthCall(CoordinationTableOp::kPutIfAbsent, 1);
  Status status = table_.PutIfAbsent(Entry(0));
  EXPECT_TRUE(status.IsUnknownOutcome()) << status.ToString();
  EXPECT_EQ(**base_.Get(kTable, Entry(0).file_name), Entry(0));
  // The retry sees its own earlier write as taken: read back to tell.
  EXPECT_TRUE(table_.PutIfAbsent(Entry(0)).IsAlreadyExists());
}

TEST_F(FaultCoordinationTableTest, DropReplyOnPutAppliesIt) {
  ASSERT_TRUE(base_.PutIfAbsent(Entry(0)).ok());
  table_.DropReplyOnNthCall(CoordinationTableOp::kPut, 1);
  ExternalCommitEntry done = Entry(0);
  done.complete = true;
  done.expire_time = 9;
  EXPECT_TRUE(table_.Put(done).IsUnknownOutcome());
  EXPECT_EQ(**base_.Get(kTable, done.file_name), done);
}

TEST_F(FaultCoordinationTableTest, DelayGoesThroughTheInjectedSleeper) {
  table_.DelayEveryCall(CoordinationTableOp::kGetLatest, 40ms);
  EXPECT_TRUE(table_.GetLatest(kTable).ok());
  EXPECT_TRUE(table_.Get(kTable, "x").ok());  // not delayed
  EXPECT_THAT(sleeper_.sleeps(), ElementsAre(40ms));
}

TEST_F(FaultCoordinationTableTest, FreezeHoldsTheCommitPointUntilReleased) {
  const auto rule = table_.FreezeNthCall(CoordinationTableOp::kPutIfAbsent, 1);
  Status result = InternalError("not run");
  std::thread writer([&] { result = table_.PutIfAbsent(Entry(0)); });
  ASSERT_TRUE(table_.WaitUntilFrozen(rule));
  EXPECT_FALSE(base_.GetLatest(kTable)->has_value());
  table_.Release(rule, UnavailableError("crashed"));
  writer.join();
  EXPECT_EQ(result, UnavailableError("crashed"));
  EXPECT_FALSE(base_.GetLatest(kTable)->has_value());
}

TEST_F(FaultCoordinationTableTest, CountersCountEveryCallByKind) {
  table_.FailEveryCall(CoordinationTableOp::kGet, "");
  table_.PutIfAbsent(Entry(0)).IgnoreError();
  table_.Put(Entry(0)).IgnoreError();
  table_.Put(Entry(1)).IgnoreError();
  table_.Get(kTable, "x").status().IgnoreError();
  table_.GetLatest(kTable).status().IgnoreError();
  table_.ListPage(kTable, "", 1).status().IgnoreError();
  EXPECT_EQ(table_.CallCount(CoordinationTableOp::kPutIfAbsent), 1);
  EXPECT_EQ(table_.CallCount(CoordinationTableOp::kPut), 2);
  EXPECT_EQ(table_.CallCount(CoordinationTableOp::kGet), 1);
  EXPECT_EQ(table_.CallCount(CoordinationTableOp::kGetLatest), 1);
  EXPECT_EQ(table_.CallCount(CoordinationTableOp::kListPage), 1);
  table_.ResetCallCounts();
  EXPECT_EQ(table_.TotalCallCount(), 0);
}

TEST(CoordinationTableOpNameTest, NamesEveryKind) {
  EXPECT_EQ(CoordinationTableOpName(CoordinationTableOp::kPutIfAbsent),
            "PutIfAbsent");
  EXPECT_EQ(CoordinationTableOpName(CoordinationTableOp::kListPage),
            "ListPage");
}

}  // namespace
}  // namespace deltacommit
