// s3-dynamodb on the real servers (Ceph RGW + dynalite): concurrent CLI
// writer processes with readers running meanwhile, Spark-compatible entries,
// and recovery of a commit whose writer died after the commit point. Faults
// and crashes: s3_dynamodb_fault_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <thread>

#include "common/cli_runner.h"
#include "common/sanitizer_load.h"
#include "common/test_servers.h"
#include "deltacommit/aws/aws_config.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "s3_dynamodb_fixture.h"

namespace deltacommit {
namespace {

using testing::CliResult;
using testing::LoadUnderSanitizers;
using testing::RunCli;
using testing::AddLine;

// The version in `snapshot --json` output, or -1.
Version SnapshotVersion(const std::string& out) {
  const std::string key = "\"version\":";
  const size_t at = out.find(key);
  return at == std::string::npos ? -1 : std::atoll(out.c_str() + at + key.size());
}

// The shared fixture plus a log store on the same tables, to look at the
// result through the library.
class S3DynamoDbTest : public testing::S3DynamoDbCliTest {
 protected:
  void SetUp() override {
    S3DynamoDbCliTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    log_ = std::make_unique<S3DynamoDbLogStore>(*s3_.store, *coordination_,
                                                S3DynamoDbOptions{table_uri_, 86400});
  }

  // Runs `snapshot` and `check` in a loop while `writing`: every run must
  // succeed (recovering in-flight commits as it lists), and the version seen
  // only goes up. Counts the runs in *runs.
  void ReadInALoop(const std::atomic<bool>& writing, int* runs) {
    Version seen = -1;
    while (writing.load()) {
      CliResult snap = Cli({"snapshot", table_uri_, "--json"});
      EXPECT_EQ(snap.exit_code, 0) << snap.err;
      const Version v = SnapshotVersion(snap.out);
      EXPECT_GE(v, 0) << snap.out;
      EXPECT_GE(v, seen) << snap.out;
      seen = std::max(seen, v);
      CliResult check = Cli({"check", table_uri_});
      EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
      *runs += 2;
    }
  }

  std::unique_ptr<S3DynamoDbLogStore> log_;
};

TEST_F(S3DynamoDbTest, EightProcessesTwentyCommitsEachWhileReadersLoopLandOnceWithCompleteEntries) {
  ASSERT_EQ(Cli({"create", table_uri_, "--schema", "id:long"}).exit_code, 0);
  constexpr int kWriters = 8, kCommits = LoadUnderSanitizers(20, 6), kReaders = 2;
  std::atomic<bool> writing{true};
  std::vector<int> reader_runs(kReaders, 0);
  std::vector<std::thread> readers;
  for (int& runs : reader_runs) {
    readers.emplace_back([this, &writing, counter = &runs] { ReadInALoop(writing, counter); });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int c = 0; c < kCommits; ++c) {
        CliResult r = Cli({"commit", table_uri_, "--actions", "-", "--max-attempts", "1000"},
                          AddLine("w" + std::to_string(w) + "-" + std::to_string(c)));
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    });
  }
  for (auto& t : writers) t.join();
  writing = false;
  for (auto& t : readers) t.join();
  for (int runs : reader_runs) EXPECT_GT(runs, 2) << "a reader barely ran while the writers did";
  auto report = CheckLog(*log_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->sound());
  EXPECT_EQ(report->latest_version, kWriters * kCommits);
  std::map<std::string, int> adds;
  for (Version v = 0; v <= report->latest_version; ++v) {
    for (const Action& a : ReadCommit(*log_, v).value()) {
      if (auto* add = std::get_if<AddFile>(&a)) adds[add->path]++;
    }
    auto entry = coordination_->Get(table_uri_, CommitFileName(v));
    ASSERT_TRUE(entry.ok() && entry->has_value()) << v;
    EXPECT_TRUE((*entry)->complete) << v;
    EXPECT_TRUE((*entry)->expire_time.has_value()) << v;
  }
  EXPECT_EQ(adds.size(), static_cast<size_t>(kWriters * kCommits));
  for (const auto& [path, n] : adds) EXPECT_EQ(n, 1) << path;
}

// A writer (ours or Spark's) that died after the commit point left an
// incomplete entry and a temp object: the next reader makes it visible.
TEST_F(S3DynamoDbTest, CommitOfADeadWriterIsRecoveredByTheNextReader) {
  ASSERT_EQ(Cli({"create", table_uri_, "--schema", "id:long"}).exit_code, 0);
  const std::string temp = ".tmp/00000000000000000001.json.dead-writer";
  ASSERT_TRUE(s3_.store->Put("_delta_log/" + temp, AddLine("orphan")).ok());
  ASSERT_TRUE(coordination_->PutIfAbsent({table_uri_, "00000000000000000001.json", temp, false,
                                          std::nullopt}).ok());
  CliResult snap = Cli({"snapshot", table_uri_, "--json"});
  ASSERT_EQ(snap.exit_code, 0) << snap.err;
  EXPECT_NE(snap.out.find("\"version\":1"), std::string::npos) << snap.out;
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).ok());
  auto entry = coordination_->Get(table_uri_, "00000000000000000001.json");
  ASSERT_TRUE(entry.ok() && entry->has_value());
  EXPECT_TRUE((*entry)->complete);
  // The next commit lands at 2, after it.
  CliResult r = Cli({"commit", table_uri_, "--actions", "-", "--json"}, AddLine("next"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"version\":2"), std::string::npos) << r.out;
}

TEST_F(S3DynamoDbTest, MissingDynamoDbTableGetsTheCreateTableHint) {
  CliResult r = RunCli({"create", table_uri_, "--schema", "id:long", "--log-store", "s3-dynamodb",
                        "--storage-option",
                        "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=no_such_table"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("deltacommit dynamodb create-table"), std::string::npos) << r.err;
  EXPECT_FALSE(s3_.store->Head(CommitPath(0)).ok());  // nothing committed
}

}  // namespace
}  // namespace deltacommit
