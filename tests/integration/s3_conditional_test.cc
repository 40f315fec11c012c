// s3-conditional on the real S3 server (Ceph RGW): concurrent CLI writer
// processes, credential errors, a lost reply on the commit PUT, and the
// conditional-PUT probe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/sanitizer_load.h"
#include "common/test_servers.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_conditional_log_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/transaction.h"

namespace deltacommit {
namespace {

using testing::CliResult;
using testing::LoadUnderSanitizers;
using testing::RunCli;
using testing::AddLine;

class S3ConditionalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    s3_ = testing::NewS3TestStore("s3cond");
    log_ = std::make_unique<S3ConditionalLogStore>(*s3_.store, "test", s3_.store->config().bucket);
  }

  void CreateTable() {
    CliResult r = RunCli({"create", s3_.uri, "--schema", "id:long"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // path -> how many commits added it; fails on gaps or unparseable files.
  std::map<std::string, int> AddCounts() {
    auto report = CheckLog(*log_);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->sound()) << report->problems.front();
    std::map<std::string, int> counts;
    for (Version v = 0; v <= report->latest_version; ++v) {
      for (const Action& a : ReadCommit(*log_, v).value()) {
        if (auto* add = std::get_if<AddFile>(&a)) counts[add->path]++;
      }
    }
    return counts;
  }

  testing::S3TestStore s3_;
  std::unique_ptr<S3ConditionalLogStore> log_;
};

TEST_F(S3ConditionalTest, EightProcessesTwentyCommitsEachLandExactlyOnce) {
  CreateTable();
  constexpr int kWriters = 8, kCommits = LoadUnderSanitizers(20, 6);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int c = 0; c < kCommits; ++c) {
        std::string path = "w" + std::to_string(w) + "-c" + std::to_string(c) + ".parquet";
        CliResult r = RunCli({"commit", s3_.uri, "--actions", "-", "--max-attempts", "1000"},
                             AddLine(path));
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    });
  }
  for (auto& t : writers) t.join();
  auto counts = AddCounts();
  EXPECT_EQ(counts.size(), static_cast<size_t>(kWriters * kCommits));
  for (const auto& [path, n] : counts) EXPECT_EQ(n, 1) << path;
  EXPECT_EQ(LoadSnapshot(*log_, {}).value()->version(), kWriters * kCommits);
  EXPECT_EQ(RunCli({"check", s3_.uri}).exit_code, 0);
}

// Each credential problem gets its specific, actionable message, and the
// failed commit writes nothing.
TEST_F(S3ConditionalTest, CredentialErrorsAreSpecificAndWriteNothing) {
  CreateTable();
  struct Case {
    const char* variable;
    const char* value;
    std::string message;
  } cases[] = {
      {"AWS_SECRET_ACCESS_KEY", "wrong-secret", "SignatureDoesNotMatch (HTTP 403): the signature was rejected: the secret access key does not match the key id"},
      {"AWS_ACCESS_KEY_ID", "UNKNOWNKEY0000000000", "InvalidAccessKeyId (HTTP 403): the access key id is not known to this endpoint"},
      {"AWS_CREDENTIAL_EXPIRATION", "2020-01-01T00:00:00Z", "credentials from environment (AWS_ACCESS_KEY_ID) expired at 2020-01-01T00:00:00Z"},
  };
  for (const Case& c : cases) {
    const char* old = std::getenv(c.variable);
    std::string saved = old ? old : "";
    setenv(c.variable, c.value, 1);
    if (std::string(c.variable) == "AWS_CREDENTIAL_EXPIRATION") setenv("AWS_SESSION_TOKEN", "t", 1);
    CliResult r = RunCli({"commit", s3_.uri, "--actions", "-"}, AddLine("nope.parquet"));
    if (old) setenv(c.variable, saved.c_str(), 1); else unsetenv(c.variable);
    unsetenv("AWS_SESSION_TOKEN");
    EXPECT_EQ(r.exit_code, 1) << c.variable;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    if (std::string(c.variable) != "AWS_CREDENTIAL_EXPIRATION") {
      EXPECT_EQ(r.err.find(c.value), std::string::npos) << "a credential leaked: " << r.err;
    }
  }
  EXPECT_EQ(AddCounts().count("nope.parquet"), 0u);
  EXPECT_EQ(LoadSnapshot(*log_, {}).value()->version(), 0);
}

TEST_F(S3ConditionalTest, LostReplyOnOwnCommitIsReadBackAsSuccess) {
  CreateTable();
  FaultInjectingObjectStore faulty(*s3_.store);
  faulty.DropReplyOnNthCall(ObjectStoreOp::kPutIfAbsent, 2);  // 1st is the probe
  ResetConditionalPutProbeCache();
  S3ConditionalLogStore log(faulty, "lost-reply", s3_.store->config().bucket);
  Transaction txn(log, LoadSnapshot(log, {}).value(), {}, SystemClock(), RealSleeper());
  AddFile add;
  add.path = "mine.parquet";
  txn.AddAction(add);
  auto outcome = txn.Commit();
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 1);
  EXPECT_EQ(AddCounts()["mine.parquet"], 1);
  EXPECT_EQ(LoadSnapshot(*log_, {}).value()->version(), 1);  // no duplicate version
}

TEST_F(S3ConditionalTest, LostReplyWhileAnotherWriterWinsRebasesWithoutDuplicate) {
  CreateTable();
  FaultInjectingObjectStore faulty(*s3_.store);
  ResetConditionalPutProbeCache();
  S3ConditionalLogStore log(faulty, "lost-race", s3_.store->config().bucket);
  ASSERT_TRUE(log.VerifyConditionalPut().ok());
  // Our PUT of version 1 never lands but its reply is lost; before we read
  // back, another writer takes version 1.
  faulty.AddRule({ObjectStoreOp::kPutIfAbsent, CommitPath(1), 1, 1, FaultAction::kFail,
                  UnknownOutcomeError("connection reset"), {}});
  auto frozen = faulty.FreezeNthCall(ObjectStoreOp::kGet, 1, CommitPath(1));
  StatusOr<CommitOutcome> outcome = InternalError("not run");
  std::thread writer([&] {
    Transaction txn(log, LoadSnapshot(log, {}).value(), {}, SystemClock(), RealSleeper());
    AddFile add;
    add.path = "ours.parquet";
    txn.AddAction(add);
    outcome = txn.Commit();
  });
  ASSERT_TRUE(faulty.WaitUntilFrozen(frozen));
  CliResult other = RunCli({"commit", s3_.uri, "--actions", "-"}, AddLine("theirs.parquet"));
  ASSERT_EQ(other.exit_code, 0) << other.err;
  faulty.Release(frozen);
  writer.join();
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 2);  // rebased over the other writer's version 1
  auto counts = AddCounts();
  EXPECT_EQ(counts["ours.parquet"], 1);
  EXPECT_EQ(counts["theirs.parquet"], 1);
}

TEST_F(S3ConditionalTest, RgwEnforcesConditionalPut) {
  ResetConditionalPutProbeCache();
  EXPECT_TRUE(log_->VerifyConditionalPut().ok());
  EXPECT_TRUE(s3_.store->List("_delta_log/.tmp/").value().empty());  // probe cleaned up
}

}  // namespace
}  // namespace deltacommit
