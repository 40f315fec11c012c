// GET /v1/tables/{table}/commits through the client: the request, the
// answer's checks, errors and retries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/testing/client/service_test_fixture.h"
#include "deltacommit/log_path.h"

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

TEST_F(PendingCommitsTest, MalformedAnswersAreRefusedNamingWhatIsWrong) {
  const std::string staged3 = StagedCommitPath(3, kUuid);
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "latest_version"},
      {R"({"latest_version": "3", "commits": []})", "latest_version"},
      {R"({"latest_version": -2, "commits": []})", "below -1"},
      {R"({"latest_version": 3, "commits": [{"version": 3}]})", "staged_file"},
      {R"({"latest_version": 3, "commits": [{"version": 3, "staged_file": "_delta_log/00000000000000000003.json"}]})",
       "is not _delta_log/_staged_commits/"},
      {R"({"latest_version": 3, "commits": [{"version": 2, "staged_file": ")" + staged3 + "\"}]}",
       "is not _delta_log/_staged_commits/"},
      {R"({"latest_version": 2, "commits": [{"version": 3, "staged_file": ")" + staged3 + "\"}]}",
       "out of order or outside"},
      {R"({"latest_version": 3, "commits": [{"version": 0, "staged_file": ")" +
           StagedCommitPath(0, kUuid) + "\"}]}",
       "out of order or outside"},
  };
  auto client = MakeClient();
  for (const auto& [body, why] : cases) {
    service_.ScriptPending(AnswerJson(body));
    auto pending = client->GetPendingCommits(kTable, 1);
    EXPECT_EQ(pending.status().code(), StatusCode::kInternal) << body;
    EXPECT_THAT(pending.status().message(), HasSubstr("malformed")) << body;
    EXPECT_THAT(pending.status().message(), HasSubstr(why)) << body;
  }
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
