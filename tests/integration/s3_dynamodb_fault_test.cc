// s3-dynamodb under faults on the real servers (Ceph RGW + dynalite): a
// crash sweep over every named step (the writer's and recovery's), lost
// replies at the commit point, and throttling. Every scenario ends with the
// invariants of S3DynamoDbFaultTest::ExpectInvariants.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/dynamodb/dynamodb_test_http.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "s3_dynamodb_fault_fixture.h"

namespace deltacommit::testing {
namespace {

using aws::testing::HttpFaultRule;
using aws::testing::HttpMatch;
using dynamodb::testing::Error;

constexpr const char* kCrashAfterCommitPoint = "s3ddb/after-commit-point";
constexpr const char* kRecoveryAfterCopy = "s3ddb/recovery-after-copy";

// Step hooks that freeze a writer the first time it reaches `step` until
// Thaw(): it then goes on, or dies there when thawed with an error. Thaws
// with a crash on destruction so no thread is left blocked.
class FreezeAtStep {
 public:
  explicit FreezeAtStep(std::string step) : step_(std::move(step)) {
    hooks_.SetCallback([this](std::string_view at) -> Status {
      if (at != step_ || reached_) return OkStatus();
      reached_ = true;
      frozen_.set_value();
      return thawed_future_.get();
    });
  }
  ~FreezeAtStep() { Thaw(InternalError("test ended while frozen")); }

  StepHooks* hooks() { return &hooks_; }
  bool WaitFrozen() {
    return frozen_future_.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  }
  void Thaw(Status result) {
    if (!thawed_set_) thawed_.set_value(std::move(result));
    thawed_set_ = true;
  }

 private:
  const std::string step_;
  RecordingStepHooks hooks_;
  bool reached_ = false;  // only the frozen writer's thread touches it
  std::promise<void> frozen_;
  std::future<void> frozen_future_ = frozen_.get_future();
  std::promise<Status> thawed_;
  std::future<Status> thawed_future_ = thawed_.get_future();
  bool thawed_set_ = false;
};

enum class Fate { kCrash, kResume };

class S3DynamoDbCrashSweepTest : public S3DynamoDbFaultTest {
 protected:
  std::vector<std::string> StepsOfACleanCommit() {
    RecordingStepHooks hooks;
    auto probe = Append(*clean_, &hooks, "probe", "probe.parquet");
    EXPECT_TRUE(probe.ok()) << probe.status().ToString();
    return hooks.steps();
  }

  // Writer A freezes at `step` while writer B commits (recovering A's entry
  // when A is past the commit point); then A goes on or dies there, and a
  // dead A restarts with the same app txn.
  void FreezeWhileAnotherCommits(const std::string& step, Fate fate) {
    ASSERT_NO_FATAL_FAILURE(NewTable());
    FreezeAtStep freeze(step);
    std::promise<StatusOr<CommitOutcome>> a_result;
    std::thread a(
        [&] { a_result.set_value(Append(*clean_, freeze.hooks(), "writer-a", "a.parquet")); });
    const bool frozen = freeze.WaitFrozen();
    auto b = frozen ? Append(*clean_, nullptr, "writer-b", "b.parquet")
                    : StatusOr<CommitOutcome>(InternalError("writer a never reached " + step));
    freeze.Thaw(fate == Fate::kCrash ? InternalError("crashed at " + step) : OkStatus());
    a.join();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_EQ(b->result, CommitResult::kCommitted);
    auto first = a_result.get_future().get();
    const bool decided = step == kCrashAfterCommitPoint || step == "s3ddb/after-copy";
    // A decided commit is at version 1: B, frozen out, committed after it.
    EXPECT_EQ(b->version, decided ? 2 : 1);
    if (fate == Fate::kResume) {
      ASSERT_TRUE(first.ok()) << first.status().ToString();
      ASSERT_EQ(first->result, CommitResult::kCommitted);
      EXPECT_EQ(first->version, decided ? 1 : 2);
      ExpectInvariants({"a.parquet", "b.parquet"},
                       {{b->version, "b.parquet"}, {first->version, "a.parquet"}});
      return;
    }
    EXPECT_FALSE(first.ok());
    EXPECT_EQ(Landed("writer-a"), decided);
    auto retry = Append(*clean_, nullptr, "writer-a", "a.parquet");
    ASSERT_TRUE(retry.ok()) << retry.status().ToString();
    EXPECT_EQ(retry->result, decided ? CommitResult::kAlreadyCommitted : CommitResult::kCommitted);
    // A dead writer's decided commit must be where its entry put it.
    const Version a_version = decided ? 1 : retry->version;
    ExpectInvariants({"a.parquet", "b.parquet"},
                     {{b->version, "b.parquet"}, {a_version, "a.parquet"}});
  }
};

TEST_F(S3DynamoDbCrashSweepTest, EveryWriterStepFrozenWhileAnotherCommitsThenCrashOrResume) {
  const std::vector<std::string> steps = StepsOfACleanCommit();
  for (const char* named : {"s3ddb/before-temp-put", "s3ddb/after-temp-put", kCrashAfterCommitPoint,
                            "s3ddb/after-copy"}) {
    EXPECT_NE(std::find(steps.begin(), steps.end(), named), steps.end()) << named;
  }
  for (const std::string& step : steps) {
    for (Fate fate : {Fate::kCrash, Fate::kResume}) {
      SCOPED_TRACE((fate == Fate::kCrash ? "crash at " : "freeze, then resume at ") + step);
      FreezeWhileAnotherCommits(step, fate);
    }
  }
}

// A writer died after the commit point; the first reader to recover its
// entry dies between the copy and the mark-complete; a second reader
// finishes it.
TEST_F(S3DynamoDbCrashSweepTest, ReaderCrashedInRecoveryIsFinishedByTheNextReader) {
  RecordingStepHooks crash_a;
  crash_a.FailAt(kCrashAfterCommitPoint, InternalError("writer a crashed"));
  EXPECT_FALSE(Append(*clean_, &crash_a, "writer-a", "a.parquet").ok());
  ASSERT_TRUE(s3_.store->Head(CommitPath(1)).status().IsNotFound());

  RecordingStepHooks crash_reader;
  crash_reader.FailAt(kRecoveryAfterCopy, InternalError("reader crashed"));
  EXPECT_EQ(LoadSnapshot(*Log(*clean_, &crash_reader), {}).status().code(), StatusCode::kInternal);
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).ok());  // copied ...
  ASSERT_TRUE(Entry(1).has_value());
  EXPECT_FALSE(Entry(1)->complete);  // ... but not marked

  RecordingStepHooks second;
  auto snapshot = LoadSnapshot(*Log(*clean_, &second), {});
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), 1);
  EXPECT_EQ(second.Count(kRecoveryAfterCopy), 1);
  EXPECT_TRUE(Entry(1)->complete);

  auto b = Append(*clean_, nullptr, "writer-b", "b.parquet");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->version, 2);
  auto a = Append(*clean_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->result, CommitResult::kAlreadyCommitted);
  ExpectInvariants({"a.parquet", "b.parquet"}, {{1, "a.parquet"}, {2, "b.parquet"}});
}

// The recoverer is a writer that lost version 1 to a writer that died after
// the commit point: it recovers the winner while reading it, and dies there.
TEST_F(S3DynamoDbCrashSweepTest, WriterCrashedInRecoveryOfTheWinnerRestartsAndLandsOnce) {
  RecordingStepHooks crash_b;
  crash_b.FailAt(kRecoveryAfterCopy, InternalError("writer b crashed"));
  auto b = StartWriter(*clean_, &crash_b, "writer-b", "b.parquet");  // reads version 0
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  RecordingStepHooks crash_a;
  crash_a.FailAt(kCrashAfterCommitPoint, InternalError("writer a crashed"));
  EXPECT_FALSE(Append(*clean_, &crash_a, "writer-a", "a.parquet").ok());

  EXPECT_EQ(b->txn->Commit().status().code(), StatusCode::kInternal);
  EXPECT_EQ(crash_b.Count(kRecoveryAfterCopy), 1);
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).ok());
  ASSERT_TRUE(Entry(1).has_value());
  EXPECT_FALSE(Entry(1)->complete);

  auto snapshot = LoadSnapshot(*Log(*clean_), {});  // the next reader finishes it
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_TRUE(Entry(1)->complete);
  auto b_again = Append(*clean_, nullptr, "writer-b", "b.parquet");
  ASSERT_TRUE(b_again.ok()) << b_again.status().ToString();
  EXPECT_EQ(b_again->result, CommitResult::kCommitted);
  auto a = Append(*clean_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->result, CommitResult::kAlreadyCommitted);
  ExpectInvariants({"a.parquet", "b.parquet"}, {{1, "a.parquet"}, {2, "b.parquet"}});
}

// --- Lost replies at the commit point (step 3) ---------------------------

// The PutItem landed but its reply was lost: reading the entry back finds
// our tempPath, so the commit is ours, once, without a second PutItem.
TEST_F(S3DynamoDbFaultTest, LostReplyOfAppliedCommitPointIsReadBackAsOurs) {
  auto drop = ddb_http_->AddRule(HttpFaultRule::DropReply(CommitPointPut()));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->result, CommitResult::kCommitted);
  EXPECT_EQ(a->version, 1);
  EXPECT_EQ(a->attempts, 1);
  EXPECT_EQ(ddb_http_->FiredCount(drop), 1);
  EXPECT_EQ(ddb_http_->Count(CommitPointPut()), 1);  // read back, not sent again
  ExpectInvariants({"a.parquet"}, {{1, "a.parquet"}});
}

// The request was lost before DynamoDB saw it (the outcome is just as
// unknown to the writer): reading back finds no entry, so it is sent again.
TEST_F(S3DynamoDbFaultTest, LostRequestAtCommitPointIsSentAgainAfterReadingBack) {
  auto lost = ddb_http_->AddRule(HttpFaultRule::FailBeforeSend(
      CommitPointPut(), UnknownOutcomeError("injected: connection lost while sending")));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->version, 1);
  EXPECT_EQ(ddb_http_->FiredCount(lost), 1);
  EXPECT_EQ(ddb_http_->Count(CommitPointPut()), 2);
  ExpectInvariants({"a.parquet"}, {{1, "a.parquet"}});
}

// Writer B takes version 1 while A is between its temp object and its
// PutItem; A's PutItem fails the condition and that reply is lost. Reading
// back finds B's entry: A rebases onto B and lands at 2, never twice.
TEST_F(S3DynamoDbFaultTest, LostReplyOfAFailedConditionRebasesWithoutDuplicate) {
  auto drop = ddb_http_->AddRule(HttpFaultRule::DropReply(CommitPointPut()));
  StatusOr<CommitOutcome> b = InternalError("writer b never ran");
  RecordingStepHooks race;
  race.SetCallback([&](std::string_view step) {
    if (step == "s3ddb/after-temp-put" && race.Count(step) == 1) {
      b = Append(*clean_, nullptr, "writer-b", "b.parquet");
    }
    return OkStatus();
  });
  auto a = Append(*faulty_, &race, "writer-a", "a.parquet");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->version, 1);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->result, CommitResult::kCommitted);
  EXPECT_EQ(a->version, 2);
  EXPECT_EQ(a->rebases, 1);
  EXPECT_EQ(ddb_http_->FiredCount(drop), 1);
  EXPECT_EQ(ddb_http_->Count(CommitPointPut()), 2);  // version 1 (lost reply), version 2
  ExpectInvariants({"a.parquet", "b.parquet"}, {{1, "b.parquet"}, {2, "a.parquet"}});
}

// --- Throttling ------------------------------------------------------------

// Both of DynamoDB's throttling replies on every kind of call the protocol
// makes: each refused call is retried after a backoff, and the commit lands
// once.
TEST_F(S3DynamoDbFaultTest, ThrottledCallsAreRetriedWithBackoffAndCommitOnce) {
  const auto throttled =
      Error(400, "ThrottlingException", "Rate of requests exceeds the allowed throughput.");
  const auto exceeded = Error(400, "ProvisionedThroughputExceededException", "injected");
  std::vector<HttpFaultRule> rules = {
      HttpFaultRule::CannedReply(CommitPointPut(), throttled).Times(2),
      HttpFaultRule::CannedReply(CommitPointPut(), exceeded).From(3),
      HttpFaultRule::CannedReply(MarkCompletePut(), exceeded).Times(2),
      HttpFaultRule::CannedReply(HttpMatch::Operation("GetItem"), exceeded).Times(2),
      HttpFaultRule::CannedReply(HttpMatch::Operation("Query"), throttled).Times(2)};
  std::vector<aws::testing::FaultInjectingHttpClient::RuleId> ids;
  for (const HttpFaultRule& rule : rules) ids.push_back(ddb_http_->AddRule(rule));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->result, CommitResult::kCommitted);
  EXPECT_EQ(a->version, 1);
  int64_t refused = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ddb_http_->FiredCount(ids[i]), rules[i].times) << "rule " << i;
    refused += ddb_http_->FiredCount(ids[i]);
  }
  EXPECT_EQ(ddb_http_->Count(CommitPointPut()), 4);  // 3 refused, then applied once
  // One backoff per refusal, each within its bound.
  const auto sleeps = ddb_sleeper_.sleeps();
  EXPECT_EQ(static_cast<int64_t>(sleeps.size()), refused);
  for (auto sleep : sleeps) EXPECT_LE(sleep, retry_.cap);
  EXPECT_GT(ddb_sleeper_.total(), std::chrono::milliseconds(0));
  ExpectInvariants({"a.parquet"}, {{1, "a.parquet"}});
}

// Throttled past all attempts at the commit point: a clear kUnavailable
// naming the throttling, no entry and no N.json; the same writer's retry
// then lands once.
TEST_F(S3DynamoDbFaultTest, ThrottledPastAllAttemptsAtCommitPointIsUnavailableAndNothingLands) {
  auto rule = ddb_http_->AddRule(
      HttpFaultRule::CannedReply(CommitPointPut(), Error(400, "ThrottlingException"))
          .Times(HttpFaultRule::kEveryRequest));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable) << a.status().ToString();
  EXPECT_NE(a.status().message().find("ThrottlingException"), std::string::npos)
      << a.status().message();
  EXPECT_NE(a.status().message().find("throttled"), std::string::npos) << a.status().message();
  EXPECT_NE(a.status().message().find(ddb_table_), std::string::npos) << a.status().message();
  EXPECT_NE(a.status().message().find(CommitFileName(1)), std::string::npos)
      << a.status().message();
  EXPECT_NE(a.status().message().find("after all attempts"), std::string::npos)
      << a.status().message();
  EXPECT_EQ(ddb_http_->FiredCount(rule), retry_.max_attempts);
  EXPECT_FALSE(Entry(1).has_value());
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).status().IsNotFound());
  ExpectInvariants({}, {});

  ddb_http_->ClearRules();
  auto retry = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(retry->result, CommitResult::kCommitted);
  ExpectInvariants({"a.parquet"}, {{1, "a.parquet"}});
}

// Throttled past all attempts at the check of version N-1 (step 1, a
// GetItem): the write stops before anything is written.
TEST_F(S3DynamoDbFaultTest, ThrottledPastAllAttemptsBeforeTheCommitPointWritesNothing) {
  ddb_http_->AddRule(
      HttpFaultRule::CannedReply(HttpMatch::Operation("GetItem"),
                                 Error(400, "ProvisionedThroughputExceededException"))
          .Times(HttpFaultRule::kEveryRequest));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kUnavailable) << a.status().ToString();
  EXPECT_NE(a.status().message().find("ProvisionedThroughputExceededException"), std::string::npos)
      << a.status().message();
  EXPECT_EQ(ddb_http_->Count(CommitPointPut()), 0);
  EXPECT_FALSE(Entry(1).has_value());
  auto temps = s3_.store->List(std::string(kLogDir) + ".tmp/");
  ASSERT_TRUE(temps.ok()) << temps.status().ToString();
  EXPECT_EQ(temps->size(), 1u);  // version 0's only
  ExpectInvariants({}, {});
}

// Throttled past all attempts when marking the entry complete (step 5):
// the commit was decided at step 3, so it is acknowledged, and the next
// reader completes the entry.
TEST_F(S3DynamoDbFaultTest, ThrottledMarkCompleteStillCommitsAndTheNextReaderCompletesIt) {
  ddb_http_->AddRule(
      HttpFaultRule::CannedReply(MarkCompletePut(), Error(400, "ThrottlingException"))
          .Times(HttpFaultRule::kEveryRequest));
  auto a = Append(*faulty_, nullptr, "writer-a", "a.parquet");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->version, 1);
  ASSERT_TRUE(Entry(1).has_value());
  EXPECT_FALSE(Entry(1)->complete);
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).ok());
  ExpectInvariants({"a.parquet"}, {{1, "a.parquet"}});  // its listing completes the entry
}

}  // namespace
}  // namespace deltacommit::testing
