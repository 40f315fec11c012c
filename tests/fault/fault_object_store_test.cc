// The fault-injection tools: each FaultInjectingObjectStore rule, its call
// counters, and the FakeClock / RecordingSleeper / RecordingStepHooks fakes
// that crash sweeps and backoff tests rely on.
#include "deltacommit/testing/fault_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/testing/recording_step_hooks.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

class FaultObjectStoreTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryObjectStore base_{clock_};
  FaultInjectingObjectStore store_{base_, sleeper_};
};

TEST_F(FaultObjectStoreTest, NoRulesIsTransparent) {
  ASSERT_TRUE(store_.Put("k", "v").ok());
  EXPECT_EQ(*store_.Get("k"), "v");
  EXPECT_EQ(store_.Describe(), base_.Describe());
}

TEST_F(FaultObjectStoreTest, FailNthCallFailsOnlyThatCall) {
  ASSERT_TRUE(base_.Put("k", "v").ok());
  const auto rule =
      store_.FailNthCall(ObjectStoreOp::kGet, 2, DeadlineExceededError("slow"));
  EXPECT_TRUE(store_.Get("k").ok());
  EXPECT_EQ(store_.Get("k").status(), DeadlineExceededError("slow"));
  EXPECT_TRUE(store_.Get("k").ok());
  EXPECT_TRUE(store_.Head("k").ok());  // other kinds are not counted
  EXPECT_EQ(store_.FiredCount(rule), 1);
}

TEST_F(FaultObjectStoreTest, FailedWriteDoesNotReachTheStore) {
  store_.FailNthCall(ObjectStoreOp::kPutIfAbsent, 1);
  Status status = store_.PutIfAbsent("k", "v");
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("PutIfAbsent \"k\""));
  EXPECT_TRUE(base_.Get("k").status().IsNotFound());
}

TEST_F(FaultObjectStoreTest, FailEveryCallMatchingKeySubstring) {
  store_.FailEveryCall(ObjectStoreOp::kPut, ".json",
                       PermissionDeniedError("no"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(
        store_.Put("_delta_log/" + std::to_string(i) + ".json", "x").code(),
        StatusCode::kPermissionDenied);
  }
  EXPECT_TRUE(store_.Put("_delta_log/_last_checkpoint", "x").ok());
}

TEST_F(FaultObjectStoreTest, RuleWithTimesFailsARunOfCalls) {
  FaultRule rule;
  rule.op = ObjectStoreOp::kHead;
  rule.nth = 2;
  rule.times = 2;
  store_.AddRule(rule);
  ASSERT_TRUE(base_.Put("k", "v").ok());
  std::vector<bool> ok;
  for (int i = 0; i < 5; ++i) ok.push_back(store_.Head("k").ok());
  EXPECT_THAT(ok, ElementsAre(true, false, false, true, true));
}

TEST_F(FaultObjectStoreTest, CopyRuleMatchesSourceOrDestination) {
  ASSERT_TRUE(base_.Put("src/a", "v").ok());
  store_.FailEveryCall(ObjectStoreOp::kCopy, "src/");
  EXPECT_FALSE(store_.Copy("src/a", "dst/a", false).ok());
  store_.ClearRules();
  store_.FailEveryCall(ObjectStoreOp::kCopy, "dst/");
  EXPECT_FALSE(store_.Copy("src/a", "dst/a", false).ok());
  EXPECT_TRUE(store_.Copy("src/a", "other", false).ok());
}

TEST_F(FaultObjectStoreTest, DropReplyAppliesWriteThenReturnsUnknownOutcome) {
  store_.DropReplyOnNthCall(ObjectStoreOp::kPutIfAbsent, 1);
  Status status = store_.PutIfAbsent("_delta_log/0.json", "mine");
  EXPECT_TRUE(status.IsUnknownOutcome()) << status.ToString();
  EXPECT_EQ(*base_.Get("_delta_log/0.json"), "mine");
  // The retry sees its own earlier write as taken: read back to tell.
  EXPECT_TRUE(
      store_.PutIfAbsent("_delta_log/0.json", "mine").IsAlreadyExists());
}

TEST_F(FaultObjectStoreTest, DropReplyWorksForEveryWriteKind) {
  ASSERT_TRUE(base_.Put("gone", "x").ok());
  store_.DropReplyOnNthCall(ObjectStoreOp::kPut, 1);
  store_.DropReplyOnNthCall(ObjectStoreOp::kCopy, 1);
  store_.DropReplyOnNthCall(ObjectStoreOp::kDelete, 1);
  EXPECT_TRUE(store_.Put("a", "1").IsUnknownOutcome());
  EXPECT_TRUE(store_.Copy("a", "b", true).IsUnknownOutcome());
  EXPECT_TRUE(store_.Delete("gone").IsUnknownOutcome());
  EXPECT_EQ(*base_.Get("b"), "1");
  EXPECT_TRUE(base_.Head("gone").status().IsNotFound());
}

TEST_F(FaultObjectStoreTest, DelayGoesThroughTheInjectedSleeper) {
  const int64_t start = clock_.NowMillis();
  store_.DelayEveryCall(ObjectStoreOp::kList, 250ms);
  EXPECT_TRUE(store_.List("").ok());
  EXPECT_TRUE(store_.List("").ok());
  EXPECT_TRUE(store_.Get("x").status().IsNotFound());  // not delayed
  EXPECT_THAT(sleeper_.sleeps(), ElementsAre(250ms, 250ms));
  EXPECT_EQ(clock_.NowMillis() - start, 500);
}

TEST_F(FaultObjectStoreTest, FreezeBlocksCallUntilReleased) {
  const auto rule =
      store_.FreezeNthCall(ObjectStoreOp::kPutIfAbsent, 1, "0.json");
  Status result = InternalError("not run");
  std::thread writer(
      [&] { result = store_.PutIfAbsent("_delta_log/0.json", "w"); });
  ASSERT_TRUE(store_.WaitUntilFrozen(rule));
  // Frozen before reaching the store; other calls still go through.
  EXPECT_TRUE(base_.Head("_delta_log/0.json").status().IsNotFound());
  EXPECT_TRUE(store_.PutIfAbsent("_delta_log/1.json", "other").ok());
  store_.Release(rule);
  writer.join();
  EXPECT_TRUE(result.ok()) << result.ToString();
  EXPECT_EQ(*base_.Get("_delta_log/0.json"), "w");
  // A thawed rule freezes no more.
  EXPECT_TRUE(store_.Put("_delta_log/0.json", "again").ok());
}

TEST_F(FaultObjectStoreTest, FreezeReleasedWithErrorActsAsCrash) {
  const auto rule = store_.FreezeNthCall(ObjectStoreOp::kPut, 1);
  Status result;
  std::thread writer([&] { result = store_.Put("k", "v"); });
  ASSERT_TRUE(store_.WaitUntilFrozen(rule));
  ASSERT_TRUE(base_.Put("k", "rival").ok());  // another writer runs meanwhile
  store_.Release(rule, UnavailableError("crashed"));
  writer.join();
  EXPECT_EQ(result, UnavailableError("crashed"));
  EXPECT_EQ(*base_.Get("k"), "rival");
}

TEST_F(FaultObjectStoreTest, RemoveRuleStopsOnlyThatRuleAndReleasesItsCalls) {
  const auto freeze = store_.FreezeNthCall(ObjectStoreOp::kPut, 1);
  const auto fail = store_.FailEveryCall(ObjectStoreOp::kGet, "");
  store_.FailEveryCall(ObjectStoreOp::kHead, "");
  Status result = InternalError("not run");
  std::thread writer([&] { result = store_.Put("k", "v"); });
  ASSERT_TRUE(store_.WaitUntilFrozen(freeze));
  store_.RemoveRule(freeze);
  writer.join();
  EXPECT_TRUE(result.ok()) << result.ToString();
  EXPECT_FALSE(store_.Get("k").ok());
  store_.RemoveRule(fail);
  EXPECT_EQ(*store_.Get("k"), "v");
  EXPECT_FALSE(store_.Head("k").ok());  // the other rule stays
  EXPECT_EQ(store_.FiredCount(fail), 1);
}

TEST_F(FaultObjectStoreTest, WaitUntilFrozenTimesOutWhenNothingArrives) {
  const auto rule = store_.FreezeNthCall(ObjectStoreOp::kGet, 1);
  EXPECT_FALSE(store_.WaitUntilFrozen(rule, 1, 10ms));
}

TEST_F(FaultObjectStoreTest, ClearRulesReleasesFrozenCallsAndStopsFaults) {
  const auto rule = store_.FreezeNthCall(ObjectStoreOp::kDelete, 1);
  store_.FailEveryCall(ObjectStoreOp::kGet, "");
  Status result = InternalError("not run");
  std::thread deleter([&] { result = store_.Delete("k"); });
  ASSERT_TRUE(store_.WaitUntilFrozen(rule));
  store_.ClearRules();
  deleter.join();
  EXPECT_TRUE(result.ok());
  EXPECT_TRUE(store_.Get("k").status().IsNotFound());
}

TEST_F(FaultObjectStoreTest, CountersCountEveryCallByKindIncludingFaulted) {
  store_.FailNthCall(ObjectStoreOp::kPutIfAbsent, 1);
  store_.PutIfAbsent("a", "1").IgnoreError();
  store_.PutIfAbsent("a", "1").IgnoreError();
  store_.Put("b", "2").IgnoreError();
  store_.Get("a").status().IgnoreError();
  store_.Head("a").status().IgnoreError();
  store_.List("").status().IgnoreError();
  store_.List("").status().IgnoreError();
  store_.Copy("a", "c", true).IgnoreError();
  store_.Delete("c").IgnoreError();
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kPutIfAbsent), 2);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kPut), 1);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kGet), 1);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kHead), 1);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kList), 2);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kCopy), 1);
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kDelete), 1);
  EXPECT_EQ(store_.TotalCallCount(), 9);
  store_.ResetCallCounts();
  EXPECT_EQ(store_.TotalCallCount(), 0);
}

TEST_F(FaultObjectStoreTest, CountersAreExactUnderConcurrency) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) store_.Head("k").status().IgnoreError();
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(store_.CallCount(ObjectStoreOp::kHead), 800);
}

TEST(ObjectStoreOpNameTest, NamesEveryKind) {
  EXPECT_EQ(ObjectStoreOpName(ObjectStoreOp::kPutIfAbsent), "PutIfAbsent");
  EXPECT_EQ(ObjectStoreOpName(ObjectStoreOp::kDelete), "Delete");
}

TEST(FakeClockTest, SetAndAdvance) {
  FakeClock clock(1000);
  EXPECT_EQ(clock.NowMillis(), 1000);
  clock.Advance(5ms);
  EXPECT_EQ(clock.NowMillis(), 1005);
  clock.SetMillis(42);
  EXPECT_EQ(clock.NowMillis(), 42);
}

TEST(RecordingSleeperTest, RecordsWithoutSleepingAndAdvancesClock) {
  FakeClock clock(0);
  RecordingSleeper sleeper(&clock);
  const auto before = std::chrono::steady_clock::now();
  sleeper.Sleep(1h);
  sleeper.Sleep(10ms);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  EXPECT_THAT(sleeper.sleeps(), ElementsAre(1h, 10ms));
  EXPECT_EQ(sleeper.total(), 1h + 10ms);
  EXPECT_EQ(clock.NowMillis(), 3'600'010);
  sleeper.Clear();
  EXPECT_TRUE(sleeper.sleeps().empty());
}

TEST(RecordingStepHooksTest, RecordsStepsAndFailsAtTheNthArrival) {
  RecordingStepHooks hooks;
  hooks.FailAt("b", DataLossError("crash"), 2);
  EXPECT_TRUE(hooks.AtStep("a").ok());
  EXPECT_TRUE(hooks.AtStep("b").ok());
  EXPECT_EQ(hooks.AtStep("b"), DataLossError("crash"));
  EXPECT_TRUE(hooks.AtStep("b").ok());  // once only
  EXPECT_THAT(hooks.steps(), ElementsAre("a", "b", "b", "b"));
  EXPECT_EQ(hooks.Count("b"), 3);
  hooks.Clear();
  EXPECT_TRUE(hooks.steps().empty());
}

TEST(RecordingStepHooksTest, CallbackRunsAtEveryStepAndCanAbort) {
  RecordingStepHooks hooks;
  std::vector<std::string> seen;
  hooks.SetCallback([&](std::string_view step) {
    seen.emplace_back(step);
    return step == "stop" ? UnavailableError("frozen") : OkStatus();
  });
  EXPECT_TRUE(hooks.AtStep("go").ok());
  EXPECT_EQ(hooks.AtStep("stop").code(), StatusCode::kUnavailable);
  EXPECT_THAT(seen, ElementsAre("go", "stop"));
}

TEST(RunStepTest, NullHooksAndNoStepHooksAreOk) {
  EXPECT_TRUE(RunStep(nullptr, "x").ok());
  EXPECT_TRUE(NoStepHooks().AtStep("x").ok());
  EXPECT_TRUE(RunStep(&NoStepHooks(), "x").ok());
}

}  // namespace
}  // namespace deltacommit
