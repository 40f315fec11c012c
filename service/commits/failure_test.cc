#include "service/commits/failure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

TEST(FailureTest, RefusedCredentialsSayWhetherTheyLackAPermissionOrAreNotAccepted) {
  CommitReply denied = ReplyFor(ObjectStoreFailure(
      PermissionDeniedError("S3 PutObject s3://b/t/_delta_log/x: AccessDenied (HTTP 403)")));
  EXPECT_EQ(denied.outcome, CommitOutcome::kCredentialsRejected);
  EXPECT_EQ(denied.reason, "access_denied");
  EXPECT_THAT(denied.message, HasSubstr("AccessDenied"));

  CommitReply invalid = ReplyFor(
      ObjectStoreFailure(UnauthenticatedError("S3 GetObject: InvalidAccessKeyId (HTTP 403)")));
  EXPECT_EQ(invalid.outcome, CommitOutcome::kCredentialsRejected);
  EXPECT_EQ(invalid.reason, "invalid_credentials");
}

TEST(FailureTest, OnlyRefusedCredentialsHaveAReason) {
  EXPECT_EQ(ReplyFor(ObjectStoreFailure(NotFoundError("NoSuchBucket"))).outcome,
            CommitOutcome::kBadRequest);
  EXPECT_EQ(ReplyFor(ObjectStoreFailure(UnavailableError("503"))).outcome,
            CommitOutcome::kUnavailable);
  // The service's own state store refusing is not the writer's credentials.
  CommitReply state = ReplyFor(StateStoreFailure(NoCommitObserver(), "Ratify",
                                                 PermissionDeniedError("AccessDeniedException")));
  EXPECT_EQ(state.outcome, CommitOutcome::kUnavailable);
  for (const Failure& f : {ObjectStoreFailure(NotFoundError("x")),
                           ObjectStoreFailure(UnavailableError("x")),
                           Failure{FailureKind::kLogInconsistent, DataLossError("x")}}) {
    EXPECT_EQ(ReplyFor(f).reason, "") << f.status.ToString();
  }
}

}  // namespace
}  // namespace deltacommit::service
