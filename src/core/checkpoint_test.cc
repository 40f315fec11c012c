// What goes into a checkpoint (CheckpointActions), the _last_checkpoint
// JSON, delta.checkpointInterval, and the tombstones replay keeps.
#include "deltacommit/checkpoint.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_object_store.h"

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

// The checkpoint's actions at a time no tombstone of these tests expires by.
std::vector<Action> ActionsOf(const Snapshot& s) {
  auto actions = CheckpointActions(s, /*now_millis=*/1000);
  EXPECT_TRUE(actions.ok()) << actions.status().ToString();
  return actions.ok() ? *actions : std::vector<Action>{};
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
  EXPECT_EQ(Lines(ActionsOf(*s)),
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
  std::vector<Action> actions = ActionsOf(*s);
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(ActionToJson(actions.back()), R"({"checkpointMetadata":{"version":1}})");
}

RemoveFile RemoveAt(const std::string& path, std::optional<int64_t> when) {
  RemoveFile r = Remove(path);
  r.deletion_timestamp = when;
  return r;
}

std::vector<std::string> TombstonePaths(const std::vector<Action>& actions) {
  std::vector<std::string> out;
  for (const Action& a : actions) {
    if (const auto* r = std::get_if<RemoveFile>(&a)) out.push_back(r->path);
  }
  return out;
}

// Tombstones older than now - delta.deletedFileRetentionDuration are left
// out (Spark keeps those with deletionTimestamp > now - retention).
TEST(CheckpointActionsTest, LeavesOutTombstonesPastTheRetention) {
  constexpr int64_t kDay = 24 * 3600 * 1000;
  const int64_t now = 100 * kDay;
  auto s = Replay({{Protocol{}, Meta({{"delta.deletedFileRetentionDuration", "interval 2 days"}})},
                   {Add("old"), Add("edge"), Add("fresh"), Add("undated"), Add("kept")},
                   {RemoveAt("old", now - 3 * kDay), RemoveAt("edge", now - 2 * kDay),
                    RemoveAt("fresh", now - 2 * kDay + 1), RemoveAt("undated", std::nullopt)}});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->tombstones().size(), 4u);  // the snapshot keeps them all
  auto actions = CheckpointActions(*s, now);
  ASSERT_TRUE(actions.ok()) << actions.status().ToString();
  EXPECT_EQ(TombstonePaths(*actions), std::vector<std::string>{"fresh"});

  // The default retention is a week.
  auto by_default = Replay({{Protocol{}, Meta()},
                            {Add("a"), Add("b")},
                            {RemoveAt("a", now - 7 * kDay), RemoveAt("b", now - 7 * kDay + 1)}});
  ASSERT_NE(by_default, nullptr);
  EXPECT_EQ(TombstonePaths(*CheckpointActions(*by_default, now)), std::vector<std::string>{"b"});
}

TEST(CheckpointActionsTest, ABadRetentionPropertyRefusesTheCheckpoint) {
  auto s = Replay({{Protocol{}, Meta({{"delta.deletedFileRetentionDuration", "1 month"}})},
                   {Add("a")},
                   {Remove("a")}});
  ASSERT_NE(s, nullptr);
  auto actions = CheckpointActions(*s, 1000);
  EXPECT_EQ(actions.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(actions.status().message().find("delta.deletedFileRetentionDuration"),
            std::string::npos);
  EXPECT_NE(actions.status().message().find("\"1 month\""), std::string::npos)
      << actions.status().ToString();

  // WriteCheckpoint writes nothing then, not even a guess.
  class Writer : public ParquetHandler {
   public:
    StatusOr<std::vector<std::string>> ReadCheckpointActions(
        ObjectStore&, const std::vector<std::string>&) override {
      return std::vector<std::string>{};
    }
    StatusOr<int64_t> WriteCheckpoint(ObjectStore&, const std::string&,
                                      const std::vector<Action>&) override {
      ADD_FAILURE() << "nothing may be written";
      return 0;
    }
  };
  Writer handler;
  MemoryObjectStore store;
  FakeClock clock;
  auto result = WriteCheckpoint(store, handler, *s, clock);
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status().ToString();
  EXPECT_TRUE(store.List("_delta_log/")->empty());
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
  info.parts = 3;
  EXPECT_EQ(LastCheckpointJson(info),
            R"({"version":12,"size":40,"parts":3,"sizeInBytes":9000,"numOfAddFiles":30})");
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
  FakeClock clock;
  auto result = WriteCheckpoint(store, handler, *s, clock);
  EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented) << result.status().ToString();
  // Nothing was written, _last_checkpoint included.
  EXPECT_TRUE(store.List("_delta_log/")->empty());
}

}  // namespace
}  // namespace deltacommit
