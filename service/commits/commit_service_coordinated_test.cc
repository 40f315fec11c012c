// CommitService in coordinated mode, PendingCommits, and the background
// Publisher, on MemoryObjectStores and SQLite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "deltacommit/testing/fake_clock.h"
#include "service/commits/commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::CommitActions;
using testing::CommitActionsAt;
using testing::FirstCommitActions;

constexpr auto kWait = std::chrono::seconds(10);

class CoordinatedTest : public CommitServiceTest {
 protected:
  // clock_ dies before the base's service_, whose publisher threads read it:
  // the service goes first.
  ~CoordinatedTest() override { StopService(); }
  CommitReply CommitStaged(Version version, const std::string& staged_file) {
    return service().Commit(testing::CoordinatedCommit(Access(), version, staged_file));
  }
  std::vector<Version> PendingVersions(Version start = 0) {
    auto pending = service().PendingCommits(table_, start);
    EXPECT_TRUE(pending.ok()) << pending.status().ToString();
    std::vector<Version> versions;
    if (pending.ok()) {
      for (const auto& r : pending->commits) versions.push_back(r.version);
    }
    return versions;
  }

  FakeClock clock_{SystemClock().NowMillis()};
};

// A staged commit is held to the library's rules against the table's
// protocol before it is ratified.
TEST_F(CoordinatedTest, AStagedProtocolDowngradeIsRefusedAndNotRatified) {
  ASSERT_TRUE(CommitStaged(0, PutStaged(0, FirstCommitActions("a"))).ok());
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  CommitReply refused = CommitStaged(
      1, PutStaged(1, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":1}}\n"));
  EXPECT_EQ(refused.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(refused.message, HasSubstr("downgrade"));
  EXPECT_THAT(PendingVersions(), IsEmpty()) << "not ratified";
  EXPECT_FALSE(sqlite_->Get(table_, 1).value().has_value());
}

TEST_F(CoordinatedTest, RatifiesAtOnceAndPublishesInTheBackground) {
  const std::string staged = PutStaged(0, FirstCommitActions("a"));
  CommitReply reply = CommitStaged(0, staged);
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_EQ(reply.version, 0);
  EXPECT_FALSE(reply.published);
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_EQ(Read(CommitPath(0)), FirstCommitActions("a"));
  auto record = sqlite_->Get(table_, 0);
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_EQ((*record)->staged_file, staged);
  EXPECT_TRUE((*record)->published);
  ASSERT_EQ(observer_.Publishes().size(), 1u);
  EXPECT_TRUE(observer_.Publishes()[0].background);
}

TEST_F(CoordinatedTest, SameStagedFileReplayedIsOkAnotherNameIsVersionTaken) {
  for (Version v = 0; v <= 1; ++v) {
    ASSERT_TRUE(CommitStaged(v, PutStaged(v, CommitActionsAt(v, std::to_string(v)))).ok());
  }
  const std::string staged = PutStaged(2, CommitActions("2"));
  ASSERT_TRUE(CommitStaged(2, staged).ok());
  CommitReply replay = CommitStaged(2, staged);
  ASSERT_TRUE(replay.ok()) << replay.message;
  EXPECT_EQ(replay.version, 2);
  EXPECT_TRUE(replay.replay);
  EXPECT_EQ(replay.latest, 2);
  // Same bytes under another name is another commit in this mode.
  CommitReply other = CommitStaged(2, PutStaged(2, CommitActions("2")));
  EXPECT_EQ(other.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(other.latest, 2);
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_THAT(CommitFiles(), ElementsAre(CommitPath(0), CommitPath(1), CommitPath(2)));
  EXPECT_EQ(Read(CommitPath(2)), CommitActions("2"));
}

TEST_F(CoordinatedTest, BadStagedCommitsAreRefusedNamingTheProblem) {
  CommitReply wrong_version = CommitStaged(1, PutStaged(0, FirstCommitActions("a")));
  EXPECT_EQ(wrong_version.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(wrong_version.message, HasSubstr("not a staged commit of version 1"));
  CommitReply missing = CommitStaged(0, StagedCommitPath(0, NewUuid()));
  EXPECT_EQ(missing.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(missing.message, HasSubstr("does not exist"));
  CommitReply unknown = CommitStaged(0, PutStaged(0, "{\"futureThing\":{}}\n"));
  EXPECT_EQ(unknown.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(unknown.message, HasSubstr("unknown action \"futureThing\""));
  CommitServiceOptions small;
  small.limits.max_commit_bytes = 16;
  NewService(small);
  EXPECT_EQ(CommitStaged(0, PutStaged(0, FirstCommitActions("a"))).outcome, CommitOutcome::kTooLarge);
  EXPECT_TRUE(CommitFiles().empty());
}

// Unity Catalog's commit_info.file_size: a staged commit of another size is
// not the one the writer means, and is not ratified.
TEST_F(CoordinatedTest, AStagedCommitOfAnotherSizeThanStatedIsRefused) {
  const std::string actions = FirstCommitActions("a");
  const std::string staged = PutStaged(0, actions);
  CommitRequest request = testing::CoordinatedCommit(Access(), 0, staged);
  request.staged_size = static_cast<int64_t>(actions.size()) + 1;
  CommitReply refused = service().Commit(request);
  EXPECT_EQ(refused.outcome, CommitOutcome::kBadRequest);
  EXPECT_THAT(refused.message, HasSubstr("is " + std::to_string(actions.size()) +
                                         " bytes, not the " + std::to_string(actions.size() + 1)));
  EXPECT_FALSE(sqlite_->Get(table_, 0).value().has_value());
  request.staged_size = static_cast<int64_t>(actions.size());
  CommitReply ok = service().Commit(request);
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_FALSE(ok.replay);
}

// Unity Catalog's cap: with max_unpublished commits waiting, the next
// version waits (kTooManyUnpublished, nothing ratified); a replay of a
// waiting one is still answered, and once published the next one lands.
TEST_F(CoordinatedTest, AtTheCapOfUnpublishedCommitsTheNextVersionWaits) {
  service().publisher().Stop();
  auto capped = [&](Version v, const std::string& staged) {
    CommitRequest request = testing::CoordinatedCommit(Access(), v, staged);
    request.max_unpublished = 3;
    return service().Commit(request);
  };
  std::vector<std::string> staged;
  for (Version v = 0; v <= 2; ++v) {
    staged.push_back(PutStaged(v, CommitActionsAt(v, std::to_string(v))));
    ASSERT_TRUE(capped(v, staged.back()).ok());
  }
  CommitReply waits = capped(3, PutStaged(3, CommitActions("3")));
  EXPECT_EQ(waits.outcome, CommitOutcome::kTooManyUnpublished);
  EXPECT_THAT(waits.message, HasSubstr("has 3 ratified commits waiting to be published"));
  EXPECT_FALSE(sqlite_->Get(table_, 3).value().has_value());
  EXPECT_TRUE(capped(2, staged[2]).replay);

  // A service whose publisher runs: the refusal schedules it, and once it
  // has published, the same request lands.
  NewService({});
  const std::string third = PutStaged(3, CommitActions("3"));
  EXPECT_EQ(capped(3, third).outcome, CommitOutcome::kTooManyUnpublished);
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_THAT(PendingVersions(), IsEmpty());
  CommitReply landed = capped(3, third);
  ASSERT_TRUE(landed.ok()) << landed.message;
  EXPECT_EQ(landed.version, 3);
}

// More unpublished commits below `start` than one answer lists: the answer
// still holds the commits from `start` on.
TEST_F(CoordinatedTest, PendingCommitsFromStartAboveAFullPageOfOlderOnes) {
  CommitServiceOptions small;
  small.pending_list_limit = 2;
  NewService(small);
  service().publisher().Stop();
  for (Version v = 0; v <= 5; ++v) {
    ASSERT_TRUE(CommitStaged(v, PutStaged(v, CommitActionsAt(v, std::to_string(v)))).ok());
  }
  EXPECT_THAT(PendingVersions(0), ElementsAre(0, 1));
  EXPECT_THAT(PendingVersions(3), ElementsAre(3, 4));
  EXPECT_THAT(PendingVersions(5), ElementsAre(5));
  EXPECT_THAT(PendingVersions(6), ElementsAre());
  EXPECT_THAT(PendingVersions(1), ElementsAre(1));  // within the first page
}

// Another instance ratifies a commit between the listing's read of the
// latest version and its read of the unpublished commits: the answer's
// latest version covers the commit it lists (a client refuses a listing
// whose commits lie beyond its latest version).
TEST_F(CoordinatedTest, ACommitRatifiedWhileListingRaisesTheLatestVersion) {
  service().publisher().Stop();
  ASSERT_TRUE(CommitStaged(0, PutStaged(0, CommitActionsAt(0, "0"))).ok());
  const auto frozen = state_->FreezeNthCall(testing::StateStoreOp::kUnpublished, 1);
  StatusOr<PendingCommitList> listed = InternalError("not listed");
  std::thread lister([&] { listed = service().PendingCommits(table_, 0); });
  const bool listing = state_->WaitUntilFrozen(frozen);
  // The other instance's commit, while the listing waits.
  const bool ratified = CommitStaged(1, PutStaged(1, CommitActionsAt(1, "1"))).ok();
  state_->Release(frozen);
  lister.join();
  ASSERT_TRUE(listing && ratified);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->commits.size(), 2u);
  EXPECT_EQ(listed->commits.back().version, 1);
  EXPECT_EQ(listed->latest, 1);
}

TEST_F(CoordinatedTest, PendingCommitsListsRatifiedUnpublishedCommitsFromStart) {
  service().publisher().Stop();
  auto none = service().PendingCommits(table_, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->latest, -1);
  EXPECT_TRUE(none->commits.empty());
  std::vector<std::string> staged;
  for (Version v = 0; v <= 2; ++v) {
    staged.push_back(PutStaged(v, CommitActionsAt(v, std::to_string(v), 1000 + v)));
    ASSERT_TRUE(CommitStaged(v, staged.back()).ok());
  }
  auto pending = service().PendingCommits(table_, 1);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->latest, 2);
  ASSERT_EQ(pending->commits.size(), 2u);
  EXPECT_EQ(pending->commits[0].staged_file, staged[1]);
  EXPECT_EQ(pending->commits[0].commit_timestamp_ms, 1001);
  EXPECT_EQ(pending->commits[1].size, static_cast<int64_t>(CommitActions("2", 1002).size()));
  EXPECT_EQ(service().PendingCommits(table_, -1).status().code(), StatusCode::kInvalidArgument);
  // A service-mode request publishes what is pending before its own commit.
  ASSERT_TRUE(CommitInline(3, CommitActions("3")).ok());
  EXPECT_TRUE(PendingVersions().empty());
  EXPECT_EQ(CommitFiles().size(), 4u);
}

TEST_F(CoordinatedTest, PublisherRetriesTransientFailures) {
  faults().AddRule(FaultRule{ObjectStoreOp::kPutIfAbsent, CommitPath(0), 1, 2,
                             FaultAction::kFail, UnavailableError("S3 503 SlowDown"), {}});
  CommitServiceOptions options;
  options.publisher.first_retry = std::chrono::milliseconds(5);
  NewService(options);
  ASSERT_TRUE(CommitStaged(0, PutStaged(0, FirstCommitActions("a"))).ok());
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_EQ(faults().CallCount(ObjectStoreOp::kPutIfAbsent), 3);
  EXPECT_EQ(Read(CommitPath(0)), FirstCommitActions("a"));
}

TEST_F(CoordinatedTest, PublisherDropsCredentialsThatS3Refuses) {
  faults().FailEveryCall(ObjectStoreOp::kPutIfAbsent, CommitPath(0),
                         PermissionDeniedError("S3 PutObject ...: AccessDenied (HTTP 403)"));
  ASSERT_TRUE(CommitStaged(0, PutStaged(0, FirstCommitActions("a"))).ok());
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_EQ(faults().CallCount(ObjectStoreOp::kPutIfAbsent), 1);
  EXPECT_THAT(PendingVersions(), ElementsAre(0));
}

TEST_F(CoordinatedTest, PublisherDropsCredentialsWhenTheyExpire) {
  CommitServiceOptions options;
  options.clock = &clock_;
  options.publisher.first_retry = std::chrono::milliseconds(5);
  options.publisher.max_retry = std::chrono::milliseconds(5);
  NewService(options);
  faults().FailEveryCall(ObjectStoreOp::kPutIfAbsent, CommitPath(0));
  ASSERT_TRUE(CommitStaged(0, PutStaged(0, FirstCommitActions("a"))).ok());
  EXPECT_FALSE(service().publisher().WaitIdle(std::chrono::milliseconds(100)));
  EXPECT_EQ(service().publisher().ScheduledTables(), 1u);
  clock_.Advance(std::chrono::hours(2));
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  const int64_t attempts = faults().CallCount(ObjectStoreOp::kPutIfAbsent);
  EXPECT_GE(attempts, 2);
  EXPECT_THAT(PendingVersions(), ElementsAre(0));
}

TEST_F(CoordinatedTest, TableUnknownToTheServiceStartsAfterItsPublishedLog) {
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(memory().Put(CommitPath(v), CommitActions("old")).ok());
  CommitReply ahead = CommitStaged(6, PutStaged(6, CommitActions("x")));
  EXPECT_EQ(ahead.outcome, CommitOutcome::kVersionAhead);
  EXPECT_EQ(ahead.latest, 4);
  ASSERT_TRUE(CommitStaged(5, PutStaged(5, CommitActions("x"))).ok());
  ASSERT_TRUE(service().publisher().WaitIdle(kWait));
  EXPECT_EQ(Read(CommitPath(5)), CommitActions("x"));
}

}  // namespace
}  // namespace deltacommit::service
