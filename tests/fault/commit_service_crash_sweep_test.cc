// Crash sweep of the commit service (docs/protocols/service.md): for every
// named step reached in a clean run, and every arrival n at it, a run in
// which service instance A crashes the nth time it reaches that step. The
// writer then sends the commit again to a fresh instance B with fresh
// credentials and goes on; a last commit is "the next request" that
// finishes anything A left ratified but unpublished. Then, whatever the
// step: versions contiguous from 0, each <v>.json written exactly once (never
// overwritten) with the bytes of commit v, every acknowledged commit
// present, nothing left unpublished.
//
// In coordinated mode the publish steps run on A's background publisher;
// a crash there is noticed by the writer after its reply, as a dead
// instance would be.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "service/commits/commit_service.h"
#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/memory_store_factory.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

constexpr Version kCommits = 4;  // then one more, the "next request"

// Crashes the nth arrival at `step`, and says whether it has.
class CrashHooks : public StepHooks {
 public:
  CrashHooks(std::string step, int64_t nth) : step_(std::move(step)), nth_(nth) {}
  Status AtStep(std::string_view step) override {
    if (step != step_ || ++arrivals_ != nth_) return OkStatus();
    crashed_ = true;
    return UnavailableError("test crash");
  }
  bool crashed() const { return crashed_; }

 private:
  const std::string step_;
  const int64_t nth_;
  std::atomic<int64_t> arrivals_{0};
  std::atomic<bool> crashed_{false};
};

class Scenario {
 public:
  Scenario(CommitMode mode, bool enforces) : mode_(mode), enforces_(enforces) {
    auto store = SqliteStateStore::Open({dir_.path() + "/state.db"});
    if (!store.ok()) ADD_FAILURE() << store.status().ToString();
    state_ = std::move(store).value();
  }

  static std::string Content(Version v) { return testing::CommitActionsAt(v, "v" + std::to_string(v)); }

  // The writer: commits 0..kCommits-1 through A (switching to B when A
  // crashes; A's publisher done), calls `loop_done`, then commit kCommits,
  // then checks the invariants.
  void Run(StepHooks& hooks, const CrashHooks* crash, const std::function<void()>& loop_done) {
    auto a = NewInstance(&hooks, std::chrono::hours(1));  // A never retries: it is "dead"
    std::unique_ptr<CommitService> b;
    const auto crashed = [&] { return crash != nullptr && crash->crashed(); };
    const auto fail_over = [&] {
      a.reset();
      b = NewInstance(nullptr, std::chrono::milliseconds(5));
    };
    for (Version v = 0; v < kCommits; ++v) {
      CommitReply reply = Send(b ? *b : *a, v);
      if (crashed() && !b) {
        fail_over();
        if (!reply.ok()) reply = Send(*b, v);  // the writer's retry
      }
      ASSERT_TRUE(reply.ok()) << "version " << v << ": " << reply.message;
    }
    // A's publisher finishes, or crashes.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!b && !crashed() && !a->publisher().WaitIdle(std::chrono::milliseconds(10)) &&
           std::chrono::steady_clock::now() < deadline) {
    }
    if (crashed() && !b) fail_over();
    loop_done();
    CommitService& last = b ? *b : *a;
    CommitReply next = Send(last, kCommits);
    ASSERT_TRUE(next.ok()) << next.message;
    ASSERT_TRUE(last.publisher().WaitIdle(std::chrono::seconds(10)));
    CheckInvariants();
  }

 private:
  std::unique_ptr<CommitService> NewInstance(StepHooks* hooks, std::chrono::milliseconds retry) {
    CommitServiceOptions options;
    options.hooks = hooks;
    options.publisher.first_retry = retry;
    return std::make_unique<CommitService>(*state_, factory_, options);
  }

  CommitReply Send(CommitService& service, Version v) {
    TableAccess access = testing::TestAccess(table_, testing::TestCredentials(SystemClock()));
    access.endpoint.enforces_if_none_match = enforces_;
    if (mode_ == CommitMode::kService) {
      return service.Commit(testing::ServiceCommit(access, v, Content(v)));
    }
    std::string& staged = staged_[v];
    if (staged.empty()) {
      staged = StagedCommitPath(v, NewUuid());
      EXPECT_TRUE(factory_.Memory(table_).Put(staged, Content(v)).ok());
    }
    return service.Commit(testing::CoordinatedCommit(access, v, staged));
  }

  void CheckInvariants() {
    MemoryObjectStore& memory = factory_.Memory(table_);
    auto listing = memory.List(kLogDir);
    ASSERT_TRUE(listing.ok());
    Version expected = 0;
    for (const ObjectMeta& meta : *listing) {
      const ParsedLogPath parsed = ParseLogPath(meta.key.substr(kLogDir.size()));
      if (parsed.type != LogFileType::kCommit) continue;
      EXPECT_EQ(parsed.version, expected) << "versions not contiguous";
      EXPECT_EQ(*memory.Get(meta.key), Content(parsed.version)) << meta.key;
      EXPECT_EQ(factory_.SuccessfulWrites(meta.key), 1) << meta.key << " written more than once";
      ++expected;
    }
    EXPECT_EQ(expected, kCommits + 1) << "acknowledged commits missing";
    auto pending = state_->Unpublished(table_, 100);
    ASSERT_TRUE(pending.ok());
    EXPECT_TRUE(pending->empty()) << pending->size() << " ratified commits left unpublished";
  }

  const CommitMode mode_;
  const bool enforces_;
  TempDir dir_;
  std::unique_ptr<SqliteStateStore> state_;
  testing::MemoryStoreFactory factory_{testing::kTestSecret};
  const std::string table_ = "s3://bucket/sweep-" + NewUuid();
  std::map<Version, std::string> staged_;
};

class CommitServiceCrashSweep
    : public ::testing::TestWithParam<std::tuple<CommitMode, bool>> {};

TEST_P(CommitServiceCrashSweep, EveryStepCrashedIsFinishedByTheNextRequest) {
  const auto [mode, enforces] = GetParam();
  // Steps reached by the first kCommits commits (the last one, the "next
  // request", is not crashed: nothing would come after it).
  RecordingStepHooks clean;
  std::vector<std::string> steps;
  Scenario(mode, enforces).Run(clean, nullptr, [&] { steps = clean.steps(); });
  std::map<std::string, int64_t> arrivals;
  for (const std::string& step : steps) ++arrivals[step];
  ASSERT_FALSE(arrivals.empty());
  int runs = 0;
  for (const auto& [step, count] : arrivals) {
    for (int64_t nth = 1; nth <= count; ++nth) {
      SCOPED_TRACE("crash at " + step + " #" + std::to_string(nth));
      CrashHooks crash(step, nth);
      Scenario(mode, enforces).Run(crash, &crash, [] {});
      EXPECT_TRUE(crash.crashed());
      ++runs;
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GE(runs, mode == CommitMode::kService ? 4 * kCommits : 3 * kCommits);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CommitServiceCrashSweep,
    ::testing::Combine(::testing::Values(CommitMode::kService, CommitMode::kCoordinated),
                       ::testing::Bool()),
    [](const auto& param_info) {
      return std::string(CommitModeName(std::get<0>(param_info.param))) +
             (std::get<1>(param_info.param) ? "_IfNoneMatch" : "_NoConditionalPut");
    });

}  // namespace
}  // namespace deltacommit::service
