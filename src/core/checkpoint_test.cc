// What goes into a checkpoint (CheckpointActions), the _last_checkpoint
// JSON, delta.checkpointInterval, and the tombstones replay keeps.
#include "deltacommit/checkpoint.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltacommit/action_json.h"
#include "testing/memory_object_store.h"

namespace deltacommit {
namespace {

std::shared_ptr<const Snapshot> Replay(std::vector<std::vector<Action>> commits) {
  LogReplay replay;
  for (size_t v = 0; v < commits.size(); ++v) {
    EXPECT_TRUE(replay.Apply(static_cast<Version>(v), std::move(commits[v])).ok());
  }
  auto s = replay.Finish();
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

Metadata Meta(StringMap configuration = {}) {
  Metadata m;
  m.id = "id";
  m.schema_string = R"({"type":"struct","fields":[]})";
  m.configuration = std::move(configuration);
  return m;
}

AddFile Add(const std::string& path) {
  AddFile a;
  a.path = path;
  a.size = 1;
  return a;
}

RemoveFile Remove(const std::string& path) {
  RemoveFile r;
  r.path = path;
  r.deletion_timestamp = 5;
  return r;
}

std::vector<std::string> Lines(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const Action& a : actions) out.push_back(ActionToJson(a));
  return out;
}

TEST(CheckpointActionsTest, RestatesTheStateInProtocolOrderWithoutDataChange) {
  SetTransaction txn;
  txn.app_id = "app";
  txn.version = 3;
  txn.last_updated = 7;
  DomainMetadata kept{"d.kept", "{}", false, {}};
  DomainMetadata gone{"d.gone", "{}", false, {}};
  DomainMetadata gone_removed{"d.gone", "{}", true, {}};
  auto s = Replay({{Protocol{}, Meta()},
                   {Add("a"), Add("b"), Add("c"), txn, kept, gone},
                   {Remove("a"), Remove("c"), gone_removed},
                   {Add("c")}});
  ASSERT_NE(s, nullptr);
  AddFile b = Add("b"), c = Add("c");
  b.data_change = c.data_change = false;
  RemoveFile a = Remove("a");
  a.data_change = false;
  // "c" was removed and added back: a file, not a tombstone.
  EXPECT_EQ(Lines(CheckpointActions(*s)),
            Lines({Protocol{}, Meta(), txn, kept, b, c, a}));
}

TEST(CheckpointActionsTest, AV2CheckpointTableGetsCheckpointMetadata) {
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"v2Checkpoint"};
  p.writer_features = std::vector<std::string>{"v2Checkpoint"};
  auto s = Replay({{p, Meta()}, {Add("a")}});
  ASSERT_NE(s, nullptr);
  std::vector<Action> actions = CheckpointActions(*s);
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(ActionToJson(actions.back()), R"({"checkpointMetadata":{"version":1}})");
}

TEST(CheckpointIntervalTest, DefaultsToTenUnlessAPositiveInteger) {
  EXPECT_EQ(CheckpointInterval(Meta()), 10);
  EXPECT_EQ(CheckpointInterval(Meta({{"delta.checkpointInterval", "3"}})), 3);
  for (const char* bad : {"0", "-2", "abc", "5x", ""}) {
    EXPECT_EQ(CheckpointInterval(Meta({{"delta.checkpointInterval", bad}})), 10) << bad;
  }
}

TEST(LastCheckpointJsonTest, NamesVersionSizeBytesAndAddFiles) {
  CheckpointInfo info;
  info.version = 12;
  info.size = 40;
  info.size_in_bytes = 9000;
  info.num_of_add_files = 30;
  EXPECT_EQ(LastCheckpointJson(info),
            R"({"version":12,"size":40,"sizeInBytes":9000,"numOfAddFiles":30})");
}

TEST(ParquetHandlerTest, AReadOnlyHandlerRefusesToWrite) {
  class ReadOnly : public ParquetHandler {
   public:
    StatusOr<std::vector<std::string>> ReadCheckpointActions(
        ObjectStore&, const std::vector<std::string>&) override {
      return std::vector<std::string>{};
    }
  };
  ReadOnly handler;
  MemoryObjectStore store;
  auto s = Replay({{Protocol{}, Meta()}});
  ASSERT_NE(s, nullptr);
  auto result = WriteCheckpoint(store, handler, *s);
  EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented) << result.status().ToString();
  // Nothing was written, _last_checkpoint included.
  EXPECT_TRUE(store.List("_delta_log/")->empty());
}

}  // namespace
}  // namespace deltacommit
