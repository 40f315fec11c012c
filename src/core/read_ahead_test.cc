// ReadAhead and the snapshot loads that use it: files come back in order
// whatever order the reads finish in, no more reads are in flight than
// asked, no read runs further ahead than the window, a failed read fails
// the load with its own error, and a load reading ahead gives the snapshot a
// sequential load gives.
#include "deltacommit/core/read_ahead.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using namespace std::chrono_literals;

class ReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (Version v = 0; v < kCommits; ++v) {
      std::vector<Action> actions;
      if (v == 0) {
        actions.emplace_back(Protocol{});
        Metadata m;
        m.id = "read-ahead";
        m.schema_string = R"({"type":"struct","fields":[]})";
        actions.emplace_back(std::move(m));
      }
      AddFile add;
      add.path = "f" + std::to_string(v);
      add.size = v;
      actions.emplace_back(std::move(add));
      if (v % 4 == 3) {
        RemoveFile remove;
        remove.path = "f" + std::to_string(v - 1);
        actions.emplace_back(std::move(remove));
      }
      ASSERT_TRUE(memory_.Put(CommitPath(v), ActionsToCommit(actions)).ok());
      keys_.push_back(CommitPath(v));
    }
  }

  // The paths of the active files, in key order.
  static std::string FilesOf(const Snapshot& s) {
    std::string out;
    for (const auto& [key, add] : s.active_files()) out += key.path + " ";
    return out;
  }

  // Waits until `n` Gets have arrived at the faulty store.
  bool WaitForGets(int64_t n) {
    for (int i = 0; i < 2000 && faulty_.CallCount(ObjectStoreOp::kGet) < n; ++i) {
      std::this_thread::sleep_for(1ms);
    }
    return faulty_.CallCount(ObjectStoreOp::kGet) >= n;
  }

  static constexpr Version kCommits = 24;
  MemoryObjectStore memory_;
  FaultInjectingObjectStore faulty_{memory_};
  ObjectStoreLogStore log_{faulty_, "memory"};
  std::vector<std::string> keys_;
};

TEST_F(ReadAheadTest, TakesEveryFileInOrder) {
  for (int concurrency : {1, 2, 16, 64}) {
    ReadAhead reads(log_, keys_, concurrency);
    for (size_t i = 0; i < keys_.size(); ++i) {
      auto content = reads.Take(i);
      ASSERT_TRUE(content.ok()) << content.status().ToString();
      EXPECT_EQ(*content, *memory_.Get(keys_[i])) << "concurrency " << concurrency << " file " << i;
    }
  }
}

TEST_F(ReadAheadTest, KeepsAtMostConcurrencyReadsInFlight) {
  FaultRule freeze;
  freeze.op = ObjectStoreOp::kGet;
  freeze.times = FaultRule::kEveryCall;
  freeze.action = FaultAction::kFreeze;
  const auto id = faulty_.AddRule(freeze);
  ReadAhead reads(log_, keys_, 3);
  ASSERT_TRUE(faulty_.WaitUntilFrozen(id, 3, 10s));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(faulty_.CallCount(ObjectStoreOp::kGet), 3) << "a fourth read started";
  faulty_.Release(id, OkStatus());
  for (size_t i = 0; i < keys_.size(); ++i) ASSERT_TRUE(reads.Take(i).ok());
  EXPECT_EQ(faulty_.CallCount(ObjectStoreOp::kGet), kCommits);
}

TEST_F(ReadAheadTest, RunsNoFurtherAheadThanTwiceTheConcurrency) {
  // The first file's read hangs; the other thread reads on, up to the
  // window of 4 files, then waits for the replay to take the first.
  FaultRule freeze;
  freeze.op = ObjectStoreOp::kGet;
  freeze.key_substring = CommitPath(0);
  freeze.action = FaultAction::kFreeze;
  const auto id = faulty_.AddRule(freeze);
  ReadAhead reads(log_, keys_, 2);
  ASSERT_TRUE(WaitForGets(4));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(faulty_.CallCount(ObjectStoreOp::kGet), 4) << "a read ran past the window";
  faulty_.Release(id, OkStatus());
  ASSERT_TRUE(reads.Take(0).ok());
  ASSERT_TRUE(WaitForGets(5));  // taking one moved the window by one
  for (size_t i = 1; i < keys_.size(); ++i) ASSERT_TRUE(reads.Take(i).ok());
}

TEST_F(ReadAheadTest, StopsReadingWhenDroppedEarly) {
  {
    ReadAhead reads(log_, keys_, 4);
    ASSERT_TRUE(reads.Take(0).ok());
  }
  const int64_t gets = faulty_.CallCount(ObjectStoreOp::kGet);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(faulty_.CallCount(ObjectStoreOp::kGet), gets);
  EXPECT_LE(gets, 1 + 2 * 4) << "reads ran past the window";
}

TEST_F(ReadAheadTest, LoadReadingAheadEqualsSequentialLoad) {
  SnapshotRequest sequential;
  auto expected = LoadSnapshot(log_, sequential);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  for (int concurrency : {2, 8, 32}) {
    SnapshotRequest ahead;
    ahead.concurrent_reads = concurrency;
    auto loaded = LoadSnapshot(log_, ahead);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ((*loaded)->version(), kCommits - 1);
    EXPECT_EQ(FilesOf(**loaded), FilesOf(**expected)) << "concurrency " << concurrency;
  }
  // And catching up from an older snapshot.
  SnapshotRequest old;
  old.version = 5;
  auto base = LoadSnapshot(log_, old);
  ASSERT_TRUE(base.ok());
  SnapshotRequest ahead;
  ahead.concurrent_reads = 8;
  auto updated = UpdateSnapshot(log_, *base, ahead);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(FilesOf(**updated), FilesOf(**expected));
}

TEST_F(ReadAheadTest, FailedReadFailsTheLoadWithItsError) {
  FaultRule fail;
  fail.op = ObjectStoreOp::kGet;
  fail.key_substring = CommitPath(17);
  faulty_.AddRule(fail);
  SnapshotRequest ahead;
  ahead.concurrent_reads = 8;
  auto loaded = LoadSnapshot(log_, ahead);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(loaded.status().code() == StatusCode::kUnavailable) << loaded.status().ToString();
  EXPECT_NE(loaded.status().ToString().find(CommitPath(17)), std::string::npos)
      << loaded.status().ToString();
}

}  // namespace
}  // namespace deltacommit
