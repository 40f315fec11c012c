// ServiceApi's handlers called directly (no sockets) over the real commit
// logic on MemoryObjectStores and a SQLite state store: the status codes,
// bodies, logs and metrics of docs/api.md. The same contract against a real
// `deltacommit serve` on RGW is tests/integration/serve_api_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contract/temp_dir.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/log_path.h"
#include "deltacommit/service_wire/commit_body.h"
#include "service/api/service_api.h"
#include "service/commits/testing/commit_requests.h"
#include "service/commits/testing/memory_store_factory.h"
#include "service/state/sqlite_state_store.h"

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;
using service_wire::CommitBody;
namespace st = service::testing;

constexpr char kWriterToken[] = "writer-token-0123456789";
constexpr char kReaderToken[] = "reader-token-0123456789";

std::string Config() {
  return R"([s3]
endpoint = "https://s3.example.internal"
[[s3.allowed_endpoint]]
name = "eu"
url = "https://eu.example.internal"
[[token]]
name = "writer"
sha256 = ")" + HashToken(kWriterToken) + R"("
tables = ["s3://bucket/data"]
actions = ["commit", "read"]
[[token]]
name = "reader"
sha256 = ")" + HashToken(kReaderToken) + R"("
tables = ["s3://bucket"]
actions = ["read"]
)";
}

class ServeHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = ParseServiceConfig(Config(), "test.toml");
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = *config;
    auto state = SqliteStateStore::Open({dir_.path() + "/state.db"});
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    state_ = std::move(state).value();
    CommitServiceOptions options;
    options.observer = &commit_metrics_;
    commits_ = std::make_unique<CommitService>(*state_, stores_, options);
    authenticator_ = std::make_unique<Authenticator>(config_.tokens);
    api_ = std::make_unique<ServiceApi>(ServiceApiDeps{&config_, authenticator_.get(),
                                                       commits_.get(), state_.get(),
                                                       &commit_metrics_, &metrics_, &logger_});
  }

  http::Request Post(const CommitBody& body, const std::string& token = kWriterToken) {
    http::Request request;
    request.method = "POST";
    request.route = "/v1/commits";
    request.request_id = "req-1";
    if (!token.empty()) request.headers.emplace_back("authorization", "Bearer " + token);
    request.body = service_wire::SerializeCommitBody(body);
    return request;
  }
  // As the client sends it, with the test credentials.
  CommitBody Commit(const std::string& table, Version version, const std::string& actions) {
    CommitBody body;
    body.table = table;
    body.version = version;
    body.actions = actions;
    body.credentials = service_wire::ToRequestCredentials(st::TestCredentials(SystemClock()));
    return body;
  }
  http::Request Get(const std::string& table_segment, const std::string& token,
                    http::HeaderList query = {}) {
    http::Request request;
    request.method = "GET";
    request.path_params["table"] = table_segment;
    request.query = std::move(query);
    request.headers.emplace_back("authorization", "Bearer " + token);
    return request;
  }
  static json ErrorOf(const http::Response& response) {
    return json::parse(response.body).at("error");
  }
  std::string Logs() {
    std::lock_guard<std::mutex> lock(mu_);
    return logs_;
  }

  TempDir dir_;
  ServiceConfig config_;
  std::unique_ptr<SqliteStateStore> state_;
  st::MemoryStoreFactory stores_{st::kTestSecret};
  http::Metrics metrics_;
  CommitMetrics commit_metrics_{metrics_};
  std::mutex mu_;
  std::string logs_;
  http::JsonLogger logger_{[this](std::string_view line) {
    std::lock_guard<std::mutex> lock(mu_);
    logs_ += line;
  }};
  std::unique_ptr<CommitService> commits_;
  std::unique_ptr<Authenticator> authenticator_;
  std::unique_ptr<ServiceApi> api_;
  const std::string table_ = "s3://bucket/data/t";
};

TEST_F(ServeHandlersTest, CommitThenReplayThenConflict) {
  http::Response first = api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("a"))));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(json::parse(first.body), json({{"version", 0}, {"published", true}}));
  EXPECT_EQ(*stores_.Memory(table_).Get(CommitPath(0)), st::FirstCommitActions("a"));

  http::Response replay = api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("a"))));
  EXPECT_EQ(replay.status, 200) << replay.body;

  http::Response taken = api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("b"))));
  EXPECT_EQ(taken.status, 409);
  EXPECT_EQ(ErrorOf(taken)["code"], "version_taken");
  EXPECT_EQ(ErrorOf(taken)["latest_version"], 0);

  http::Response ahead = api_->PostCommit(Post(Commit(table_, 5, st::CommitActions("c"))));
  EXPECT_EQ(ahead.status, 409);
  EXPECT_EQ(ErrorOf(ahead)["code"], "version_ahead");
  EXPECT_EQ(ErrorOf(ahead)["latest_version"], 0);

  const std::string metrics = api_->MetricsText({}).body;
  EXPECT_THAT(metrics, HasSubstr(R"(deltacommit_commits_total{mode="service",outcome="ok"} 2)"));
  EXPECT_THAT(metrics, HasSubstr(R"(deltacommit_commit_conflicts_total{mode="service",)"
                                 R"(reason="version_taken"} 1)"));
  EXPECT_THAT(metrics, HasSubstr(R"(deltacommit_publishes_total{by="request"} 1)"));
  EXPECT_THAT(metrics, HasSubstr("deltacommit_commits_in_flight 0"));
}

TEST_F(ServeHandlersTest, Unauthenticated) {
  http::Response none = api_->PostCommit(Post(Commit(table_, 0, "x"), ""));
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(ErrorOf(none)["code"], "unauthenticated");
  EXPECT_EQ(none.headers.back().first, "WWW-Authenticate");
  http::Response unknown = api_->PostCommit(Post(Commit(table_, 0, "x"), "nope-token"));
  EXPECT_EQ(unknown.status, 401);
  EXPECT_THAT(ErrorOf(unknown)["message"].get<std::string>(), HasSubstr("unknown bearer token"));
  EXPECT_EQ(api_->GetPendingCommits(Get(table_, "nope")).status, 401);
}

TEST_F(ServeHandlersTest, ForbiddenTableActionAndEndpoint) {
  http::Response other = api_->PostCommit(Post(Commit("s3://bucket/elsewhere", 0, "x")));
  EXPECT_EQ(other.status, 403);
  EXPECT_EQ(ErrorOf(other)["code"], "forbidden");
  std::string message = ErrorOf(other)["message"];
  EXPECT_THAT(message, HasSubstr("writer"));
  EXPECT_THAT(message, HasSubstr("s3://bucket/elsewhere"));

  http::Response read_only =
      api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("a")), kReaderToken));
  EXPECT_EQ(read_only.status, 403);
  EXPECT_THAT(ErrorOf(read_only)["message"].get<std::string>(), HasSubstr("commit"));

  CommitBody body = Commit(table_, 0, st::FirstCommitActions("a"));
  body.endpoint = "evil-host";
  http::Response endpoint = api_->PostCommit(Post(body));
  EXPECT_EQ(endpoint.status, 403);
  EXPECT_THAT(ErrorOf(endpoint)["message"].get<std::string>(),
              HasSubstr("S3 endpoint \"evil-host\" is not on this service's allowlist"));
  body.endpoint = "eu";
  EXPECT_EQ(api_->PostCommit(Post(body)).status, 200);
  EXPECT_EQ(stores_.Opens(), 1);  // only the allowed request reached a store
}

TEST_F(ServeHandlersTest, BadRequests) {
  http::Request malformed = Post(Commit(table_, 0, "x"));
  malformed.body = "{\"table\": ";
  EXPECT_EQ(api_->PostCommit(malformed).status, 400);
  http::Response traversal = api_->PostCommit(Post(Commit("s3://bucket/data/../x", 0, "x")));
  EXPECT_EQ(traversal.status, 400);
  EXPECT_EQ(ErrorOf(traversal)["code"], "bad_request");
  CommitBody staged = Commit(table_, 3, "");
  staged.actions.reset();
  staged.staged_file = "_delta_log/_staged_commits/../../../other/x.json";
  EXPECT_EQ(api_->PostCommit(Post(staged)).status, 400);
  http::Response outside = api_->PostCommit(Post(Commit(
      table_, 0, "{\"add\":{\"path\":\"../escape.parquet\",\"partitionValues\":{},\"size\":1,"
                 "\"modificationTime\":1,\"dataChange\":true}}\n")));
  EXPECT_EQ(outside.status, 400) << outside.body;
  EXPECT_EQ(stores_.Calls(), 0);
}

TEST_F(ServeHandlersTest, CredentialProblemsAre422) {
  CommitBody expired = Commit(table_, 0, st::FirstCommitActions("a"));
  expired.credentials->expiration = "2001-02-03T04:05:06Z";
  http::Response answer = api_->PostCommit(Post(expired));
  EXPECT_EQ(answer.status, 422);
  EXPECT_EQ(ErrorOf(answer)["code"], "credentials_invalid");
  EXPECT_THAT(ErrorOf(answer)["message"].get<std::string>(),
              HasSubstr("expired at 2001-02-03T04:05:06Z"));
  CommitBody malformed = Commit(table_, 0, st::FirstCommitActions("a"));
  malformed.credentials->expiration = "soon";
  EXPECT_EQ(api_->PostCommit(Post(malformed)).status, 422);
  CommitBody missing = Commit(table_, 0, st::FirstCommitActions("a"));
  missing.credentials->expiration.reset();
  EXPECT_EQ(api_->PostCommit(Post(missing)).status, 422);
  CommitBody wrong_secret = Commit(table_, 0, st::FirstCommitActions("a"));
  wrong_secret.credentials->secret_access_key = "not-the-secret";
  http::Response rejected = api_->PostCommit(Post(wrong_secret));
  EXPECT_EQ(rejected.status, 424) << rejected.body;
  EXPECT_EQ(ErrorOf(rejected)["code"], "credentials_rejected");
  EXPECT_EQ(ErrorOf(rejected)["reason"], "invalid_credentials");
}

TEST_F(ServeHandlersTest, PendingCommits) {
  ASSERT_EQ(api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("a")))).status, 200);
  http::Response list = api_->GetPendingCommits(Get(table_, kReaderToken, {{"start", "0"}}));
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(json::parse(list.body),
            json({{"table", table_}, {"latest_version", 0}, {"commits", json::array()}}));
  http::Response none = api_->GetPendingCommits(Get("s3a://bucket/data/new", kWriterToken));
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(json::parse(none.body)["latest_version"], -1);
  EXPECT_EQ(json::parse(none.body)["table"], "s3://bucket/data/new");
  EXPECT_EQ(api_->GetPendingCommits(Get(table_, kReaderToken, {{"start", "-1"}})).status, 400);
  EXPECT_EQ(api_->GetPendingCommits(Get(table_, kReaderToken, {{"start", "1x"}})).status, 400);
  EXPECT_EQ(api_->GetPendingCommits(Get(table_, kReaderToken, {{"from", "1"}})).status, 400);
  EXPECT_EQ(api_->GetPendingCommits(Get("s3://other/t", kReaderToken)).status, 403);
  EXPECT_EQ(api_->GetPendingCommits(Get("s3://bucket/a/../b", kReaderToken)).status, 400);
}

TEST_F(ServeHandlersTest, HealthAndReadiness) {
  EXPECT_EQ(api_->Healthz({}).status, 200);
  EXPECT_EQ(api_->Readyz({}).status, 200);
  bool stopping = true;
  api_->SetStoppingProbe([&] { return stopping; });
  http::Response answer = api_->Readyz({});
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(answer.body, R"({"status":"stopping"})");
}

TEST_F(ServeHandlersTest, LogsNameTheClientButNeverTheCredentials) {
  api_->PostCommit(Post(Commit(table_, 0, st::FirstCommitActions("a"))));
  CommitBody wrong = Commit(table_, 1, st::CommitActions("b"));
  wrong.credentials->secret_access_key = "WRONGsecretUNDERtest";
  api_->PostCommit(Post(wrong));
  const std::string logs = Logs();
  EXPECT_THAT(logs, HasSubstr(R"("client":"writer")"));
  EXPECT_THAT(logs, HasSubstr(R"("msg":"commit")"));
  EXPECT_THAT(logs, HasSubstr(R"("code":"credentials_rejected")"));
  for (const char* secret : {st::kTestSecret, st::kTestSessionToken, st::kTestKeyId,
                             "WRONGsecretUNDERtest", kWriterToken}) {
    EXPECT_THAT(logs, Not(HasSubstr(secret))) << secret;
  }
}

}  // namespace
}  // namespace deltacommit::service
