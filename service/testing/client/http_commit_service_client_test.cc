// The commit service client against a real local HTTP server: what it sends,
// and how each answer of the API (docs/api.md) becomes a Status.
#include "deltacommit/service_client/http_commit_service_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/log_path.h"
#include "service/testing/client/service_test_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kUuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";
constexpr std::string_view kActions = "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n";

ServiceCommitRequest Inline(Version version, std::string actions = std::string(kActions)) {
  ServiceCommitRequest r;
  r.table = std::string(kTable);
  r.version = version;
  r.actions = std::move(actions);
  return r;
}

// Answers every commit with `answer`.
ScriptedCommitService::Script Always(http::Response answer) {
  return [answer](const http::Request&) { return std::optional<http::Response>(answer); };
}

using ClientTest = ServiceFixture;

TEST_F(ClientTest, SendsTheActionsTokenCredentialsAndEndpoint) {
  auto client = MakeClient("eu-minio");
  ServiceCommitResult result = client->Commit(Inline(0));
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_TRUE(result.published);
  ASSERT_EQ(service_.requests().size(), 1u);
  const RecordedRequest sent = service_.requests()[0];
  EXPECT_EQ(sent.target, "/v1/commits");
  EXPECT_EQ(sent.authorization, "Bearer " + std::string(ScriptedCommitService::kToken));
  nlohmann::json body = Body(sent);
  EXPECT_EQ(body["table"], kTable);
  EXPECT_EQ(body["version"], 0);
  EXPECT_EQ(body["actions"], kActions);
  EXPECT_FALSE(body.contains("staged_file"));
  EXPECT_EQ(body["endpoint"], "eu-minio");
  const nlohmann::json& creds = body["credentials"];
  EXPECT_EQ(creds["access_key_id"], "ASIAEXAMPLEKEY123456");
  EXPECT_EQ(creds["secret_access_key"], kSecretKey);
  EXPECT_EQ(creds["session_token"], kSessionToken);
  EXPECT_EQ(creds["expiration"], aws::internal::FormatUtc(Credentials().expiration_ms.value()));
  EXPECT_EQ(store_.Get(CommitPath(0)).value(), kActions);
}

TEST_F(ClientTest, StagedFileInsteadOfActionsAndNoEndpointUnlessNamed) {
  auto client = MakeClient();
  const std::string staged = StagedCommitPath(0, kUuid);
  ASSERT_TRUE(store_.Put(staged, kActions).ok());
  ServiceCommitRequest request;
  request.table = std::string(kTable);
  request.version = 0;
  request.staged_file = staged;
  ServiceCommitResult result = client->Commit(request);
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
  EXPECT_FALSE(result.published);
  nlohmann::json body = Body(service_.requests().at(0));
  EXPECT_EQ(body["staged_file"], staged);
  EXPECT_FALSE(body.contains("actions"));
  EXPECT_FALSE(body.contains("endpoint"));
}

TEST_F(ClientTest, LongTermKeysAreSentWithoutSessionTokenOrExpiration) {
  auto client = MakeClient();
  aws::Credentials keys = Credentials();
  keys.session_token.clear();
  keys.expiration_ms.reset();
  ASSERT_TRUE(client->CommitWithCredentials(Inline(0), keys).status.ok());
  nlohmann::json creds = Body(service_.requests().at(0))["credentials"];
  EXPECT_FALSE(creds.contains("session_token"));
  EXPECT_FALSE(creds.contains("expiration"));
}

// A local table is written by the service as its own user: the client
// neither asks its provider (whose credentials have expired here) nor sends
// a "credentials" field.
TEST_F(ClientTest, LocalTablesGetNoCredentials) {
  auto client = MakeClient();
  clock_.Advance(std::chrono::hours(2));
  service_.ScriptCommits(Always(http::Response::Json(200, "{\"version\":0,\"published\":true}")));
  ServiceCommitRequest local = Inline(0);
  local.table = "file:///srv/tables/events";
  ServiceCommitResult result = client->Commit(local);
  ASSERT_TRUE(result.status.ok()) << result.status.ToString();
  nlohmann::json body = Body(service_.requests().at(0));
  EXPECT_EQ(body["table"], "file:///srv/tables/events");
  EXPECT_FALSE(body.contains("credentials"));
  EXPECT_EQ(client->Commit(Inline(0)).status.code(), StatusCode::kUnauthenticated)
      << "an S3 table still needs its credentials";
}

TEST_F(ClientTest, MalformedRequestsAreRefusedBeforeSending) {
  auto client = MakeClient();
  ServiceCommitRequest both = Inline(1);
  both.staged_file = StagedCommitPath(1, kUuid);
  ServiceCommitRequest neither = Inline(1, "");
  EXPECT_EQ(client->Commit(both).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client->Commit(neither).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client->Commit(Inline(-1)).status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(service_.requests().size(), 0u);
}

TEST_F(ClientTest, ExpiredCredentialsAreRefusedBeforeSending) {
  auto client = MakeClient();
  aws::Credentials expired = Credentials();
  expired.expiration_ms = clock_.NowMillis() - 1000;
  ServiceCommitResult result = client->CommitWithCredentials(Inline(0), expired);
  EXPECT_EQ(result.status.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(result.status.message(), HasSubstr("expired"));
  EXPECT_THAT(result.status.message(), HasSubstr("test credentials"));
  // And through the provider, once the fake clock has passed their expiry.
  clock_.Advance(std::chrono::hours(2));
  result = client->Commit(Inline(0));
  EXPECT_EQ(result.status.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(result.status.message(), HasSubstr("expired"));
  EXPECT_EQ(service_.requests().size(), 0u);
}

// One row of the API's answer table.
struct AnswerCase {
  int http_status;
  std::string code;
  std::string message;
  StatusCode want;
  std::optional<Version> latest_version;
  std::string reason = {};  // 424's "reason"
};

class AnswerTest : public ServiceFixture, public ::testing::WithParamInterface<AnswerCase> {};

TEST_P(AnswerTest, MapsToItsStatusWithTheServersMessage) {
  const AnswerCase& c = GetParam();
  service_.ScriptCommits(
      Always(ApiError(c.http_status, c.code, c.message, c.latest_version, c.reason)));
  auto client = MakeClient();
  ServiceCommitResult result = client->Commit(Inline(3));
  EXPECT_EQ(result.status.code(), c.want) << result.status.ToString();
  EXPECT_THAT(result.status.message(), HasSubstr(c.message));
  EXPECT_THAT(result.status.message(), HasSubstr("version 3 of " + std::string(kTable)));
  EXPECT_THAT(result.status.message(), HasSubstr(service_.url()));
  EXPECT_EQ(result.latest_version, c.http_status == 409 ? c.latest_version : std::nullopt);
  // Refusals are final: sent once. Only 503 (and a plain 500) is retried;
  // log_inconsistent is final.
  const size_t want_sends = c.http_status == 503 ? 4u : 1u;
  EXPECT_EQ(service_.CountRequests("POST"), want_sends);
}

INSTANTIATE_TEST_SUITE_P(
    ApiTable, AnswerTest,
    ::testing::Values(
        AnswerCase{400, "bad_request", "unknown field \"acions\"", StatusCode::kInvalidArgument,
                   std::nullopt},
        AnswerCase{401, "unauthenticated", "no or unknown bearer token",
                   StatusCode::kUnauthenticated, std::nullopt},
        AnswerCase{403, "forbidden", "token etl may not commit to s3://bucket/events",
                   StatusCode::kPermissionDenied, std::nullopt},
        AnswerCase{409, "version_taken", "version 3 is taken", StatusCode::kAlreadyExists, 9},
        AnswerCase{409, "version_ahead", "version 3 is not latest+1",
                   StatusCode::kFailedPrecondition, 1},
        AnswerCase{413, "too_large", "body over 8388608 bytes", StatusCode::kInvalidArgument,
                   std::nullopt},
        AnswerCase{422, "credentials_invalid", "credentials expired at 2026-11-29T23:00:00Z",
                   StatusCode::kUnauthenticated, std::nullopt},
        AnswerCase{424, "credentials_rejected",
                   "S3 AccessDenied: PutObject on s3://bucket/events/_delta_log/",
                   StatusCode::kPermissionDenied, std::nullopt, "access_denied"},
        AnswerCase{424, "credentials_rejected", "S3 InvalidAccessKeyId: unknown access key",
                   StatusCode::kUnauthenticated, std::nullopt, "invalid_credentials"},
        AnswerCase{424, "credentials_rejected", "S3 ExpiredToken: the session token expired",
                   StatusCode::kUnauthenticated, std::nullopt, "invalid_credentials"},
        // The reason decides, not the words of the message.
        AnswerCase{424, "credentials_rejected", "S3 refused: AccessDenied was not the cause",
                   StatusCode::kUnauthenticated, std::nullopt, "invalid_credentials"},
        AnswerCase{500, "log_inconsistent",
                   "version 4 of s3://bucket/events: _delta_log/00000000000000000004.json has "
                   "other bytes than the ratified commit",
                   StatusCode::kDataLoss, std::nullopt},
        AnswerCase{503, "unavailable", "state store unreachable", StatusCode::kUnavailable,
                   std::nullopt}),
    [](const ::testing::TestParamInfo<AnswerCase>& param) {
      return std::to_string(param.param.http_status) + "_" + std::to_string(param.index);
    });

TEST_F(ClientTest, A424SaysWhetherTheCredentialsAreInvalidOrLackAPermission) {
  auto client = MakeClient();
  service_.ScriptCommits(Always(ApiError(424, "credentials_rejected", "S3 InvalidAccessKeyId",
                                         std::nullopt, "invalid_credentials")));
  const std::string invalid = client->Commit(Inline(3)).status.message();
  EXPECT_THAT(invalid, HasSubstr("S3 did not accept the writer's AWS credentials"));
  EXPECT_THAT(invalid, HasSubstr("invalid or expired session token"));
  EXPECT_THAT(invalid, Not(HasSubstr("grant them access")));

  service_.ScriptCommits(Always(ApiError(424, "credentials_rejected", "S3 AccessDenied",
                                         std::nullopt, "access_denied")));
  const std::string denied = client->Commit(Inline(3)).status.message();
  EXPECT_THAT(denied, HasSubstr("they lack a permission: grant them access to the table's "
                                "_delta_log/"));
  EXPECT_THAT(denied, Not(HasSubstr("refresh them")));
}

TEST_F(ClientTest, TheModelsVersionTakenCarriesTheLatestVersion) {
  auto client = MakeClient();
  ASSERT_TRUE(client->Commit(Inline(0)).status.ok());
  ASSERT_TRUE(client->Commit(Inline(1)).status.ok());
  ServiceCommitResult taken = client->Commit(Inline(1, "{\"commitInfo\":{}}\n"));
  EXPECT_EQ(taken.status.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(taken.latest_version, 1);
  ServiceCommitResult ahead = client->Commit(Inline(5));
  EXPECT_EQ(ahead.status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ahead.latest_version, 1);
  // The same content again is the service's idempotent success.
  EXPECT_TRUE(client->Commit(Inline(1)).status.ok());
}

TEST_F(ClientTest, AnErrorBodyThatIsNotTheApisIsQuotedShortAndEscaped) {
  http::Response html;
  html.status = 400;
  html.headers = {{"Content-Type", "text/html"}};
  html.body = "<html>\n<body>Bad Request from proxy</body></html>";
  service_.ScriptCommits(Always(html));
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("not the API's error body"));
  EXPECT_THAT(st.message(), HasSubstr("<html>\\x0a<body>Bad Request from proxy"));
}

TEST_F(ClientTest, A200ThatIsNotTheApisAnswerIsAnUnknownOutcome) {
  // Something answered 200 (a proxy's page?): the commit may or may not be in.
  service_.ScriptCommits(Always(http::Response::Json(200, "{\"ok\":true}")));
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kUnknownOutcome);
  EXPECT_THAT(st.message(), HasSubstr("malformed"));
  service_.ScriptCommits(Always(http::Response::Json(200, "{\"version\":2,\"published\":true}")));
  st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_THAT(st.message(), HasSubstr("answered version 2"));
}

TEST_F(ClientTest, SecretsTheServiceEchoesAreRedacted) {
  // A broken server or proxy that echoes the request into its error.
  service_.ScriptCommits([](const http::Request& r) {
    return std::optional<http::Response>(
        ApiError(400, "bad_request", "cannot parse " + r.body + " with " +
                                         std::string(r.Header("Authorization").value_or(""))));
  });
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("[REDACTED]"));
  EXPECT_THAT(st.message(), Not(HasSubstr(kSecretKey)));
  EXPECT_THAT(st.message(), Not(HasSubstr(kSessionToken)));
  EXPECT_THAT(st.message(), Not(HasSubstr(ScriptedCommitService::kToken)));
}

TEST_F(ClientTest, NotACommitServiceSaysSo) {
  service_.ScriptCommits(Always(ApiError(404, "not_found", "no route")));
  auto client = MakeClient();
  Status st = client->Commit(Inline(1)).status;
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("is --service-url the address of a deltacommit"));
}

}  // namespace
}  // namespace deltacommit::testing
