// The commit service on Ceph RGW (real S3, real signatures) with the SQLite
// and the DynamoDB (dynalite) state store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "commit_service_fixture.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::CommitActions;
using testing::FirstCommitActions;

template <typename Env>
using CommitServiceS3Test = CommitServiceOnS3Test<Env>;
TYPED_TEST_SUITE(CommitServiceS3Test, StateStoreEnvs, EnvName);

TYPED_TEST(CommitServiceS3Test, ServiceModeCommitLandsAsCommitFileWithTheExactBytes) {
  auto service = this->NewService();
  const std::string actions = FirstCommitActions("a");
  CommitReply reply = service->Commit(testing::ServiceCommit(this->Access(), 0, actions));
  ASSERT_TRUE(reply.ok()) << reply.message;
  EXPECT_EQ(reply.version, 0);
  EXPECT_TRUE(reply.published);
  EXPECT_EQ(this->Read(CommitPath(0)), actions);
  auto pending = service->PendingCommits(this->table_, 0);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->latest, 0);
  EXPECT_TRUE(pending->commits.empty());
}

TYPED_TEST(CommitServiceS3Test, ReplayAfterALostReplyIsTheSameVersionAndOneFile) {
  auto service = this->NewService();
  ASSERT_TRUE(service->Commit(testing::ServiceCommit(this->Access(), 0, FirstCommitActions("a"))).ok());
  const CommitRequest request = testing::ServiceCommit(this->Access(), 1, CommitActions("b"));
  ASSERT_TRUE(service->Commit(request).ok());
  // The writer never saw that reply and sends the commit again.
  CommitReply replay = service->Commit(request);
  ASSERT_TRUE(replay.ok()) << replay.message;
  EXPECT_EQ(replay.version, 1);
  EXPECT_THAT(this->ContiguousCommits(2), ElementsAre(FirstCommitActions("a"), CommitActions("b")));
  EXPECT_TRUE(this->LogKeys(LogFileType::kStagedCommit).empty())
      << "published: the staged copies are deleted";
}

TYPED_TEST(CommitServiceS3Test, ConflictIsVersionTakenAndAheadIsVersionAheadWithLatest) {
  auto service = this->NewService();
  for (Version v = 0; v <= 1; ++v) {
    ASSERT_TRUE(service->Commit(testing::ServiceCommit(this->Access(), v, testing::CommitActionsAt(v, "x" + std::to_string(v)))).ok());
  }
  CommitReply taken = service->Commit(testing::ServiceCommit(this->Access(), 1, CommitActions("y")));
  EXPECT_EQ(taken.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(taken.latest, 1);
  CommitReply ahead = service->Commit(testing::ServiceCommit(this->Access(), 5, CommitActions("y")));
  EXPECT_EQ(ahead.outcome, CommitOutcome::kVersionAhead);
  EXPECT_EQ(ahead.latest, 1);
  EXPECT_EQ(this->ContiguousCommits(2)[1], CommitActions("x1"));
  EXPECT_TRUE(this->LogKeys(LogFileType::kStagedCommit).empty())
      << "refused commits leave none, published ones are deleted";
}

TYPED_TEST(CommitServiceS3Test, WrongSecretIsRejectedNamingSignatureDoesNotMatch) {
  auto service = this->NewService();
  const std::string wrong = "WRONGsecretWRONGsecretWRONGsecret0123456";
  CommitReply reply =
      service->Commit(testing::ServiceCommit(this->Access(wrong), 0, FirstCommitActions("a")));
  EXPECT_EQ(reply.outcome, CommitOutcome::kCredentialsRejected);
  EXPECT_THAT(reply.message,
              AllOf(HasSubstr("SignatureDoesNotMatch"), HasSubstr("ListObjectsV2"),
                    HasSubstr("s3://" + this->bucket_), Not(HasSubstr(wrong)),
                    Not(HasSubstr(std::getenv("AWS_SECRET_ACCESS_KEY")))));
  EXPECT_GE(this->observer_.S3Errors("ListObjectsV2 SignatureDoesNotMatch"), 1);
  EXPECT_TRUE(this->LogKeys(LogFileType::kCommit).empty());
}

TYPED_TEST(CommitServiceS3Test, ExpiredCredentialsAreInvalidBeforeAnyS3Call) {
  auto service = this->NewService();
  TableAccess access = this->Access();
  access.credentials.expiration_ms = SystemClock().NowMillis() - 5'000;
  CommitReply reply = service->Commit(testing::ServiceCommit(access, 0, FirstCommitActions("a")));
  EXPECT_EQ(reply.outcome, CommitOutcome::kCredentialsInvalid);
  EXPECT_THAT(reply.message, AllOf(HasSubstr("expired at"), HasSubstr("UTC")));
  EXPECT_EQ(this->counting_http_.sent(), 0);
}

TYPED_TEST(CommitServiceS3Test, CoordinatedCommitIsRatifiedAtOnceAndPublishedInTheBackground) {
  auto service = this->NewService();
  std::vector<std::string> staged;
  for (Version v = 0; v <= 2; ++v) {
    staged.push_back(StagedCommitPath(v, NewUuid()));
    ASSERT_TRUE(this->reader_->Put(staged.back(), testing::CommitActionsAt(v, std::to_string(v))).ok());
    CommitReply reply =
        service->Commit(testing::CoordinatedCommit(this->Access(), v, staged.back()));
    ASSERT_TRUE(reply.ok()) << reply.message;
    EXPECT_FALSE(reply.published);
  }
  CommitReply replay = service->Commit(testing::CoordinatedCommit(this->Access(), 1, staged[1]));
  EXPECT_TRUE(replay.ok()) << replay.message;
  CommitReply other = service->Commit(
      testing::CoordinatedCommit(this->Access(), 1, StagedCommitPath(1, NewUuid())));
  EXPECT_NE(other.outcome, CommitOutcome::kOk);  // missing object or taken: never a commit
  ASSERT_TRUE(service->publisher().WaitIdle(std::chrono::seconds(30)));
  EXPECT_THAT(this->ContiguousCommits(3),
              ElementsAre(FirstCommitActions("0"), CommitActions("1"), CommitActions("2")));
  auto pending = service->PendingCommits(this->table_, 0);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->latest, 2);
  EXPECT_TRUE(pending->commits.empty());
}

TYPED_TEST(CommitServiceS3Test, CoordinatedTakenVersionWithAnotherStagedNameIsVersionTaken) {
  auto service = this->NewService();
  const std::string first = StagedCommitPath(0, NewUuid());
  const std::string second = StagedCommitPath(0, NewUuid());
  ASSERT_TRUE(this->reader_->Put(first, FirstCommitActions("a")).ok());
  ASSERT_TRUE(this->reader_->Put(second, FirstCommitActions("a")).ok());
  ASSERT_TRUE(service->Commit(testing::CoordinatedCommit(this->Access(), 0, first)).ok());
  CommitReply other = service->Commit(testing::CoordinatedCommit(this->Access(), 0, second));
  EXPECT_EQ(other.outcome, CommitOutcome::kVersionTaken);
  EXPECT_EQ(other.latest, 0);
}

}  // namespace
}  // namespace deltacommit::service
