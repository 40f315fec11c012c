// FaultInjectingParquetHandler: no rules, no faults; a failed checkpoint
// write leaves no file, a dropped reply's write leaves it; read rules match
// any part of a multi-part checkpoint.
#include "deltacommit/testing/fault_parquet_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/testing/json_lines_parquet_handler.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

SetTransaction Txn(std::string app_id, int64_t version) {
  SetTransaction txn;
  txn.app_id = std::move(app_id);
  txn.version = version;
  return txn;
}

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kCheckpoint =
    "_delta_log/00000000000000000002.checkpoint.parquet";

class FaultParquetHandlerTest : public ::testing::Test {
 protected:
  MemoryObjectStore store_;
  JsonLinesParquetHandler base_;
  FaultInjectingParquetHandler handler_{base_};
};

TEST_F(FaultParquetHandlerTest, NoRulesIsTransparent) {
  ASSERT_TRUE(handler_.WriteCheckpointActions(store_, kCheckpoint, {"a", "b"}).ok());
  EXPECT_THAT(*handler_.ReadCheckpointActions(store_, {kCheckpoint}),
              ElementsAre("a", "b"));
  EXPECT_EQ(handler_.TotalCallCount(), 2);
}

TEST_F(FaultParquetHandlerTest, FailedWriteLeavesNoFile) {
  handler_.FailNthCall(ParquetHandlerOp::kWriteCheckpoint, 1);
  StatusOr<int64_t> size = handler_.WriteCheckpointActions(store_, kCheckpoint, {"a"});
  EXPECT_EQ(size.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(
      size.status().message(),
      HasSubstr(std::string("WriteCheckpoint \"") + kCheckpoint + "\""));
  EXPECT_TRUE(store_.Head(kCheckpoint).status().IsNotFound());
  EXPECT_TRUE(handler_.WriteCheckpointActions(store_, kCheckpoint, {"a"}).ok());
}

TEST_F(FaultParquetHandlerTest, AWriteOfActionsFallsUnderTheSameRules) {
  handler_.FailNthCall(ParquetHandlerOp::kWriteCheckpoint, 1);
  const std::vector<Action> actions = {Txn("a", 1)};
  EXPECT_EQ(handler_.WriteCheckpoint(store_, kCheckpoint, actions).status().code(),
            StatusCode::kUnavailable);
  EXPECT_TRUE(store_.Head(kCheckpoint).status().IsNotFound());
  ASSERT_TRUE(handler_.WriteCheckpoint(store_, kCheckpoint, actions).ok());
  EXPECT_THAT(*handler_.ReadCheckpointActions(store_, {kCheckpoint}),
              ElementsAre(ActionToJson(actions[0])));
  EXPECT_EQ(handler_.CallCount(ParquetHandlerOp::kWriteCheckpoint), 2);
}

TEST_F(FaultParquetHandlerTest,
       DropReplyWritesTheFileThenAnswersUnknownOutcome) {
  handler_.DropReplyOnNthCall(ParquetHandlerOp::kWriteCheckpoint, 1);
  StatusOr<int64_t> size = handler_.WriteCheckpointActions(store_, kCheckpoint, {"a"});
  EXPECT_TRUE(size.status().IsUnknownOutcome()) << size.status().ToString();
  EXPECT_EQ(*store_.Get(kCheckpoint), "a\n");
  EXPECT_TRUE(handler_.WriteCheckpointActions(store_, kCheckpoint, {"a"})
                  .status()
                  .IsAlreadyExists());
}

TEST_F(FaultParquetHandlerTest, ReadRuleMatchesAnyPart) {
  const std::vector<std::string> parts = {
      "_delta_log/2.checkpoint.0000000001.0000000002.parquet",
      "_delta_log/2.checkpoint.0000000002.0000000002.parquet"};
  ASSERT_TRUE(base_.WriteCheckpointActions(store_, parts[0], {"a"}).ok());
  ASSERT_TRUE(base_.WriteCheckpointActions(store_, parts[1], {"b"}).ok());
  handler_.FailEveryCall(ParquetHandlerOp::kReadCheckpointActions,
                         "0000000002.0000000002", DataLossError("torn"));
  EXPECT_EQ(handler_.ReadCheckpointActions(store_, parts).status(),
            DataLossError("torn"));
  EXPECT_THAT(*handler_.ReadCheckpointActions(store_, {parts[0]}),
              ElementsAre("a"));
  // A load's decoded read is the same read, under the same rule.
  EXPECT_EQ(handler_.ReadCheckpoint(store_, parts).status(), DataLossError("torn"));
  EXPECT_EQ(handler_.ReadCheckpoint(store_, {parts[1]}).status(), DataLossError("torn"));
  // And so is a read in batches, which then hands over no batch at all.
  int batches = 0;
  const auto count = [&batches](std::vector<Action>&) {
    ++batches;
    return OkStatus();
  };
  EXPECT_EQ(handler_.ReadCheckpointInBatches(store_, parts, count), DataLossError("torn"));
  EXPECT_EQ(batches, 0);
  EXPECT_EQ(handler_.CallCount(ParquetHandlerOp::kReadCheckpointActions), 5);
  EXPECT_EQ(handler_.CallCount(ParquetHandlerOp::kWriteCheckpoint), 0);
}

TEST(ParquetHandlerOpNameTest, NamesEveryKind) {
  EXPECT_EQ(ParquetHandlerOpName(ParquetHandlerOp::kReadCheckpointActions),
            "ReadCheckpointActions");
  EXPECT_EQ(ParquetHandlerOpName(ParquetHandlerOp::kWriteCheckpoint),
            "WriteCheckpoint");
}

}  // namespace
}  // namespace deltacommit
