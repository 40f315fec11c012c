// CommitService in service mode, on MemoryObjectStores and SQLite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "deltacommit/aws/sigv4.h"
#include "service/commits/commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::CommitActions;
using testing::CommitActionsAt;
using testing::FirstCommitActions;

TEST_F(CommitServiceTest, FirstCommitLandsAsCommitFileWithTheExactBytes) {
  const std::string actions = FirstCommitActions("a");
  CommitReply reply = CommitInline(0, actions);
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_EQ(reply.version, 0);
  EXPECT_TRUE(reply.published);
  EXPECT_EQ(Read(CommitPath(0)), actions);
  EXPECT_THAT(StagedFiles(), IsEmpty()) << "published: the staged copy is deleted";
  auto record = sqlite_->Get(table_, 0);
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_TRUE((*record)->published);
  EXPECT_EQ((*record)->commit_timestamp_ms, 1'700'000'000'000);
  EXPECT_EQ(observer_.Commits("ok"), 1);
}

TEST_F(CommitServiceTest, TableUnknownToTheServiceContinuesAfterItsHighestCommit) {
  for (Version v = 0; v <= 2; ++v) ASSERT_TRUE(memory().Put(CommitPath(v), CommitActions("old")).ok());
  CommitReply ahead = CommitInline(4, CommitActions("x"));
  EXPECT_EQ(ahead.outcome, CommitOutcome::kVersionAhead);
  EXPECT_EQ(ahead.latest, 2);
  EXPECT_THAT(ahead.message, HasSubstr("next commit is version 3"));
  CommitReply taken = CommitInline(2, CommitActions("x"));
  EXPECT_EQ(taken.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(taken.latest, 2);
  CommitReply ok = CommitInline(3, CommitActions("x"));
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(Read(CommitPath(3)), CommitActions("x"));
  EXPECT_THAT(StagedFiles(), IsEmpty()) << "refused commits leave no staged object";
}

// The library's commit rules, against the table's state read from its log:
// what Transaction refuses, the service refuses, and writes nothing.
TEST_F(CommitServiceTest, CommitsTheLibraryRefusesAreBadRequestsAndWriteNothing) {
  CommitReply bare = CommitInline(0, CommitActions("a"));
  EXPECT_EQ(bare.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(bare.message, HasSubstr("version 0 must contain a protocol and a metaData action"));
  ASSERT_TRUE(CommitInline(0, FirstCommitActions("a")).ok());
  const std::string downgrade = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":1}}\n";
  CommitReply refused = CommitInline(1, downgrade);
  EXPECT_EQ(refused.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(refused.message, AllOf(HasSubstr("version 1 of " + table_), HasSubstr("downgrade")));
  const std::string negative =
      "{\"add\":{\"path\":\"n.parquet\",\"partitionValues\":{},\"size\":-1,"
      "\"modificationTime\":1,\"dataChange\":true}}\n";
  EXPECT_THAT(CommitInline(1, negative).message, HasSubstr("size -1 is negative"));
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0)));
  EXPECT_THAT(StagedFiles(), IsEmpty());
  // The same protocol again is no downgrade.
  EXPECT_TRUE(
      CommitInline(1, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n").ok());
}

TEST_F(CommitServiceTest, ReplayOfTheSameCommitIsOkAndWritesNothingMore) {
  ASSERT_TRUE(CommitInline(0, FirstCommitActions("a")).ok());
  CommitReply replay = CommitInline(0, FirstCommitActions("a"));
  ASSERT_TRUE(replay.ok()) << replay.message;
  EXPECT_EQ(replay.version, 0);
  EXPECT_TRUE(replay.published);
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0)));
  EXPECT_THAT(StagedFiles(), IsEmpty());
}

TEST_F(CommitServiceTest, AStagedCopyDeletedByAnotherPublisherIsNotAnInconsistency) {
  // Another instance published version 0 and deleted its staged copy after
  // this one's state store had it unpublished: <v>.json with the ratified
  // bytes settles it.
  const std::string actions = CommitActions("a");
  CommitRecord record;
  record.table = table_;
  record.version = 0;
  record.staged_file = StagedCommitPath(0, NewUuid());
  record.content_sha256 = aws::Sha256Hex(actions);
  record.size = static_cast<int64_t>(actions.size());
  ASSERT_TRUE(sqlite_->Ratify(record, nullptr).ok());
  ASSERT_TRUE(memory().Put(CommitPath(0), actions).ok());
  CommitReply next = CommitInline(1, CommitActions("b"));
  ASSERT_TRUE(next.ok()) << next.message;
  EXPECT_THAT(observer_.Inconsistent(), IsEmpty());
  // Without <v>.json it is one: the commit cannot be published.
  record.version = 2;
  record.staged_file = StagedCommitPath(2, NewUuid());
  ASSERT_TRUE(sqlite_->Ratify(record, nullptr).ok());
  EXPECT_EQ(CommitInline(3, CommitActions("c")).outcome, CommitOutcome::kLogInconsistent);
  EXPECT_THAT(observer_.Inconsistent(), ElementsAre(2));
}

TEST_F(CommitServiceTest, ACommitsTxnsAreRecordedWithItsVersion) {
  ASSERT_TRUE(CommitInline(0, FirstCommitActions("a")).ok());
  const std::string with_txn = CommitActions("b") + "{\"txn\":{\"appId\":\"stream\",\"version\":7}}\n";
  ASSERT_TRUE(CommitInline(1, with_txn).ok());
  auto applied = sqlite_->LatestAppTxn(table_, "stream");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, (AppliedTxn{7, 1}));
}

TEST_F(CommitServiceTest, ReplayIsRecognisedAfterItsRecordWasForgotten) {
  for (Version v = 0; v <= 3; ++v) ASSERT_TRUE(CommitInline(v, CommitActionsAt(v, std::to_string(v))).ok());
  auto forgotten = sqlite_->ForgetPublishedBefore(table_, 3);
  ASSERT_TRUE(forgotten.ok());
  ASSERT_EQ(*forgotten, 3);
  EXPECT_TRUE(CommitInline(1, CommitActions("1")).ok());
  CommitReply taken = CommitInline(1, CommitActions("other"));
  EXPECT_EQ(taken.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(taken.latest, 3);
}

TEST_F(CommitServiceTest, PublishedRecordsBeyondTheRetentionAreForgotten) {
  CommitServiceOptions options;
  options.retention = {5, 10};
  NewService(options);
  for (Version v = 0; v < 25; ++v) {
    const std::string actions = v == 0 ? FirstCommitActions("0") : CommitActions(std::to_string(v));
    ASSERT_TRUE(CommitInline(v, actions).ok());
  }
  ASSERT_TRUE(service().retention().WaitIdle(std::chrono::seconds(10)));
  // Published through 24; the last forget ran at 19, below 19 + 1 - 5.
  auto kept = sqlite_->ListFrom(table_, 0, 100);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_FALSE(kept->empty());
  EXPECT_EQ(kept->front().version, 15);
  EXPECT_EQ(kept->size(), 10u);
  // A resend of a forgotten commit is still the same commit; other
  // content is still a conflict.
  EXPECT_TRUE(CommitInline(3, CommitActions("3")).ok());
  EXPECT_EQ(CommitInline(3, CommitActions("other")).outcome, CommitOutcome::kVersionTaken);
}

TEST_F(CommitServiceTest, OtherContentForATakenVersionIsVersionTakenWithLatest) {
  ASSERT_TRUE(CommitInline(0, FirstCommitActions("a")).ok());
  ASSERT_TRUE(CommitInline(1, CommitActions("b")).ok());
  CommitReply reply = CommitInline(1, CommitActions("c"));
  EXPECT_EQ(reply.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(reply.latest, 1);
  EXPECT_THAT(reply.message, AllOf(HasSubstr("version 1 of " + table_ + " is taken"),
                                   HasSubstr("commit version 2")));
  EXPECT_EQ(Read(CommitPath(1)), CommitActions("b"));
  EXPECT_EQ(observer_.Commits("version_taken"), 1);
}

TEST_F(CommitServiceTest, BadRequestsAreRefusedBeforeAnythingIsWritten) {
  const std::string info = "{\"commitInfo\":{\"timestamp\":1}}\n";
  EXPECT_EQ(CommitInline(0, info + "{\"futureThing\":{}}\n").outcome, CommitOutcome::kBadRequest);
  EXPECT_EQ(CommitInline(0, info + "{\"add\":{\"path\":\"../x\",\"partitionValues\":{},"
                                   "\"size\":1,\"modificationTime\":1,\"dataChange\":true}}")
                .outcome,
            CommitOutcome::kBadRequest);
  EXPECT_EQ(CommitInline(-1, info).outcome, CommitOutcome::kBadRequest);
  CommitRequest both = testing::ServiceCommit(Access(), 0, info);
  both.staged_file = StagedCommitPath(0, NewUuid());
  EXPECT_THAT(service().Commit(both).message, HasSubstr("not both or neither"));
  CommitServiceOptions small;
  small.limits.max_commit_bytes = 8;
  NewService(small);
  CommitReply big = CommitInline(0, info);
  EXPECT_EQ(big.outcome, CommitOutcome::kTooLarge);
  EXPECT_TRUE(Keys("").empty());
  EXPECT_EQ(factory_.Calls(), 0);
}

TEST_F(CommitServiceTest, ExpiredCredentialsAreInvalidBeforeAnyS3Call) {
  TableAccess access = Access();
  access.credentials.expiration_ms = SystemClock().NowMillis() - 1000;
  CommitReply reply = service().Commit(testing::ServiceCommit(access, 0, FirstCommitActions("a")));
  EXPECT_EQ(reply.outcome, CommitOutcome::kCredentialsInvalid);
  EXPECT_THAT(reply.message, AllOf(HasSubstr("expired at"), HasSubstr("UTC"),
                                   Not(HasSubstr(testing::kTestSecret))));
  EXPECT_EQ(factory_.Opens(), 0);
  EXPECT_EQ(factory_.Calls(), 0);
}

TEST_F(CommitServiceTest, CredentialsRefusedByS3AreRejectedNamingActionAndCode) {
  CommitReply reply = service().Commit(
      testing::ServiceCommit(Access("wrong-secret"), 0, FirstCommitActions("a")));
  EXPECT_EQ(reply.outcome, CommitOutcome::kCredentialsRejected);
  EXPECT_THAT(reply.message,
              AllOf(HasSubstr("SignatureDoesNotMatch"), HasSubstr("ListObjectsV2"),
                    HasSubstr(table_), Not(HasSubstr("wrong-secret")),
                    Not(HasSubstr(testing::kTestSessionToken))));
  EXPECT_TRUE(Keys("").empty());
}

TEST_F(CommitServiceTest, StateStoreDownIsUnavailableAndObserved) {
  state_->SetDown(true);
  CommitReply reply = CommitInline(0, FirstCommitActions("a"));
  EXPECT_EQ(reply.outcome, CommitOutcome::kUnavailable);
  EXPECT_THAT(reply.message, HasSubstr("state store"));
  EXPECT_EQ(observer_.StateStoreErrors("Unpublished Unavailable"), 1);
  state_->SetDown(false);
  EXPECT_TRUE(CommitInline(0, FirstCommitActions("a")).ok());
}

TEST_F(CommitServiceTest, LostRatifyReplyIsAskedAgainAndCommitsOnce) {
  state_->DropRatifyReplies(1);
  CommitReply reply = CommitInline(0, FirstCommitActions("a"));
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_TRUE(reply.published);
  EXPECT_EQ(state_->RatifyCalls(), 2);
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0)));
}

TEST_F(CommitServiceTest, PublishFailureAfterRatifyIsOkUnpublishedAndFinishedLater) {
  service().publisher().Stop();  // the next request finishes it
  faults().FailEveryCall(ObjectStoreOp::kPutIfAbsent, CommitPath(0));
  CommitReply reply = CommitInline(0, FirstCommitActions("a"));
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_FALSE(reply.published);
  EXPECT_TRUE(CommitFiles().empty());
  faults().ClearRules();
  CommitReply next = CommitInline(1, CommitActions("b"));
  ASSERT_TRUE(next.ok()) << next.message;
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0), CommitPath(1)));
  EXPECT_EQ(Read(CommitPath(0)), FirstCommitActions("a"));
}

TEST_F(CommitServiceTest, PublisherFinishesACommitWhosePublishFailed) {
  faults().AddRule(FaultRule{ObjectStoreOp::kPutIfAbsent, CommitPath(0), 1, 1,
                             FaultAction::kFail, UnavailableError("S3 503"), {}});
  CommitReply reply = CommitInline(0, FirstCommitActions("a"));
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_FALSE(reply.published);
  ASSERT_TRUE(service().publisher().WaitIdle(std::chrono::seconds(10)));
  EXPECT_EQ(Read(CommitPath(0)), FirstCommitActions("a"));
  ASSERT_EQ(observer_.Publishes().size(), 1u);
  EXPECT_TRUE(observer_.Publishes()[0].background);
}

TEST_F(CommitServiceTest, CommitFileWrittenAroundTheServiceIsNeverOverwritten) {
  service().publisher().Stop();
  faults().FailEveryCall(ObjectStoreOp::kPutIfAbsent, CommitPath(0));
  ASSERT_TRUE(CommitInline(0, FirstCommitActions("ours")).ok());
  // A writer that bypasses the service takes version 0.
  ASSERT_TRUE(memory().Put(CommitPath(0), CommitActions("theirs")).ok());
  faults().ClearRules();
  CommitReply reply = CommitInline(1, CommitActions("b"));
  EXPECT_EQ(reply.outcome, CommitOutcome::kLogInconsistent);
  EXPECT_THAT(reply.message, AllOf(HasSubstr("already exists with other content"),
                                   HasSubstr("never overwrites")));
  EXPECT_EQ(Read(CommitPath(0)), CommitActions("theirs"));
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0)));
  EXPECT_THAT(observer_.Inconsistent(), ElementsAre(0));
}

TEST_F(CommitServiceTest, EndpointWithoutConditionalPutsChecksBeforeWriting) {
  TableAccess access = Access();
  access.endpoint.enforces_if_none_match = false;
  ASSERT_TRUE(service().Commit(testing::ServiceCommit(access, 0, FirstCommitActions("a"))).ok());
  ASSERT_TRUE(service().Commit(testing::ServiceCommit(access, 1, CommitActions("b"))).ok());
  EXPECT_EQ(faults().CallCount(ObjectStoreOp::kPutIfAbsent), 0);
  EXPECT_EQ(Read(CommitPath(1)), CommitActions("b"));
}

TEST_F(CommitServiceTest, ConcurrentWritersWithRebaseGetContiguousVersionsEachOnce) {
  constexpr int kThreads = 8;
  constexpr int kCommits = 10;
  service();  // built once, before the threads share it
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Version next = 0;
      for (int i = 0; i < kCommits; ++i) {
        const std::string tag = std::to_string(t) + "-" + std::to_string(i);
        for (;;) {
          CommitReply reply = CommitInline(next, testing::CommitActionsAt(next, tag));
          if (reply.ok()) break;
          ASSERT_TRUE(reply.outcome == CommitOutcome::kVersionTaken ||
                      reply.outcome == CommitOutcome::kVersionAhead) << reply.message;
          next = *reply.latest + 1;
        }
        ++next;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::string> files = CommitFiles();
  ASSERT_EQ(files.size(), static_cast<size_t>(kThreads * kCommits));
  std::set<std::string> contents;
  for (Version v = 0; v < kThreads * kCommits; ++v) {
    EXPECT_EQ(files[static_cast<size_t>(v)], CommitPath(v));
    contents.insert(Read(CommitPath(v)));
  }
  EXPECT_EQ(contents.size(), static_cast<size_t>(kThreads * kCommits));
}

}  // namespace
}  // namespace deltacommit::service
