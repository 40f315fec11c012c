// Multi-part checkpoints written through DuckDB on a local table: the
// snapshot from the parts == JSON replay; hyparquet reads every part; the
// parts and _last_checkpoint name each other; a set of parts left by a
// crashed writer is no checkpoint to our reader, and is completed (never
// replaced) by the next writer when its parts hold what ours would.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/checkpoint_test_table.h"
#include "contract/temp_dir.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/core/checkpoint_parts.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/fault_object_store.h"

namespace deltacommit {
namespace {

using checkpoint_test::ExpectSameSnapshot;
using checkpoint_test::GeneratedCommits;
using checkpoint_test::LaterCommit;
using checkpoint_test::ReadWithHyparquet;
using checkpoint_test::WriteCommits;

// The real handler, counting reads, and failing the write of one key (a
// writer that crashed there).
class TestHandler : public ParquetHandler {
 public:
  explicit TestHandler(ParquetHandler& real) : real_(real) {}
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    ++reads;
    return real_.ReadCheckpointActions(store, keys);
  }
  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<Action>& actions) override {
    if (key == fail_key) return UnavailableError("crashed before writing " + key);
    return real_.WriteCheckpoint(store, key, actions);
  }
  std::atomic<int> reads{0};
  std::string fail_key;

 private:
  ParquetHandler& real_;
};

// The generated table has 4 adds and 4 tombstones: parts of 2 give 4 parts.
constexpr int32_t kParts = 4;

class CheckpointMultiPartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto handler = DuckDbParquetHandler::Create();
    ASSERT_TRUE(handler.ok()) << handler.status().ToString();
    parquet_ = std::move(handler).value();
    handler_ = std::make_unique<TestHandler>(*parquet_);
    WriteCommits(store_, GeneratedCommits(), 0);
  }

  std::shared_ptr<const Snapshot> Load(ParquetHandler* parquet) {
    SnapshotRequest request;
    if (parquet != nullptr) {
      request.parquet = parquet;
      request.checkpoint_store = &store_;
    }
    auto s = LoadSnapshot(log_, request);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }

  StatusOr<CheckpointInfo> Checkpoint(int64_t part_size = 2) {
    auto json = Load(nullptr);
    if (json == nullptr) return InternalError("no snapshot");
    CheckpointOptions options;
    options.part_size = part_size;
    return WriteCheckpoint(store_, *handler_, *json, clock_, options);
  }

  std::string Part(int32_t i) const { return MultiPartCheckpointPath(4, i, kParts); }
  bool Exists(const std::string& key) { return store_.Head(key).ok(); }

  TempDir dir_;
  PosixObjectStore store_{dir_.path()};
  ObjectStoreLogStore log_{store_, "local"};
  std::unique_ptr<DuckDbParquetHandler> parquet_;
  std::unique_ptr<TestHandler> handler_;
  FakeClock clock_{1700000010000};  // no tombstone has expired
};

TEST_F(CheckpointMultiPartTest, SnapshotFromThePartsEqualsJsonReplay) {
  auto info = Checkpoint();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->parts, kParts);
  EXPECT_EQ(info->key, Part(1));
  EXPECT_FALSE(Exists(ClassicCheckpointPath(4)));
  int64_t bytes = 0;
  for (int32_t i = 1; i <= kParts; ++i) {
    auto head = store_.Head(Part(i));
    ASSERT_TRUE(head.ok()) << Part(i);
    bytes += head->size;
  }
  auto last = nlohmann::json::parse(*store_.Get(LastCheckpointPath()));
  EXPECT_EQ(last["version"], 4);
  EXPECT_EQ(last["parts"], kParts);
  EXPECT_EQ(last["size"], 13);
  EXPECT_EQ(last["sizeInBytes"], bytes);
  EXPECT_EQ(last["numOfAddFiles"], 4);

  WriteCommits(store_, {LaterCommit()}, 5);
  auto from_json = Load(nullptr);
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store_.Delete(CommitPath(v)).ok());
  auto from_parts = Load(handler_.get());
  ASSERT_NE(from_json, nullptr);
  ASSERT_NE(from_parts, nullptr);
  EXPECT_EQ(handler_->reads, 1);
  ExpectSameSnapshot(*from_parts, *from_json);
}

// A handler that reads ahead fetches the parts at once and returns the
// same lines, in the same order.
TEST_F(CheckpointMultiPartTest, PartsAreFetchedAtOnceAndReadInOrder) {
  ASSERT_TRUE(Checkpoint().ok());
  std::vector<std::string> parts;
  for (int32_t i = 1; i <= kParts; ++i) parts.push_back(Part(i));
  auto sequential = parquet_->ReadCheckpointActions(store_, parts);
  ASSERT_TRUE(sequential.ok()) << sequential.status().ToString();

  auto ahead = DuckDbParquetHandler::Create(kParts);
  ASSERT_TRUE(ahead.ok()) << ahead.status().ToString();
  FaultInjectingObjectStore faulty(store_);
  // The first part's GET hangs until every other part's GET has arrived:
  // they are in flight together.
  const auto frozen = faulty.FreezeNthCall(ObjectStoreOp::kGet, 1, Part(1));
  StatusOr<std::vector<std::string>> concurrent = InternalError("not read");
  std::thread reader([&] { concurrent = (*ahead)->ReadCheckpointActions(faulty, parts); });
  ASSERT_TRUE(faulty.WaitUntilFrozen(frozen));
  for (int i = 0; i < 5000 && faulty.CallCount(ObjectStoreOp::kGet) < kParts; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(faulty.CallCount(ObjectStoreOp::kGet), kParts);
  faulty.Release(frozen);
  reader.join();
  ASSERT_TRUE(concurrent.ok()) << concurrent.status().ToString();
  EXPECT_EQ(*concurrent, *sequential);
}

// One action per part: 8 parts for 8 files, some left empty by the hash
// (Spark writes those too); the set still reads back whole.
TEST_F(CheckpointMultiPartTest, PartsWithoutRowsAreWrittenAndRead) {
  auto info = Checkpoint(/*part_size=*/1);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->parts, 8);
  int empty = 0;
  for (int32_t i = 1; i <= 8; ++i) {
    auto lines = parquet_->ReadCheckpointActions(store_, {MultiPartCheckpointPath(4, i, 8)});
    ASSERT_TRUE(lines.ok()) << lines.status().ToString();
    empty += lines->empty() ? 1 : 0;
  }
  EXPECT_GT(empty, 0);
  auto from_json = Load(nullptr);
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store_.Delete(CommitPath(v)).ok());
  auto from_parts = Load(handler_.get());
  ASSERT_NE(from_parts, nullptr);
  ExpectSameSnapshot(*from_parts, *from_json);
}

TEST_F(CheckpointMultiPartTest, HyparquetReadsEveryPartAndEachFileIsInItsHashPart) {
  DC_REQUIRE_HYPARQUET();
  auto info = Checkpoint();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  int64_t rows = 0;
  std::map<std::string, int32_t> part_of_add;
  for (int32_t i = 1; i <= kParts; ++i) {
    const nlohmann::json read = ReadWithHyparquet(dir_.path() + "/" + Part(i));
    ASSERT_TRUE(read.is_object()) << Part(i);
    for (const auto& row : read["rows"]) {
      ++rows;
      const bool is_file = !row["add"].is_null() || !row["remove"].is_null();
      // protocol, metaData, txn, domainMetadata: where a null key hashes.
      if (!is_file) {
        EXPECT_EQ(i, 42 % kParts + 1) << row.dump();
      }
      if (row["add"].is_null()) continue;
      const auto& add = row["add"];
      std::vector<std::optional<std::string>> key{add["path"].get<std::string>()};
      if (!add["deletionVector"].is_null()) {
        const auto& dv = add["deletionVector"];
        std::string id = dv["storageType"].get<std::string>() + dv["pathOrInlineDv"].get<std::string>();
        if (!dv["offset"].is_null()) id += "@" + std::to_string(dv["offset"].get<int>());
        key.emplace_back(id);
      }
      EXPECT_EQ(SparkHashPartition(key, kParts) + 1, i) << add.dump();
      part_of_add[add["path"]] = i;
    }
  }
  EXPECT_EQ(rows, info->size);
  EXPECT_EQ(part_of_add.size(), 4u);
}

TEST_F(CheckpointMultiPartTest, APartialSetIsNoCheckpointAndTheNextWriterCompletesIt) {
  handler_->fail_key = Part(3);
  auto crashed = Checkpoint();
  EXPECT_EQ(crashed.status().code(), StatusCode::kUnavailable) << crashed.status().ToString();
  EXPECT_TRUE(Exists(Part(1)));
  EXPECT_TRUE(Exists(Part(2)));
  EXPECT_FALSE(Exists(Part(3)));
  EXPECT_FALSE(Exists(LastCheckpointPath()));

  // Our reader does not take the partial set as a checkpoint: it replays
  // the JSON commits and reads no checkpoint file.
  auto read = Load(handler_.get());
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(handler_->reads, 0);
  ExpectSameSnapshot(*read, *Load(nullptr));

  // The next writer keeps parts 1 and 2 (they hold what its own would) and
  // writes the rest.
  const std::string part1 = *store_.Get(Part(1));
  handler_->fail_key.clear();
  auto info = Checkpoint();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(*store_.Get(Part(1)), part1);
  for (int32_t i = 1; i <= kParts; ++i) EXPECT_TRUE(Exists(Part(i))) << i;
  EXPECT_EQ(nlohmann::json::parse(*store_.Get(LastCheckpointPath()))["parts"], kParts);
  // All parts there: the checkpoint exists, nothing is written again.
  EXPECT_TRUE(Checkpoint().status().IsAlreadyExists());

  auto from_json = Load(nullptr);
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store_.Delete(CommitPath(v)).ok());
  auto from_parts = Load(handler_.get());
  ASSERT_NE(from_parts, nullptr);
  ExpectSameSnapshot(*from_parts, *from_json);
}

TEST_F(CheckpointMultiPartTest, APartHoldingOtherFilesIsNeverReplaced) {
  // Part 1 from another writer, holding a file that is not in this table.
  auto other = checkpoint_test::Add("p=z/q=0/not-ours.parquet", {{"p", "z"}, {"q", "0"}}, 9);
  ASSERT_TRUE(parquet_->WriteCheckpoint(store_, Part(1), {other}).ok());
  const std::string before = *store_.Get(Part(1));
  auto info = Checkpoint();
  EXPECT_EQ(info.status().code(), StatusCode::kFailedPrecondition) << info.status().ToString();
  EXPECT_NE(info.status().message().find(Part(1)), std::string::npos)
      << info.status().message();
  EXPECT_EQ(*store_.Get(Part(1)), before);
  EXPECT_FALSE(Exists(LastCheckpointPath()));
}

}  // namespace
}  // namespace deltacommit
