// Crash sweep over every named step of the local commit path: a writer is
// crashed at the step, another writer commits, the crashed writer restarts
// and retries with the same app txn, and the invariants must hold: versions
// contiguous from 0, every version parses (no torn file), each writer's data
// present exactly once, the acknowledged commit never lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

#include "deltacommit/log_check.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "deltacommit/transaction.h"

namespace deltacommit {
namespace {

enum class Backend { kMemory, kPosix };

class CrashSweepTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kPosix) {
      char tmpl[] = "/tmp/dc-crash-XXXXXX";
      dir_ = mkdtemp(tmpl);
      store_ = std::make_unique<PosixObjectStore>(dir_);
    } else {
      store_ = std::make_unique<MemoryObjectStore>(clock_);
    }
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // A fresh table at version 0 in a new store.
  void ResetTable() {
    TearDown();
    dir_.clear();
    SetUp();
    ObjectStoreLogStore log(*store_, "local");
    Transaction create(log, nullptr, {}, clock_, sleeper_);
    create.AddAction(Protocol{});
    Metadata m;
    m.id = "t";
    m.schema_string = SchemaStringFromArgument("id:long").value();
    create.AddAction(m);
    ASSERT_EQ(create.Commit()->version, 0);
  }

  StatusOr<CommitOutcome> Append(StepHooks* hooks, const std::string& app, const std::string& path) {
    ObjectStoreLogStore log(*store_, "local", hooks);
    DC_ASSIGN_OR_RETURN(auto snapshot, LoadSnapshot(log, {}));
    Transaction txn(log, snapshot, {}, clock_, sleeper_);
    AddFile add;
    add.path = path;
    add.size = 1;
    txn.AddAction(add);
    txn.SetAppTransaction(app, 1);
    return txn.Commit();
  }

  // Invariants after the run: sound log and each path exactly once.
  void ExpectInvariants(const std::vector<std::string>& paths) {
    ObjectStoreLogStore log(*store_, "local");
    auto report = CheckLog(log);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->sound()) << (report->problems.empty() ? "" : report->problems.front());
    std::map<std::string, int> adds;
    for (Version v = 0; v <= report->latest_version; ++v) {
      for (const Action& a : ReadCommit(log, v).value()) {
        if (auto* add = std::get_if<AddFile>(&a)) adds[add->path]++;
      }
    }
    for (const std::string& p : paths) EXPECT_EQ(adds[p], 1) << p;
  }

  std::vector<std::string> StepsOfACleanCommit() {
    ResetTable();
    RecordingStepHooks hooks;
    EXPECT_TRUE(Append(&hooks, "probe", "probe.parquet").ok());
    return hooks.steps();
  }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  std::string dir_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(CrashSweepTest, EveryStepCrashThenRecoverKeepsInvariants) {
  const std::vector<std::string> steps = StepsOfACleanCommit();
  ASSERT_FALSE(steps.empty());
  for (const std::string& step : steps) {
    SCOPED_TRACE("crash at " + step);
    ResetTable();
    RecordingStepHooks crash;
    crash.FailAt(step, InternalError("crashed at " + step));
    auto crashed = Append(&crash, "writer-a", "a.parquet");
    ASSERT_FALSE(crashed.ok());  // the writer died there
    auto other = Append(nullptr, "writer-b", "b.parquet");
    ASSERT_TRUE(other.ok());
    ASSERT_EQ(other->result, CommitResult::kCommitted);
    // The restarted writer retries with the same app txn: it lands once,
    // and is told so when its crashed attempt had already landed.
    ObjectStoreLogStore log(*store_, "local");
    const bool landed = LoadSnapshot(log, {}).value()->AppVersion("writer-a").has_value();
    auto retry = Append(nullptr, "writer-a", "a.parquet");
    ASSERT_TRUE(retry.ok()) << retry.status().ToString();
    EXPECT_EQ(retry->result, landed ? CommitResult::kAlreadyCommitted : CommitResult::kCommitted);
    if (step == "objstore/after-put") {
      EXPECT_TRUE(landed);
    }
    ExpectInvariants({"a.parquet", "b.parquet"});
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashSweepTest,
                         ::testing::Values(Backend::kMemory, Backend::kPosix),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return p.param == Backend::kMemory ? "Memory" : "Posix";
                         });

}  // namespace
}  // namespace deltacommit
