// The s3-dynamodb protocol on fakes (memory object store + memory
// coordination table): each step, recovery, the N-1 and version-0 checks,
// and a crash sweep over every named step of a write. The real DynamoDB
// adapter is tested on dynalite, and the two together in tests/integration.
#include "deltacommit/logstore/s3_dynamodb_log_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "deltacommit/log_path.h"
#include "deltacommit/schema.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_coordination_table.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "deltacommit/transaction.h"

namespace deltacommit {
namespace {

constexpr const char* kTable = "s3a://bucket/tables/t";

class S3DynamoDbLogStoreTest : public ::testing::Test {
 protected:
  S3DynamoDbLogStore MakeLog(StepHooks* hooks = nullptr) {
    return S3DynamoDbLogStore(store_, table_, {kTable, 86400}, clock_, hooks);
  }

  ExternalCommitEntry Entry(Version v) {
    auto e = table_.Get(kTable, CommitFileName(v));
    EXPECT_TRUE(e.ok() && e->has_value()) << "no entry for version " << v;
    return e.ok() && e->has_value() ? **e : ExternalCommitEntry{};
  }

  FakeClock clock_;
  MemoryObjectStore store_{clock_};
  MemoryCoordinationTable table_;
};

TEST_F(S3DynamoDbLogStoreTest, WriteCopiesTempAndCompletesEntryLikeSpark) {
  auto log = MakeLog();
  ASSERT_TRUE(log.Write(0, "v0\n").ok());
  EXPECT_EQ(store_.Get(CommitPath(0)).value(), "v0\n");
  ExternalCommitEntry e = Entry(0);
  EXPECT_EQ(e.table_path, kTable);
  EXPECT_EQ(e.file_name, "00000000000000000000.json");
  EXPECT_TRUE(e.temp_path.starts_with(".tmp/00000000000000000000.json."));
  EXPECT_TRUE(e.complete);
  EXPECT_EQ(e.expire_time, clock_.NowMillis() / 1000 + 86400);
  EXPECT_EQ(store_.Get("_delta_log/" + e.temp_path).value(), "v0\n");
  EXPECT_TRUE(log.Write(0, "again\n").IsAlreadyExists());
}

TEST_F(S3DynamoDbLogStoreTest, TakenEntryIsAlreadyExistsEvenBeforeTheCopy) {
  auto log = MakeLog();
  ASSERT_TRUE(log.Write(0, "v0\n").ok());
  // Another writer decided version 1 but crashed before copying.
  ASSERT_TRUE(table_.PutIfAbsent({kTable, "00000000000000000001.json",
                                  ".tmp/00000000000000000001.json.x", false, std::nullopt}).ok());
  ASSERT_TRUE(store_.Put("_delta_log/.tmp/00000000000000000001.json.x", "theirs\n").ok());
  EXPECT_TRUE(log.Write(1, "mine\n").IsAlreadyExists());
  // Reading version 1 repairs it first.
  EXPECT_EQ(log.Read(CommitPath(1)).value(), "theirs\n");
  EXPECT_TRUE(Entry(1).complete);
}

TEST_F(S3DynamoDbLogStoreTest, WriteOfNextVersionRecoversIncompletePrevious) {
  auto log = MakeLog();
  ASSERT_TRUE(log.Write(0, "v0\n").ok());
  ASSERT_TRUE(table_.PutIfAbsent({kTable, "00000000000000000001.json",
                                  ".tmp/00000000000000000001.json.x", false, std::nullopt}).ok());
  ASSERT_TRUE(store_.Put("_delta_log/.tmp/00000000000000000001.json.x", "v1\n").ok());
  ASSERT_TRUE(log.Write(2, "v2\n").ok());
  EXPECT_EQ(store_.Get(CommitPath(1)).value(), "v1\n");
  EXPECT_TRUE(Entry(1).complete);
}

TEST_F(S3DynamoDbLogStoreTest, ListingRecoversTheLatestIncompleteEntry) {
  auto log = MakeLog();
  ASSERT_TRUE(log.Write(0, "v0\n").ok());
  ASSERT_TRUE(table_.PutIfAbsent({kTable, "00000000000000000001.json",
                                  ".tmp/00000000000000000001.json.x", false, std::nullopt}).ok());
  ASSERT_TRUE(store_.Put("_delta_log/.tmp/00000000000000000001.json.x", "v1\n").ok());
  auto listed = log.List(0);
  ASSERT_TRUE(listed.ok());
  bool has_v1 = false;
  for (const ObjectMeta& m : *listed) has_v1 = has_v1 || m.key == CommitPath(1);
  EXPECT_TRUE(has_v1);
}

TEST_F(S3DynamoDbLogStoreTest, MissingPreviousCommitIsOutOfSyncError) {
  auto log = MakeLog();
  Status st = log.Write(3, "v3\n");
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("out of sync"), std::string::npos) << st.message();
  EXPECT_FALSE(table_.Get(kTable, "00000000000000000003.json").value().has_value());
}

TEST_F(S3DynamoDbLogStoreTest, RecreatedTableBeforeEntriesExpiredIsRefused) {
  ASSERT_TRUE(table_.Put({kTable, "00000000000000000000.json", ".tmp/x", true, 1}).ok());
  Status st = MakeLog().Write(0, "v0\n");
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("recreated"), std::string::npos) << st.message();
}

TEST_F(S3DynamoDbLogStoreTest, ErrorsAfterTheCommitPointDoNotFailTheCommit) {
  FaultInjectingObjectStore faulty(store_);
  faulty.FailEveryCall(ObjectStoreOp::kCopy, "");
  S3DynamoDbLogStore log(faulty, table_, {kTable, 86400}, clock_);
  ASSERT_TRUE(log.Write(0, "v0\n").ok());  // decided at the entry
  EXPECT_FALSE(Entry(0).complete);
  faulty.ClearRules();
  EXPECT_EQ(log.Read(CommitPath(0)).value(), "v0\n");  // repaired on read
  EXPECT_TRUE(Entry(0).complete);
}

// A recoverer that dies between its copy and its mark-complete leaves
// N.json and an incomplete entry: the next recoverer only marks it.
TEST_F(S3DynamoDbLogStoreTest, RecovererCrashAfterCopyIsFinishedByTheNext) {
  ASSERT_TRUE(MakeLog().Write(0, "v0\n").ok());
  ASSERT_TRUE(table_.PutIfAbsent({kTable, "00000000000000000001.json",
                                  ".tmp/00000000000000000001.json.x", false, std::nullopt}).ok());
  ASSERT_TRUE(store_.Put("_delta_log/.tmp/00000000000000000001.json.x", "v1\n").ok());
  RecordingStepHooks crash;
  crash.FailAt("s3ddb/recovery-after-copy", InternalError("crash"));
  EXPECT_EQ(MakeLog(&crash).List(0).status().code(), StatusCode::kInternal);
  EXPECT_EQ(store_.Get(CommitPath(1)).value(), "v1\n");
  EXPECT_FALSE(Entry(1).complete);
  RecordingStepHooks second;
  ASSERT_TRUE(MakeLog(&second).List(0).ok());
  EXPECT_EQ(second.Count("s3ddb/recovery-after-copy"), 1);
  EXPECT_TRUE(Entry(1).complete);
}

TEST_F(S3DynamoDbLogStoreTest, RacingWritersOneVersionExactlyOneWins) {
  auto log = MakeLog();
  ASSERT_TRUE(log.Write(0, "v0\n").ok());
  constexpr int kWriters = 16;
  std::vector<std::thread> threads;
  std::atomic<int> wins{0};
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      S3DynamoDbLogStore mine = MakeLog();
      Status st = mine.Write(1, "writer " + std::to_string(i) + "\n");
      if (st.ok()) ++wins;
      else EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_TRUE(store_.Get(CommitPath(1)).value().starts_with("writer "));
}

// Crash a writer at every named step; another writer and a restart of the
// first must leave each commit exactly once and every entry complete.
TEST(S3DynamoDbCrashSweepTest, EveryStepCrashKeepsInvariants) {
  const std::vector<std::string> steps = {"s3ddb/before-temp-put", "s3ddb/after-temp-put",
                                          "s3ddb/after-commit-point", "s3ddb/after-copy"};
  for (const std::string& step : steps) {
    SCOPED_TRACE(step);
    FakeClock clock;
    RecordingSleeper sleeper(&clock);
    MemoryObjectStore store(clock);
    MemoryCoordinationTable table;
    auto make_log = [&](StepHooks* hooks) {
      return S3DynamoDbLogStore(store, table, {kTable, 86400}, clock, hooks);
    };
    {
      S3DynamoDbLogStore log = make_log(nullptr);
      Transaction create(log, nullptr, {}, clock, sleeper);
      create.AddAction(Protocol{});
      Metadata m;
      m.id = "t";
      m.schema_string = SchemaStringFromArgument("id:long").value();
      create.AddAction(m);
      ASSERT_TRUE(create.Commit().ok());
    }
    auto append = [&](StepHooks* hooks, const std::string& app, const std::string& path) {
      S3DynamoDbLogStore log = make_log(hooks);
      auto snap = LoadSnapshot(log, {});
      EXPECT_TRUE(snap.ok()) << snap.status().ToString();
      Transaction txn(log, *snap, {}, clock, sleeper);
      AddFile add;
      add.path = path;
      txn.AddAction(add);
      txn.SetAppTransaction(app, 1);
      return txn.Commit();
    };
    RecordingStepHooks crash;
    crash.FailAt(step, InternalError("crash"));
    EXPECT_FALSE(append(&crash, "a", "a.parquet").ok());
    auto b = append(nullptr, "b", "b.parquet");
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    auto a = append(nullptr, "a", "a.parquet");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    S3DynamoDbLogStore log = make_log(nullptr);
    auto snap = LoadSnapshot(log, {});
    ASSERT_TRUE(snap.ok()) << snap.status().ToString();
    int a_files = 0, b_files = 0;
    for (const auto& [key, add] : (*snap)->active_files()) {
      a_files += add.path == "a.parquet";
      b_files += add.path == "b.parquet";
    }
    EXPECT_EQ(a_files, 1);
    EXPECT_EQ(b_files, 1);
    for (Version v = 0; v <= (*snap)->version(); ++v) {
      auto e = table.Get(kTable, CommitFileName(v));
      ASSERT_TRUE(e.ok() && e->has_value()) << v;
      EXPECT_TRUE((*e)->complete) << v;
    }
  }
}

}  // namespace
}  // namespace deltacommit
