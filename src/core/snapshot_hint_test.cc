// LoadSnapshot and `_last_checkpoint`: a valid hint makes the loader list
// the log from the hinted version only; a missing, corrupt, stale or
// dangling hint makes it list from 0, and every way gives the snapshot JSON
// replay gives. Checkpoints here are files of JSON action lines served by a
// fake ParquetHandler (the DuckDB reader is tested in src/adapters/parquet).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr Version kLatest = 25;
constexpr char kV2Uuid[] = "0a1b2c3d-0000-4000-8000-00000000abcd";

// Records the `from` of each List and the key of each Read.
class RecordingLogStore : public LogStore {
 public:
  explicit RecordingLogStore(LogStore& base) : base_(base) {}
  std::string Describe() const override { return base_.Describe(); }
  Status Write(Version version, std::string_view content) override {
    return base_.Write(version, content);
  }
  StatusOr<std::vector<ObjectMeta>> List(Version from) override {
    list_froms.push_back(from);
    return base_.List(from);
  }
  StatusOr<std::string> Read(std::string_view key) override {
    reads.emplace_back(key);
    return base_.Read(key);
  }

  std::vector<Version> list_froms;
  std::vector<std::string> reads;

 private:
  LogStore& base_;
};

// Reads "checkpoint" files holding JSON action lines; remembers the keys.
class JsonLinesCheckpointReader : public ParquetHandler {
 public:
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    served = keys;
    std::vector<std::string> lines;
    for (const std::string& key : keys) {
      DC_ASSIGN_OR_RETURN(std::string content, store.Get(key));
      for (size_t start = 0; start < content.size();) {
        size_t end = content.find('\n', start);
        lines.push_back(content.substr(start, end - start));
        start = end + 1;
      }
    }
    return lines;
  }

  std::vector<std::string> served;  // keys of the last checkpoint read
};

// Commits 0..kLatest: adds, removes, a txn per commit, a domain now and then.
std::vector<Action> CommitActions(Version v) {
  std::vector<Action> actions;
  if (v == 0) {
    actions.emplace_back(Protocol{});
    Metadata m;
    m.id = "hinted";
    m.schema_string = R"({"type":"struct","fields":[]})";
    actions.emplace_back(std::move(m));
  }
  AddFile add;
  add.path = "f" + std::to_string(v);
  add.size = 100 + v;
  actions.emplace_back(std::move(add));
  if (v >= 2 && v % 3 == 0) {
    RemoveFile remove;
    remove.path = "f" + std::to_string(v - 2);
    remove.deletion_timestamp = 1000 + v;
    actions.emplace_back(std::move(remove));
  }
  actions.emplace_back(SetTransaction{"app", v, std::nullopt, {}});
  if (v % 7 == 0) {
    DomainMetadata d;
    d.domain = "d";
    d.configuration = std::to_string(v);
    actions.emplace_back(std::move(d));
  }
  return actions;
}

// Everything a reader sees of a snapshot, in one comparable string (adds
// with dataChange false: a checkpoint restates them so).
std::string StateOf(const Snapshot& s) {
  std::string out = "version " + std::to_string(s.version()) + "\n" +
                    ActionToJson(s.protocol()) + "\n" + ActionToJson(s.metadata()) + "\n";
  for (const auto& [key, add] : s.active_files()) {
    AddFile a = add;
    a.data_change = false;
    out += ActionToJson(a) + "\n";
  }
  for (const auto& [app, txn] : s.transactions()) out += ActionToJson(txn) + "\n";
  for (const auto& [name, d] : s.domain_metadata()) out += ActionToJson(d) + "\n";
  return out;
}

class SnapshotHintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (Version v = 0; v <= kLatest; ++v) {
      ASSERT_TRUE(store_.Put(CommitPath(v), ActionsToCommit(CommitActions(v))).ok());
    }
  }

  // JSON replay of commits 0..version, without any checkpoint or hint.
  std::string Replayed(Version version) {
    auto s = LoadSnapshot(plain_log_, SnapshotRequest{version, nullptr, nullptr});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? StateOf(**s) : "";
  }

  std::vector<std::string> CheckpointLines(Version version) {
    auto s = LoadSnapshot(plain_log_, SnapshotRequest{version, nullptr, nullptr});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    auto actions = CheckpointActions(**s, /*now_millis=*/0);
    EXPECT_TRUE(actions.ok()) << actions.status().ToString();
    std::vector<std::string> lines;
    for (const Action& a : *actions) lines.push_back(ActionToJson(a));
    return lines;
  }

  static std::string Join(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }

  void WriteCheckpoint(Version version) {
    ASSERT_TRUE(store_.Put(ClassicCheckpointPath(version), Join(CheckpointLines(version))).ok());
  }

  void WriteMultiPart(Version version, int32_t parts) {
    std::vector<std::string> lines = CheckpointLines(version);
    for (int32_t i = 1; i <= parts; ++i) {
      std::vector<std::string> part;
      for (size_t n = static_cast<size_t>(i - 1); n < lines.size(); n += static_cast<size_t>(parts)) {
        part.push_back(lines[n]);
      }
      ASSERT_TRUE(store_.Put(MultiPartCheckpointPath(version, i, parts), Join(part)).ok());
    }
  }

  void WriteHint(std::string content) {
    ASSERT_TRUE(store_.Put(LastCheckpointPath(), content).ok());
  }
  void WriteHint(Version version) {
    WriteHint(R"({"version":)" + std::to_string(version) + R"(,"size":9})");
  }

  // Loads through the recording log with the checkpoint reader.
  std::string Load(std::optional<Version> version = std::nullopt) {
    auto s = LoadSnapshot(log_, SnapshotRequest{version, &reader_, &store_});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? StateOf(**s) : "";
  }

  MemoryObjectStore memory_;
  FaultInjectingObjectStore store_{memory_};  // counts the object store's calls
  ObjectStoreLogStore plain_log_{store_, "local"};
  RecordingLogStore log_{plain_log_};
  JsonLinesCheckpointReader reader_;
};

TEST_F(SnapshotHintTest, ValidHintListsOnlyFromTheHintedVersion) {
  WriteCheckpoint(10);
  WriteCheckpoint(20);
  WriteHint(20);
  const std::string replayed = Replayed(kLatest);
  store_.ResetCallCounts();
  EXPECT_EQ(Load(), replayed);
  EXPECT_THAT(log_.list_froms, ElementsAre(20));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(20)));
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kList), 1);
}

TEST_F(SnapshotHintTest, WithoutHintTheWholeLogIsListedAndTheNewestCheckpointUsed) {
  WriteCheckpoint(10);
  WriteCheckpoint(20);
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(0));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(20)));
}

TEST_F(SnapshotHintTest, CorruptHintFallsBackToTheWholeLog) {
  WriteCheckpoint(20);
  for (const char* corrupt :
       {"", "{\"version\":20", "[20]", R"({"version":-1,"size":9})", R"({"version":"20","size":9})",
        R"({"version":20.5,"size":9})", R"({"size":9})", R"({"version":20})",
        R"({"version":20,"size":9,"version":21})", R"({"version":20,"size":9,"parts":0})"}) {
    SCOPED_TRACE(corrupt);
    WriteHint(corrupt);
    log_.list_froms.clear();
    EXPECT_EQ(Load(), Replayed(kLatest));
    EXPECT_THAT(log_.list_froms, ElementsAre(0));
    EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(20)));
  }
}

TEST_F(SnapshotHintTest, HintToACheckpointThatIsGoneFallsBackToTheWholeLog) {
  WriteCheckpoint(10);
  WriteHint(20);  // its checkpoint was never written, or was deleted
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(20, 0));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(10)));
}

TEST_F(SnapshotHintTest, HintToAnIncompleteMultiPartCheckpointFallsBackToTheWholeLog) {
  WriteCheckpoint(10);
  WriteMultiPart(20, 3);
  ASSERT_TRUE(memory_.Delete(MultiPartCheckpointPath(20, 2, 3)).ok());  // a crashed writer
  WriteHint(R"({"version":20,"size":9,"parts":3})");
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(20, 0));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(10)));
}

TEST_F(SnapshotHintTest, HintToACompleteMultiPartCheckpointReadsAllParts) {
  WriteMultiPart(20, 3);
  WriteHint(R"({"version":20,"size":9,"parts":3,"sizeInBytes":1,"numOfAddFiles":2})");
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(20));
  EXPECT_THAT(reader_.served,
              ElementsAre(MultiPartCheckpointPath(20, 1, 3), MultiPartCheckpointPath(20, 2, 3),
                          MultiPartCheckpointPath(20, 3, 3)));
}

TEST_F(SnapshotHintTest, HintToAV2CheckpointWithExtraFieldsIsUsed) {
  ASSERT_TRUE(
      store_.Put(V2CheckpointPath(20, kV2Uuid, "json"), Join(CheckpointLines(20))).ok());
  WriteHint(R"({"version":20,"size":9,"sizeInBytes":1,"numOfAddFiles":2,)"
            R"("checkpointSchema":{"type":"struct","fields":[]},"checksum":"not-checked",)"
            R"("v2Checkpoint":{"path":"x","sizeInBytes":1,"modificationTime":1}})");
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(20));
  EXPECT_THAT(reader_.served, ElementsAre(V2CheckpointPath(20, kV2Uuid, "json")));
}

TEST_F(SnapshotHintTest, LaggingHintStillFindsTheNewerCheckpointInItsListing) {
  // A writer crashed after checkpoint 20 and before updating the hint.
  WriteCheckpoint(10);
  WriteCheckpoint(20);
  WriteHint(10);
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(10));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(20)));
}

TEST_F(SnapshotHintTest, HintPastTheEndOfTheLogFallsBackToTheWholeLog) {
  WriteCheckpoint(20);
  WriteHint(kLatest + 10);
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(kLatest + 10, 0));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(20)));
}

TEST_F(SnapshotHintTest, TimeTravelBeforeTheHintListsFromZero) {
  WriteCheckpoint(10);
  WriteCheckpoint(20);
  WriteHint(20);
  EXPECT_EQ(Load(15), Replayed(15));
  EXPECT_THAT(log_.list_froms, ElementsAre(0));
  EXPECT_THAT(reader_.served, ElementsAre(ClassicCheckpointPath(10)));
  reader_.served.clear();
  EXPECT_EQ(Load(5), Replayed(5));
  EXPECT_THAT(reader_.served, IsEmpty());  // commits 0..5 only
}

TEST_F(SnapshotHintTest, TimeTravelAtOrAfterTheHintListsFromTheHint) {
  WriteCheckpoint(20);
  WriteHint(20);
  EXPECT_EQ(Load(20), Replayed(20));
  EXPECT_EQ(Load(22), Replayed(22));
  EXPECT_THAT(log_.list_froms, ElementsAre(20, 20));
}

TEST_F(SnapshotHintTest, AfterLogCleanupTheHintAloneFindsTheState) {
  WriteCheckpoint(20);
  WriteHint(20);
  std::string before = Replayed(kLatest);
  for (Version v = 0; v < 20; ++v) ASSERT_TRUE(memory_.Delete(CommitPath(v)).ok());
  EXPECT_EQ(Load(), before);
  EXPECT_THAT(log_.list_froms, ElementsAre(20));
}

TEST_F(SnapshotHintTest, WithoutACheckpointReaderTheHintIsNotRead) {
  WriteCheckpoint(20);
  WriteHint(20);
  auto s = LoadSnapshot(log_, SnapshotRequest{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(StateOf(**s), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(0));
  for (const std::string& key : log_.reads) EXPECT_NE(key, LastCheckpointPath());
}

TEST_F(SnapshotHintTest, UnreadableHintFallsBackToTheWholeLog) {
  WriteCheckpoint(20);
  WriteHint(20);
  store_.FailEveryCall(ObjectStoreOp::kGet, LastCheckpointPath(),
                       PermissionDeniedError("no read on _last_checkpoint"));
  EXPECT_EQ(Load(), Replayed(kLatest));
  EXPECT_THAT(log_.list_froms, ElementsAre(0));
}

TEST_F(SnapshotHintTest, ListingErrorFromTheHintIsReturned) {
  WriteCheckpoint(20);
  WriteHint(20);
  store_.FailNthCall(ObjectStoreOp::kList, 1, UnavailableError("listing down"));
  auto s = LoadSnapshot(log_, SnapshotRequest{std::nullopt, &reader_, &store_});
  EXPECT_EQ(s.status(), UnavailableError("listing down"));
  EXPECT_THAT(log_.list_froms, ElementsAre(20));
}

}  // namespace
}  // namespace deltacommit
