#include "service/commits/commit_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/log_path.h"
#include "deltacommit/testing/fake_clock.h"
#include "service/commits/testing/commit_requests.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kTable[] = "s3://bucket/t";

TEST(CheckCommitContentTest, AcceptsKnownActionsAndHashesTheExactBytes) {
  const std::string content = testing::CommitActions("a", 1234);
  StatusOr<CheckedCommit> checked = CheckCommitContent(kTable, content, {});
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->content_sha256, aws::Sha256Hex(content));
  EXPECT_EQ(checked->size, static_cast<int64_t>(content.size()));
  EXPECT_EQ(checked->commit_timestamp_ms, 1234);
}

TEST(CheckCommitContentTest, AcceptsCrLfAndAMissingFinalNewline) {
  std::string content = testing::CommitActions("a");
  content.pop_back();
  EXPECT_TRUE(CheckCommitContent(kTable, content, {}).ok());
  const std::string crlf = "{\"commitInfo\":{\"timestamp\":5}}\r\n{\"txn\":{\"appId\":\"x\",\"version\":1}}\r\n";
  StatusOr<CheckedCommit> checked = CheckCommitContent(kTable, crlf, {});
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->commit_timestamp_ms, 5);
}

TEST(CheckCommitContentTest, RefusesBadContentNamingTheLine) {
  const std::string info = "{\"commitInfo\":{\"timestamp\":1}}\n";
  const struct {
    std::string content;
    const char* expected;
  } cases[] = {
      {"", "empty"},
      {info + "{\"futureThing\":{\"x\":1}}\n", "line 2: unknown action \"futureThing\""},
      {info + "\n{\"txn\":{\"appId\":\"x\",\"version\":1}}\n", "line 2: empty line"},
      {info + "not json\n", "line 2"},
      {info + info, "line 2: a second \"commitInfo\""},
      {info + "{\"sidecar\":{\"path\":\"x.parquet\",\"sizeInBytes\":1,\"modificationTime\":1}}",
       "belongs in checkpoints"},
      {info + "{\"add\":{\"path\":\"../x.parquet\",\"partitionValues\":{},\"size\":1,"
              "\"modificationTime\":1,\"dataChange\":true}}",
       "line 2: add.path \"../x.parquet\""},
      {info + "{\"remove\":{\"path\":\"s3://other/x.parquet\",\"dataChange\":true}}",
       "outside the table"},
      {info + "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n{\"txn\":{\"appId\":\"a\",\"version\":2}}",
       "line 3: a second txn for appId \"a\""},
  };
  for (const auto& c : cases) {
    StatusOr<CheckedCommit> checked = CheckCommitContent(kTable, c.content, {});
    ASSERT_FALSE(checked.ok()) << c.content;
    EXPECT_EQ(checked.status().code(), StatusCode::kInvalidArgument) << c.content;
    EXPECT_THAT(checked.status().message(), HasSubstr(c.expected));
  }
}

TEST(CheckCommitContentTest, CollectsTheTxnsToRecord) {
  StatusOr<CheckedCommit> checked = CheckCommitContent(
      kTable,
      "{\"txn\":{\"appId\":\"a\",\"version\":3}}\n{\"txn\":{\"appId\":\"b\",\"version\":1}}\n",
      {});
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->app_txns, (std::vector<AppTxn>{{"a", 3}, {"b", 1}}));
}

TEST(CheckCommitContentTest, OverTheLimitsIsResourceExhaustedNamingTheLimit) {
  const std::string content = testing::CommitActions("a");
  CommitLimits small;
  small.max_commit_bytes = 10;
  StatusOr<CheckedCommit> checked = CheckCommitContent(kTable, content, small);
  EXPECT_EQ(checked.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(checked.status().message(), HasSubstr("limit of 10 bytes"));
  CommitLimits one_action;
  one_action.max_actions = 1;
  checked = CheckCommitContent(kTable, content, one_action);
  EXPECT_EQ(checked.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(checked.status().message(), HasSubstr("more than 1 actions"));
}

TEST(CheckStagedFileNameTest, AcceptsOnlyAStagedCommitOfTheVersion) {
  const std::string uuid = NewUuid();
  EXPECT_TRUE(CheckStagedFileName(StagedCommitPath(7, uuid), 7).ok());
  for (const std::string& bad :
       {StagedCommitPath(8, uuid), CommitPath(7), "_delta_log/_staged_commits/7." + uuid + ".json",
        "../" + StagedCommitPath(7, uuid), "x/" + StagedCommitPath(7, uuid),
        std::string("_delta_log/_staged_commits/00000000000000000007.not-a-uuid.json")}) {
    Status status = CheckStagedFileName(bad, 7);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr(bad), HasSubstr("_staged_commits/00000000000000000007.<uuid>.json")));
  }
}

TEST(CheckRequestCredentialsTest, MissingOrExpiredCredentialsSayWhatAndWhen) {
  FakeClock clock;
  aws::Credentials c = testing::TestCredentials(clock);
  EXPECT_TRUE(CheckRequestCredentials(c, clock.NowMillis(), 10'000).ok());

  aws::Credentials no_secret = c;
  no_secret.secret_access_key.clear();
  EXPECT_THAT(CheckRequestCredentials(no_secret, clock.NowMillis(), 0).message(),
              HasSubstr("missing an access key id or a secret"));
  aws::Credentials no_expiry = c;
  no_expiry.expiration_ms.reset();
  EXPECT_THAT(CheckRequestCredentials(no_expiry, clock.NowMillis(), 0).message(),
              HasSubstr("no expiration"));

  aws::Credentials expired = c;
  expired.expiration_ms = FakeClock::kDefaultStartMillis - 60'000;
  Status status = CheckRequestCredentials(expired, clock.NowMillis(), 0);
  EXPECT_EQ(status.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("expired at 2023-11-14T22:12:20Z"), HasSubstr("UTC"),
                    HasSubstr("obtain fresh temporary credentials"), HasSubstr("AKIA"),
                    Not(HasSubstr(testing::kTestSecret)), Not(HasSubstr(testing::kTestSessionToken)),
                    Not(HasSubstr(testing::kTestKeyId))));

  aws::Credentials almost = c;
  almost.expiration_ms = clock.NowMillis() + 2'000;
  EXPECT_THAT(CheckRequestCredentials(almost, clock.NowMillis(), 10'000).message(),
              AllOf(HasSubstr("expire at"), HasSubstr("less than 10 s left")));
}

}  // namespace
}  // namespace deltacommit::service
