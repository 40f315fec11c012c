// The API contract of `deltacommit serve` (docs/api.md) against the real
// process on RGW: each answer's status, error code and message, and, for
// every refusal, that nothing reached the table's prefix in S3.
#include <thread>

#include "common/s3_test_bucket.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using nlohmann::json;

TEST_F(ServeApiTest, CommitLandsWithTheExactBytesAndReplaysAreIdempotent) {
  const std::string actions = FirstActions("a");
  aws::HttpResponse first = Post(Commit(0, actions));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(json::parse(first.body), json({{"version", 0}, {"published", true}}));
  EXPECT_EQ(Read(CommitPath(0)), actions);

  // The same commit again (a lost reply): the same answer, nothing new.
  aws::HttpResponse replay = Post(Commit(0, actions));
  EXPECT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(json::parse(replay.body)["version"], 0);

  aws::HttpResponse taken = Post(Commit(0, FirstActions("b")));
  EXPECT_EQ(taken.status, 409);
  EXPECT_EQ(ErrorOf(taken)["code"], "version_taken");
  EXPECT_EQ(ErrorOf(taken)["latest_version"], 0);

  aws::HttpResponse ahead = Post(Commit(2, Actions("c")));
  EXPECT_EQ(ahead.status, 409);
  EXPECT_EQ(ErrorOf(ahead)["code"], "version_ahead");
  EXPECT_EQ(ErrorOf(ahead)["latest_version"], 0);

  std::vector<std::string> keys = Keys();
  ASSERT_THAT(keys, SizeIs(1)) << "the commit, nothing else (its staged copy is deleted)";
  EXPECT_EQ(keys[0], CommitPath(0));
  EXPECT_EQ(Read(CommitPath(0)), actions);
}

TEST_F(ServeApiTest, CoordinatedCommitIsListedUntilPublished) {
  ASSERT_EQ(Post(Commit(0, FirstActions("a"))).status, 200);
  const std::string staged = StagedCommitPath(1, NewUuid());
  ASSERT_TRUE(s3_.store->Put(staged, Actions("b")).ok());
  json body = Commit(1, "");
  body.erase("actions");
  body["staged_file"] = staged;
  aws::HttpResponse answer = Post(body);
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(json::parse(answer.body), json({{"version", 1}, {"published", false}}));
  // Listed while unpublished; the background publisher then writes 1.json.
  const std::string path = PendingPath(table_, 0);
  for (int i = 0; i < 300 && Read(CommitPath(1)) != Actions("b"); ++i) {
    aws::HttpResponse list = Send("GET", path, "", writer_token_);
    ASSERT_EQ(list.status, 200) << list.body;
    json listed = json::parse(list.body);
    EXPECT_EQ(listed["latest_version"], 1);
    EXPECT_EQ(listed["table"], table_);
    for (const json& commit : listed["commits"]) {
      EXPECT_EQ(commit["version"], 1);
      EXPECT_EQ(commit["staged_file"], staged);
      EXPECT_EQ(commit["size"], Actions("b").size());
      EXPECT_EQ(commit["commit_timestamp"], 1700000000000);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Read(CommitPath(1)), Actions("b"));
}

TEST_F(ServeApiTest, MissingOrUnknownTokenIs401) {
  aws::HttpResponse none = Send("POST", "/v1/commits", Commit(0, FirstActions("a")).dump(), "");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(ErrorOf(none)["code"], "unauthenticated");
  EXPECT_EQ(none.Header("www-authenticate"), "Bearer realm=\"deltacommit\"");
  aws::HttpResponse unknown =
      Send("POST", "/v1/commits", Commit(0, FirstActions("a")).dump(), "no-such-token");
  EXPECT_EQ(unknown.status, 401);
  EXPECT_THAT(MessageOf(unknown), HasSubstr("unknown bearer token"));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, TokenWithoutTheTablePrefixIs403) {
  aws::HttpResponse answer = Send("POST", "/v1/commits", Commit(0, FirstActions("a")).dump(),
                                  other_token_);
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(ErrorOf(answer)["code"], "forbidden");
  EXPECT_THAT(MessageOf(answer), AllOf(HasSubstr("\"other\""), HasSubstr(table_),
                                       HasSubstr("commit"), Not(HasSubstr(other_token_))));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, EndpointNotOnTheAllowlistIs403NamingIt) {
  json body = Commit(0, FirstActions("a"));
  body["endpoint"] = "attacker-minio";
  aws::HttpResponse answer = Post(body);
  EXPECT_EQ(answer.status, 403);
  EXPECT_THAT(MessageOf(answer),
              AllOf(HasSubstr("\"attacker-minio\" is not on this service's allowlist"),
                    HasSubstr("allowed: rgw")));
  EXPECT_THAT(Keys(), IsEmpty());
  body["endpoint"] = "rgw";
  EXPECT_EQ(Post(body).status, 200);
  EXPECT_EQ(Read(CommitPath(0)), FirstActions("a"));
}

TEST_F(ServeApiTest, OversizedBodyAndCommitAre413) {
  json body = Commit(0, std::string(70'000, 'x'));
  aws::HttpResponse answer = Post(body);
  EXPECT_EQ(answer.status, 413);
  EXPECT_EQ(ErrorOf(answer)["code"], "too_large");
  // Within the body limit, over [commits] max_commit_bytes.
  std::string big = Actions("first");
  for (int i = 0; big.size() < 40'000; ++i) big += AddAction(std::to_string(i));
  aws::HttpResponse commit = Post(Commit(0, big));
  EXPECT_EQ(commit.status, 413) << commit.body;
  EXPECT_EQ(ErrorOf(commit)["code"], "too_large");
  EXPECT_THAT(MessageOf(commit), HasSubstr("32768"));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, PathTraversalIs400) {
  json table = Commit(0, FirstActions("a"));
  table["table"] = table_ + "/../x";
  aws::HttpResponse answer = Post(table);
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(ErrorOf(answer)["code"], "bad_request");
  EXPECT_THAT(MessageOf(answer), HasSubstr(".."));

  json staged = Commit(0, "");
  staged.erase("actions");
  staged["staged_file"] = "_delta_log/_staged_commits/../../../escape.json";
  EXPECT_EQ(Post(staged).status, 400);

  const std::string outside =
      "{\"add\":{\"path\":\"../other-table/part-0.parquet\",\"partitionValues\":{},"
      "\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n";
  aws::HttpResponse add = Post(Commit(0, outside));
  EXPECT_EQ(add.status, 400) << add.body;
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, MalformedJsonIs400) {
  aws::HttpResponse answer = Send("POST", "/v1/commits", "{\"table\": \"s3://", writer_token_);
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(ErrorOf(answer)["code"], "bad_request");
  EXPECT_THAT(MessageOf(answer), HasSubstr("not valid JSON"));
  json unknown = Commit(0, FirstActions("a"));
  unknown["stagedFile"] = "x";
  EXPECT_THAT(MessageOf(Post(unknown)), HasSubstr("unknown field \"stagedFile\""));
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, ExpiredCredentialsAre422NamingTheExpiry) {
  json body = Commit(0, FirstActions("a"));
  body["credentials"]["expiration"] = "2024-01-02T03:04:05Z";
  aws::HttpResponse answer = Post(body);
  EXPECT_EQ(answer.status, 422);
  EXPECT_EQ(ErrorOf(answer)["code"], "credentials_invalid");
  EXPECT_THAT(MessageOf(answer), HasSubstr("expired at 2024-01-02T03:04:05Z"));
  // Valid for less than the 10 s the service needs.
  body["credentials"]["expiration"] = aws::internal::FormatUtc(SystemClock().NowMillis() + 3000);
  EXPECT_EQ(Post(body).status, 422);
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, WrongSecretIs424NamingSignatureDoesNotMatch) {
  const std::string wrong = "WRONGsecretWRONGsecretWRONGsecret0123456";
  aws::HttpResponse answer = Post(Commit(0, FirstActions("a"), wrong));
  EXPECT_EQ(answer.status, 424);
  EXPECT_EQ(ErrorOf(answer)["code"], "credentials_rejected");
  EXPECT_THAT(MessageOf(answer), AllOf(HasSubstr("SignatureDoesNotMatch"), Not(HasSubstr(wrong))));
  EXPECT_EQ(ErrorOf(answer)["reason"], "invalid_credentials");
  EXPECT_THAT(Keys(), IsEmpty());
}

TEST_F(ServeApiTest, AccessDeniedIs424WithItsReasonNamingTheActionAndResource) {
  // A bucket whose policy denies PutObject: the credentials are good, they
  // lack a permission.
  S3TestBucket bucket("dc-serve-denied");
  bucket.Deny("s3:PutObject");
  const std::string table = "s3://" + bucket.name() + "/t";
  const std::string token = "denied-" + NewUuid();
  serve_.reset();
  StartServe("[[token]]\nname = \"denied\"\nsha256 = \"" + service::HashToken(token) +
             "\"\ntables = [\"" + table + "\"]\nactions = [\"commit\"]\n");
  json body = Commit(0, FirstActions("a"));
  body["table"] = table;
  aws::HttpResponse answer = Send("POST", "/v1/commits", body.dump(), token);
  EXPECT_EQ(answer.status, 424) << answer.body;
  EXPECT_EQ(ErrorOf(answer)["code"], "credentials_rejected");
  EXPECT_EQ(ErrorOf(answer)["reason"], "access_denied");
  EXPECT_THAT(MessageOf(answer),
              AllOf(HasSubstr("AccessDenied"), HasSubstr("PutObject"),
                    HasSubstr("s3://" + bucket.name() + "/t/_delta_log/_staged_commits/")));
  auto left = bucket.store().List("");
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_THAT(*left, IsEmpty());
}

TEST_F(ServeApiTest, HealthReadinessAndMetricsNeedNoToken) {
  EXPECT_EQ(Send("GET", "/healthz", "", "").status, 200);
  EXPECT_EQ(Send("GET", "/readyz", "", "").body, R"({"status":"ready"})");
  ASSERT_EQ(Post(Commit(0, FirstActions("a"))).status, 200);
  Post(Commit(0, FirstActions("b")));
  Post(Commit(1, Actions("c"), "WRONGsecretWRONGsecretWRONGsecret0123456"));
  aws::HttpResponse metrics = Send("GET", "/metrics", "", "");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.Header("content-type"), HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(metrics.body,
              AllOf(HasSubstr(R"(deltacommit_commits_total{mode="service",outcome="ok"} 1)"),
                    HasSubstr(R"(deltacommit_commits_total{mode="service",)"
                              R"(outcome="version_taken"} 1)"),
                    HasSubstr(R"(deltacommit_commit_conflicts_total{mode="service",)"
                              R"(reason="version_taken"} 1)"),
                    HasSubstr(R"(code="SignatureDoesNotMatch"} 1)"),
                    HasSubstr(R"(deltacommit_publishes_total{by="request"} 1)"),
                    HasSubstr(R"(deltacommit_commit_duration_seconds_count{mode="service"} 3)"),
                    HasSubstr("deltacommit_commits_in_flight 0")));
}

}  // namespace
}  // namespace deltacommit::testing
