// FaultInjectingCommitServiceClient: no rules, no faults; a failed commit
// never reaches the service, a dropped reply's commit does (and the result
// says only kUnknownOutcome); rules match the table or the staged file.
#include "deltacommit/testing/fault_commit_service_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/recording_commit_service_client.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

ServiceCommitRequest Request(const std::string& table, Version version) {
  ServiceCommitRequest request;
  request.table = table;
  request.version = version;
  request.staged_file =
      "_delta_log/_staged_commits/" + std::to_string(version) + ".u.json";
  return request;
}

class FaultCommitServiceClientTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  RecordingCommitServiceClient base_;
  FaultInjectingCommitServiceClient client_{base_, sleeper_};
};

TEST_F(FaultCommitServiceClientTest, NoRulesIsTransparent) {
  EXPECT_EQ(client_.Describe(), base_.Describe());
  EXPECT_EQ(client_.Url(), base_.Url());
  ServiceCommitResult result = client_.Commit(Request("s3://b/t", 3));
  EXPECT_TRUE(result.status.ok());
  EXPECT_EQ(result.version, 3);
  base_.SetPending(PendingCommits{3, {}});
  EXPECT_EQ(client_.GetPendingCommits("s3://b/t", 0)->latest_version, 3);
  EXPECT_EQ(base_.commits().size(), 1u);
  EXPECT_EQ(base_.pending_queries().size(), 1u);
}

TEST_F(FaultCommitServiceClientTest, FailedCommitIsNotSent) {
  client_.FailNthCall(CommitServiceClientOp::kCommit, 1);
  ServiceCommitResult result = client_.Commit(Request("s3://b/t", 0));
  EXPECT_EQ(result.status.code(), StatusCode::kUnavailable);
  EXPECT_THAT(result.status.message(), HasSubstr("Commit \"s3://b/t\""));
  EXPECT_EQ(result.version, -1);
  EXPECT_TRUE(base_.commits().empty());
  EXPECT_TRUE(client_.Commit(Request("s3://b/t", 0)).status.ok());
  EXPECT_EQ(base_.commits().size(), 1u);
}

TEST_F(FaultCommitServiceClientTest,
       DropReplyCommitsThenAnswersUnknownOutcome) {
  client_.DropReplyOnNthCall(CommitServiceClientOp::kCommit, 1);
  ServiceCommitResult result = client_.Commit(Request("s3://b/t", 5));
  EXPECT_TRUE(result.status.IsUnknownOutcome()) << result.status.ToString();
  EXPECT_EQ(result.version, -1);  // the lost reply tells nothing more
  ASSERT_EQ(base_.commits().size(), 1u);
  EXPECT_EQ(base_.commits()[0].version, 5);
}

TEST_F(FaultCommitServiceClientTest, RulesMatchTheTableOrTheStagedFile) {
  client_.FailEveryCall(CommitServiceClientOp::kCommit, "/7.u.json",
                        PermissionDeniedError("no"));
  EXPECT_TRUE(client_.Commit(Request("s3://b/t", 6)).status.ok());
  EXPECT_TRUE(client_.Commit(Request("s3://b/t", 7)).status.code() ==
              StatusCode::kPermissionDenied);
  client_.FailEveryCall(CommitServiceClientOp::kGetPendingCommits, "s3://b/u");
  EXPECT_TRUE(client_.GetPendingCommits("s3://b/t", 0).ok());
  EXPECT_FALSE(client_.GetPendingCommits("s3://b/u", 0).ok());
  EXPECT_THAT(
      base_.pending_queries(),
      ElementsAre(RecordingCommitServiceClient::PendingQuery{"s3://b/t", 0}));
}

TEST_F(FaultCommitServiceClientTest, FreezeHoldsACommitUntilReleased) {
  const auto rule = client_.FreezeNthCall(CommitServiceClientOp::kCommit, 1);
  ServiceCommitResult result;
  result.status = InternalError("not run");
  std::thread writer([&] { result = client_.Commit(Request("s3://b/t", 0)); });
  ASSERT_TRUE(client_.WaitUntilFrozen(rule));
  EXPECT_TRUE(base_.commits().empty());
  client_.Release(rule);
  writer.join();
  EXPECT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_EQ(base_.commits().size(), 1u);
}

TEST_F(FaultCommitServiceClientTest, DelayAndCountersByKind) {
  client_.DelayEveryCall(CommitServiceClientOp::kGetPendingCommits, 5ms);
  client_.GetPendingCommits("s3://b/t", 0).status().IgnoreError();
  client_.GetPendingCommits("s3://b/t", 1).status().IgnoreError();
  client_.Commit(Request("s3://b/t", 0)).status.IgnoreError();
  EXPECT_THAT(sleeper_.sleeps(), ElementsAre(5ms, 5ms));
  EXPECT_EQ(client_.CallCount(CommitServiceClientOp::kGetPendingCommits), 2);
  EXPECT_EQ(client_.CallCount(CommitServiceClientOp::kCommit), 1);
  EXPECT_EQ(client_.TotalCallCount(), 3);
}

TEST(CommitServiceClientOpNameTest, NamesEveryKind) {
  EXPECT_EQ(CommitServiceClientOpName(CommitServiceClientOp::kCommit),
            "Commit");
  EXPECT_EQ(
      CommitServiceClientOpName(CommitServiceClientOp::kGetPendingCommits),
      "GetPendingCommits");
}

}  // namespace
}  // namespace deltacommit
