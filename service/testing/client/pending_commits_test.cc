// GET /v1/tables/{table}/commits through the client: the request, the
// answer's checks, errors and retries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/log_path.h"
#include "service/testing/client/service_test_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kUuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";

ScriptedCommitService::Script AnswerJson(std::string body) {
  return [body](const http::Request&) {
    return std::optional<http::Response>(http::Response::Json(200, body));
  };
}

using PendingCommitsTest = ServiceFixture;

TEST_F(PendingCommitsTest, AsksWithTheTableAsOneEncodedSegmentAndTheToken) {
  const std::string staged = StagedCommitPath(2, kUuid);
  ASSERT_TRUE(store_.Put(CommitPath(0), "{}\n").ok());
  ASSERT_TRUE(store_.Put(staged, "{}\n").ok());
  ASSERT_TRUE(store_.Put(StagedCommitPath(1, kUuid), "{}\n").ok());
  ASSERT_TRUE(service_.Ratify(1, StagedCommitPath(1, kUuid)).ok());
  ASSERT_TRUE(service_.Ratify(2, staged).ok());
  ASSERT_TRUE(service_.Publish(1).ok());
  auto client = MakeClient();
  auto pending = client->GetPendingCommits(kTable, 1);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->latest_version, 2);
  ASSERT_EQ(pending->commits.size(), 1u);
  EXPECT_EQ(pending->commits[0].version, 2);
  EXPECT_EQ(pending->commits[0].staged_file, staged);
  EXPECT_EQ(pending->commits[0].size, 3);
  const RecordedRequest sent = service_.requests().at(0);
  EXPECT_EQ(sent.method, "GET");
  EXPECT_EQ(sent.target, "/v1/tables/s3%3A%2F%2Fbucket%2Fevents/commits?start=1");
  EXPECT_EQ(sent.authorization, "Bearer " + std::string(ScriptedCommitService::kToken));
}

TEST_F(PendingCommitsTest, ATableTheServiceDoesNotKnowHasLatestMinusOne) {
  auto pending = MakeClient()->GetPendingCommits(kTable, 0);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(pending->latest_version, -1);
  EXPECT_TRUE(pending->commits.empty());
}

// Which answers are malformed is service_wire's (answers_test.cc); the
// client refuses them as kInternal with the reason.
TEST_F(PendingCommitsTest, AMalformedAnswerIsRefusedNamingWhatIsWrong) {
  service_.ScriptPending(AnswerJson(R"({"latest_version": -2, "commits": []})"));
  auto pending = MakeClient()->GetPendingCommits(kTable, 1);
  EXPECT_EQ(pending.status().code(), StatusCode::kInternal);
  EXPECT_THAT(pending.status().message(), HasSubstr("malformed"));
  EXPECT_THAT(pending.status().message(), HasSubstr("below -1"));
  EXPECT_THAT(pending.status().message(), HasSubstr("pending commits of " + std::string(kTable)));
}

TEST_F(PendingCommitsTest, RefusalsAndOutagesMapLikeCommits) {
  auto client = MakeClient();
  service_.ScriptPending([](const http::Request&) {
    return std::optional<http::Response>(
        ApiError(403, "forbidden", "token dashboard may not read s3://bucket/events"));
  });
  auto denied = client->GetPendingCommits(kTable, 0);
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.status().message(), HasSubstr("may not read s3://bucket/events"));
  service_.ScriptPending([](const http::Request&) {
    return std::optional<http::Response>(ApiError(500, "internal", "oops"));
  });
  auto failed = client->GetPendingCommits(kTable, 0);
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(failed.status().message(), HasSubstr("after 4 attempts"));
  service_.Stop();
  auto down = client->GetPendingCommits(kTable, 0);
  EXPECT_EQ(down.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(down.status().message(), HasSubstr("could not connect"));
}

}  // namespace
}  // namespace deltacommit::testing
