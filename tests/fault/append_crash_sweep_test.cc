// Crash sweep of the commit service's appends (docs/protocols/group-commit.md,
// "Crash in the middle of a batch"): for every named step a clean run
// reaches, and every arrival n at it, a run in which instance A dies the nth
// time it reaches that step (and at every step after: it is dead). Four
// appenders send their appends concurrently, so batches merge several; each
// appender whose reply did not come resends the same append (same txn) to a
// fresh instance B. A last append is "the next request". Then: versions
// contiguous from 0, each <v>.json written once, every append's file in the
// log exactly once, each acknowledged one in the version it was told,
// nothing left unpublished.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "contract/temp_dir.h"
#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "service/commits/commit_service.h"
#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/memory_store_factory.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

constexpr int kAppenders = 4;
constexpr int kRounds = 3;

// Fails the nth arrival at `step` and every step after it: the instance is
// dead from then on.
class DeathHooks : public StepHooks {
 public:
  DeathHooks(std::string step, int64_t nth) : step_(std::move(step)), nth_(nth) {}
  Status AtStep(std::string_view step) override {
    if (!dead_ && step == step_ && ++arrivals_ == nth_) dead_ = true;
    return dead_ ? UnavailableError("test crash") : OkStatus();
  }
  bool dead() const { return dead_; }

 private:
  const std::string step_;
  const int64_t nth_;
  std::atomic<int64_t> arrivals_{0};
  std::atomic<bool> dead_{false};
};

class AppendScenario {
 public:
  AppendScenario() {
    auto store = SqliteStateStore::Open({dir_.path() + "/state.db"});
    if (!store.ok()) ADD_FAILURE() << store.status().ToString();
    state_ = std::move(store).value();
  }

  static std::string Path(int appender, int round) {
    return "a" + std::to_string(appender) + "-r" + std::to_string(round) + ".parquet";
  }

  void Run(StepHooks* hooks) {
    // Version 0 through an instance of its own: the sweep is of appends.
    ASSERT_TRUE(NewInstance(nullptr)
                    ->Commit(testing::ServiceCommit(Access(), 0, testing::CreateTableActions()))
                    .ok());
    a_ = NewInstance(hooks);
    for (int round = 0; round < kRounds; ++round) {
      std::vector<std::thread> appenders;
      for (int i = 0; i < kAppenders; ++i) {
        appenders.emplace_back([this, i, round] { Append(i, round); });
      }
      for (std::thread& t : appenders) t.join();
    }
    Append(kAppenders, 0);  // the next request
    CheckInvariants();
  }

 private:
  std::unique_ptr<CommitService> NewInstance(StepHooks* hooks) {
    CommitServiceOptions options;
    options.hooks = hooks;
    options.publisher.first_retry = std::chrono::milliseconds(5);
    return std::make_unique<CommitService>(*state_, factory_, options);
  }
  TableAccess Access() {
    return testing::TestAccess(table_, testing::TestCredentials(SystemClock()));
  }

  // Through A; when A did not answer OK (it died), again through B.
  void Append(int appender, int round) {
    const CommitRequest request = testing::AppendCommit(
        Access(), 0, testing::AppendActions(Path(appender, round), "a" + std::to_string(appender),
                                            round));
    CommitReply reply = a_->Commit(request);
    if (!reply.ok()) reply = B().Commit(request);
    ASSERT_TRUE(reply.ok()) << Path(appender, round) << ": " << reply.message;
    std::lock_guard lock(mu_);
    told_[Path(appender, round)] = reply.version;
  }
  CommitService& B() {
    std::lock_guard lock(mu_);
    if (!b_) b_ = NewInstance(nullptr);
    return *b_;
  }

  void CheckInvariants() {
    if (b_) {
      ASSERT_TRUE(b_->publisher().WaitIdle(std::chrono::seconds(10)));
    }
    MemoryObjectStore& memory = factory_.Memory(table_);
    auto listing = memory.List(kLogDir);
    ASSERT_TRUE(listing.ok());
    std::map<std::string, std::vector<Version>> added;
    Version expected = 0;
    ActionParser parser;
    for (const ObjectMeta& meta : *listing) {
      const ParsedLogPath parsed = ParseLogPath(meta.key.substr(kLogDir.size()));
      if (parsed.type != LogFileType::kCommit) continue;
      EXPECT_EQ(parsed.version, expected) << "versions not contiguous";
      EXPECT_EQ(factory_.SuccessfulWrites(meta.key), 1) << meta.key << " written more than once";
      auto actions = parser.ParseCommit(*memory.Get(meta.key));
      ASSERT_TRUE(actions.ok()) << meta.key;
      for (const Action& a : *actions) {
        if (const auto* add = std::get_if<AddFile>(&a)) added[add->path].push_back(parsed.version);
      }
      ++expected;
    }
    EXPECT_EQ(added.size(), static_cast<size_t>(kAppenders * kRounds + 1));
    for (const auto& [path, version] : told_) {
      ASSERT_EQ(added[path].size(), 1u) << path << " is in the log " << added[path].size()
                                        << " times";
      EXPECT_EQ(added[path][0], version) << path << " is not where its reply said";
    }
    auto pending = state_->Unpublished(table_, 100);
    ASSERT_TRUE(pending.ok());
    EXPECT_TRUE(pending->empty()) << pending->size() << " ratified commits left unpublished";
  }

  TempDir dir_;
  std::unique_ptr<SqliteStateStore> state_;
  testing::MemoryStoreFactory factory_{testing::kTestSecret};
  const std::string table_ = "s3://bucket/append-sweep-" + NewUuid();
  std::unique_ptr<CommitService> a_;
  std::mutex mu_;
  std::unique_ptr<CommitService> b_;   // guarded by mu_ while appenders run
  std::map<std::string, Version> told_;  // guarded by mu_
};

TEST(AppendCrashSweep, ADeathAtEveryStepLosesNoAppendAndDuplicatesNone) {
  RecordingStepHooks clean;
  AppendScenario().Run(&clean);
  if (::testing::Test::HasFatalFailure()) return;
  std::map<std::string, int64_t> arrivals;
  for (const std::string& step : clean.steps()) ++arrivals[step];
  ASSERT_TRUE(arrivals.contains("service/append-after-stage"));
  ASSERT_TRUE(arrivals.contains("service/append-after-ratify"));
  ASSERT_TRUE(arrivals.contains("service/after-publish-copy"));
  int deaths = 0;
  for (const auto& [step, count] : arrivals) {
    for (int64_t nth = 1; nth <= count; ++nth) {
      SCOPED_TRACE("death at " + step + " #" + std::to_string(nth));
      DeathHooks death(step, nth);
      AppendScenario().Run(&death);
      deaths += death.dead() ? 1 : 0;
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Batches merge differently from run to run, so a later arrival may not
  // come; most do.
  EXPECT_GE(deaths, static_cast<int>(arrivals.size()));
}

}  // namespace
}  // namespace deltacommit::service
