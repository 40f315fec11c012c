// [server], [tls], [state], [publish] and the strictness rules of the file.
// [s3] is in s3_endpoints_test.cc, [[token]] in token_config_test.cc.
#include "service/config/service_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

ServiceConfig Parsed(std::string_view text, std::string_view base_dir = {}) {
  StatusOr<ServiceConfig> config =
      ParseServiceConfig(text, "test.toml", base_dir);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : ServiceConfig();
}

std::string Error(std::string_view text) {
  StatusOr<ServiceConfig> config = ParseServiceConfig(text, "test.toml");
  EXPECT_FALSE(config.ok()) << "accepted:\n" << text;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  return config.status().message();
}

TEST(ServiceConfigTest, EmptyFileGivesTheDocumentedDefaults) {
  ServiceConfig config = Parsed("");
  EXPECT_EQ(config.source, "test.toml");
  EXPECT_EQ(config.server.listen, "127.0.0.1:8642");
  EXPECT_EQ(config.server.listen_host, "127.0.0.1");
  EXPECT_EQ(config.server.listen_port, 8642);
  EXPECT_EQ(config.server.io_threads, 2);
  EXPECT_EQ(config.server.workers, 16);
  EXPECT_EQ(config.server.max_queued_requests, 256);
  EXPECT_EQ(config.server.max_connections, 4096);
  EXPECT_EQ(config.server.max_body_bytes, 8 * 1024 * 1024);
  EXPECT_EQ(config.server.request_timeout_ms, 30'000);
  EXPECT_EQ(config.server.idle_timeout_ms, 60'000);
  EXPECT_EQ(config.server.drain_timeout_ms, 30'000);
  EXPECT_FALSE(config.tls.enabled());
  EXPECT_EQ(config.state.kind, StateConfig::Kind::kSqlite);
  EXPECT_EQ(config.state.sqlite_path, "deltacommit-state.sqlite");
  EXPECT_EQ(config.state.keep_published_commits, 1000);
  EXPECT_EQ(config.s3.default_endpoint.service.region, "us-east-1");
  EXPECT_TRUE(config.s3.buckets.empty());
  EXPECT_TRUE(config.s3.allowed.empty());
  EXPECT_TRUE(config.tokens.empty());
  EXPECT_EQ(config.commits.max_commit_bytes, 16 << 20);
  EXPECT_EQ(config.commits.max_actions, 200'000);
  EXPECT_EQ(config.commits.min_credentials_validity_ms, 10'000);
  EXPECT_EQ(config.commits.pending_list_limit, 1'000);
  EXPECT_EQ(config.commits.max_unpublished_commits, 10);
  EXPECT_EQ(config.publish.threads, 2);
  EXPECT_EQ(config.publish.first_retry_ms, 250);
  EXPECT_EQ(config.publish.max_retry_ms, 30'000);
  EXPECT_EQ(config.publish.min_credentials_validity_ms, 5'000);
}

TEST(ServiceConfigTest, ReadsCommitAndPublishSettings) {
  ServiceConfig config = Parsed(R"(
[commits]
max_commit_bytes = 1048576
max_actions = 10
min_credentials_validity_ms = 60000
pending_list_limit = 5
max_unpublished_commits = 3
[publish]
threads = 1
first_retry_ms = 10
max_retry_ms = 100
min_credentials_validity_ms = 0
)");
  EXPECT_EQ(config.commits.max_commit_bytes, 1048576);
  EXPECT_EQ(config.commits.max_actions, 10);
  EXPECT_EQ(config.commits.min_credentials_validity_ms, 60'000);
  EXPECT_EQ(config.commits.pending_list_limit, 5);
  EXPECT_EQ(config.commits.max_unpublished_commits, 3);
  EXPECT_EQ(config.publish.threads, 1);
  EXPECT_EQ(config.publish.first_retry_ms, 10);
  EXPECT_EQ(config.publish.max_retry_ms, 100);
  EXPECT_EQ(config.publish.min_credentials_validity_ms, 0);
  EXPECT_EQ(Error("[publish]\nfirst_retry_ms = 500\nmax_retry_ms = 100\n"),
            "test.toml:3:16: publish.max_retry_ms: is less than first_retry_ms (500)");
  EXPECT_THAT(Error("[commits]\npending_list_limit = 5\nmax_unpublished_commits = 6\n"),
              HasSubstr("commits.max_unpublished_commits: is more than pending_list_limit (5)"));
  EXPECT_EQ(Error("[commits]\nmax_actions = 0\n"),
            "test.toml:2:15: commits.max_actions: is 0; it must be between 1 and 100000000");
}

TEST(ServiceConfigTest, ReadsAppendSettings) {
  ServiceConfig config = Parsed(R"(
[appends]
max_batch_appends = 1
max_batch_bytes = 65536
max_batch_wait_ms = 5
max_queued_appends = 10
)");
  EXPECT_EQ(config.appends.max_batch_appends, 1);
  EXPECT_EQ(config.appends.max_batch_bytes, 65536);
  EXPECT_EQ(config.appends.max_batch_wait_ms, 5);
  EXPECT_EQ(config.appends.max_queued_appends, 10);
  // The default batch shrinks to a smaller commit limit; a larger one given
  // is refused.
  EXPECT_EQ(Parsed("[commits]\nmax_commit_bytes = 4096\n").appends.max_batch_bytes, 4096);
  EXPECT_EQ(Error("[commits]\nmax_commit_bytes = 4096\n[appends]\nmax_batch_bytes = 8192\n"),
            "test.toml:4:19: appends.max_batch_bytes: is more than [commits] max_commit_bytes "
            "(4096)");
  EXPECT_EQ(Error("[appends]\nmax_batch_appends = 0\n"),
            "test.toml:2:21: appends.max_batch_appends: is 0; it must be between 1 and 100000");
}

TEST(ServiceConfigTest, ReadsServerSettings) {
  ServiceConfig config = Parsed(R"(
[server]
listen = "[::1]:9000"
io_threads = 4
workers = 64
max_queued_requests = 1000
max_connections = 20000
max_body_bytes = 1048576
request_timeout_ms = 5000
idle_timeout_ms = 7000
drain_timeout_ms = 0
)");
  EXPECT_EQ(config.server.listen, "[::1]:9000");
  EXPECT_EQ(config.server.listen_host, "::1");
  EXPECT_EQ(config.server.listen_port, 9000);
  EXPECT_EQ(config.server.io_threads, 4);
  EXPECT_EQ(config.server.workers, 64);
  EXPECT_EQ(config.server.max_queued_requests, 1000);
  EXPECT_EQ(config.server.max_connections, 20000);
  EXPECT_EQ(config.server.max_body_bytes, 1048576);
  EXPECT_EQ(config.server.request_timeout_ms, 5000);
  EXPECT_EQ(config.server.idle_timeout_ms, 7000);
  EXPECT_EQ(config.server.drain_timeout_ms, 0);
}

TEST(ServiceConfigTest, ListenForms) {
  EXPECT_EQ(Parsed("[server]\nlisten = \"0.0.0.0:0\"").server.listen_port, 0);
  EXPECT_EQ(Parsed("[server]\nlisten = \"localhost:65535\"").server.listen_host,
            "localhost");
  EXPECT_EQ(Parsed("[server]\nlisten = \"[::]:80\"").server.listen_host, "::");
  for (std::string_view bad :
       {"8642", "host:", ":80", "host:65536", "host:8o", "::1:80", "[::1]",
        "a b:80", "h/x:80", "host:-1", ""}) {
    std::string text = "[server]\nlisten = \"" + std::string(bad) + "\"";
    EXPECT_THAT(Error(text),
                AllOf(StartsWith("test.toml:2:10: server.listen: \"" +
                                 std::string(bad) + "\" is not host:port")))
        << bad;
  }
}

TEST(ServiceConfigTest, UnknownKeyIsNamedWithItsLineAndTheKnownKeys) {
  EXPECT_EQ(Error("[server]\nlisten = \"127.0.0.1:1\"\nmax_body_byte = 5\n"),
            "test.toml:3:1: unknown key server.max_body_byte ([server] takes: "
            "listen, "
            "io_threads, workers, max_queued_requests, max_connections, max_body_bytes, "
            "request_timeout_ms, "
            "idle_timeout_ms, drain_timeout_ms)");
  EXPECT_EQ(Error("[publish]\n\n  interval = 5\n"),
            "test.toml:3:3: unknown key publish.interval ([publish] takes: "
            "threads, first_retry_ms, max_retry_ms, min_credentials_validity_ms)");
  EXPECT_THAT(
      Error("[tls]\ncert = \"a\"\n"),
      StartsWith(
          "test.toml:2:1: unknown key tls.cert ([tls] takes: certificate, "
          "private_key)"));
  EXPECT_EQ(Error("[state]\nkind = \"sqlite\"\npth = \"x\"\n"),
            "test.toml:3:1: unknown key state.pth ([state] takes: kind, path, "
            "table, region, endpoint, allow_http, keep_published_commits)");
  EXPECT_THAT(Error("[server.extra]\nx = 1\n"),
              StartsWith("test.toml:1:9: unknown key "
                         "server.extra"));
}

TEST(ServiceConfigTest, UnknownSectionIsNamed) {
  EXPECT_THAT(
      Error("[srever]\nlisten = \"127.0.0.1:1\"\n"),
      AllOf(
          StartsWith("test.toml:1:2: unknown section or key srever"),
          HasSubstr("the file takes: server, tls, state, s3, local, token, commits, publish")));
  EXPECT_THAT(Error("listen = \"127.0.0.1:1\"\n"),
              StartsWith("test.toml:1:1: unknown section or key listen"));
  EXPECT_THAT(Error("[[tokens]]\nname = \"x\"\n"),
              StartsWith("test.toml:1:3: unknown section or key tokens"));
}

TEST(ServiceConfigTest, WrongTypesAreNamed) {
  EXPECT_EQ(
      Error("[server]\nio_threads = \"4\"\n"),
      "test.toml:2:14: server.io_threads: must be an integer, not a string");
  EXPECT_EQ(
      Error("[server]\nmax_body_bytes = 1.5\n"),
      "test.toml:2:18: server.max_body_bytes: must be an integer, not a float");
  EXPECT_EQ(Error("[server]\nlisten = 8642\n"),
            "test.toml:2:10: server.listen: must be a string, not an integer");
  EXPECT_EQ(Error("[s3]\nallow_http = \"true\"\n"),
            "test.toml:2:14: s3.allow_http: must be a boolean (true or false), "
            "not a string");
  EXPECT_EQ(Error("server = 5\n"),
            "test.toml:1:10: server: must be a table ([server]), not an "
            "integer");
  EXPECT_EQ(Error("[token]\nname = \"x\"\n"),
            "test.toml:1:1: token: must be an array of tables ([[token]]), not "
            "a table");
  EXPECT_EQ(Error("[[server]]\n"),
            "test.toml:1:1: server: must be a table ([server]), not an array");
}

TEST(ServiceConfigTest, IntegersOutOfRangeAreNamed) {
  EXPECT_EQ(
      Error("[server]\nio_threads = 0\n"),
      "test.toml:2:14: server.io_threads: is 0; it must be between 1 and 256");
  EXPECT_EQ(Error("[server]\nmax_body_bytes = 1073741825\n"),
            "test.toml:2:18: server.max_body_bytes: is 1073741825; it must be "
            "between 1024 and "
            "1073741824");
  EXPECT_THAT(Error("[server]\nworkers = -1\n"),
              HasSubstr("server.workers: is -1"));
  EXPECT_THAT(Error("[server]\nrequest_timeout_ms = 0\n"),
              HasSubstr("server.request_timeout_ms: is 0"));
  EXPECT_THAT(Error("[server]\nmax_connections = 9223372036854775807\n"),
              HasSubstr("server.max_connections: is 9223372036854775807"));
  EXPECT_THAT(
      Error("[publish]\nfirst_retry_ms = 0\n"),
      HasSubstr("publish.first_retry_ms: is 0; it must be between 1 and 3600000"));
  EXPECT_THAT(Error("[publish]\nthreads = 0\n"), HasSubstr("publish.threads: is 0"));
  EXPECT_THAT(Error("[commits]\nmax_commit_bytes = 10\n"),
              HasSubstr("commits.max_commit_bytes: is 10"));
}

TEST(ServiceConfigTest, SyntaxErrorsNameTheLine) {
  EXPECT_THAT(Error("[server]\nlisten = \"127.0.0.1:1\n"),
              StartsWith("test.toml:2:"));
  EXPECT_THAT(
      Error("[server]\nlisten = \"127.0.0.1:1\"\n"
            "listen = \"127.0.0.1:2\"\n"),
      AllOf(StartsWith("test.toml:3:"), HasSubstr("TOML syntax error")));
}

TEST(ServiceConfigTest,
     TlsNeedsBothFilesAndResolvesThemAgainstTheConfigDirectory) {
  ServiceConfig config = Parsed(
      "[tls]\ncertificate = \"tls/server.crt\"\nprivate_key = "
      "\"/abs/server.key\"\n",
      "/etc/dc");
  EXPECT_TRUE(config.tls.enabled());
  EXPECT_EQ(config.tls.certificate, "/etc/dc/tls/server.crt");
  EXPECT_EQ(config.tls.private_key, "/abs/server.key");
  EXPECT_FALSE(Parsed("[tls]\n").tls.enabled());

  EXPECT_EQ(Error("[tls]\ncertificate = \"c.pem\"\n"),
            "test.toml:2:15: tls.certificate: is set but tls.private_key is "
            "not; TLS needs both "
            "(or neither, for plain HTTP)");
  EXPECT_EQ(Error("[tls]\n\nprivate_key = \"k.pem\"\n"),
            "test.toml:3:15: tls.private_key: is set but tls.certificate is "
            "not; TLS needs both "
            "(or neither, for plain HTTP)");
  EXPECT_EQ(Error("[tls]\ncertificate = \"\"\nprivate_key = \"k.pem\"\n"),
            "test.toml:2:15: tls.certificate: is empty; remove [tls] to serve "
            "plain HTTP");
}

TEST(ServiceConfigTest, SqliteState) {
  EXPECT_EQ(Parsed("", "/var/lib/dc").state.sqlite_path,
            "/var/lib/dc/deltacommit-state.sqlite");
  ServiceConfig config =
      Parsed("[state]\nkind = \"sqlite\"\npath = \"db/s.sqlite\"\n", "/srv");
  EXPECT_EQ(config.state.kind, StateConfig::Kind::kSqlite);
  EXPECT_EQ(config.state.sqlite_path, "/srv/db/s.sqlite");
  EXPECT_EQ(
      Parsed("[state]\npath = \"/data/s.sqlite\"\n", "/srv").state.sqlite_path,
      "/data/s.sqlite");
  EXPECT_EQ(Error("[state]\npath = \"\"\n"),
            "test.toml:2:8: state.path: is empty");
}

TEST(ServiceConfigTest, StateRetention) {
  EXPECT_EQ(Parsed("[state]\nkeep_published_commits = 50\n").state.keep_published_commits, 50);
  EXPECT_EQ(Parsed("[state]\nkind = \"dynamodb\"\nkeep_published_commits = -1\n")
                .state.keep_published_commits,
            -1);
  EXPECT_THAT(Error("[state]\nkeep_published_commits = -2\n"),
              HasSubstr("state.keep_published_commits: is -2; it must be between -1 and "
                        "1000000000"));
}

TEST(ServiceConfigTest, DynamoDbState) {
  ServiceConfig config = Parsed(R"(
[state]
kind = "dynamodb"
table = "dc_state"
region = "eu-west-1"
endpoint = "http://localhost:8000"
allow_http = true
)");
  EXPECT_EQ(config.state.kind, StateConfig::Kind::kDynamoDb);
  EXPECT_EQ(config.state.dynamodb_table, "dc_state");
  EXPECT_EQ(config.state.dynamodb_region, "eu-west-1");
  EXPECT_EQ(config.state.dynamodb_endpoint, "http://localhost:8000");
  EXPECT_EQ(config.state.dynamodb_allow_http, true);
  EXPECT_EQ(Parsed("[state]\nkind = \"dynamodb\"\n").state.dynamodb_table,
            "deltacommit_service");
}

TEST(ServiceConfigTest, DynamoDbStateErrors) {
  EXPECT_EQ(Error("[state]\nkind = \"postgres\"\n"),
            "test.toml:2:8: state.kind: is \"postgres\"; it must be \"sqlite\" "
            "or \"dynamodb\"");
  EXPECT_EQ(Error("[state]\nkind = \"sqlite\"\ntable = \"t\"\n"),
            "test.toml:3:9: state.table: does not apply to kind = \"sqlite\"");
  EXPECT_EQ(Error("[state]\nkind = \"dynamodb\"\npath = \"x\"\n"),
            "test.toml:3:8: state.path: does not apply to kind = \"dynamodb\"");
  EXPECT_THAT(
      Error("[state]\nkind = \"dynamodb\"\ntable = \"a b\"\n"),
      StartsWith("test.toml:3:9: state.table: is not a DynamoDB table name"));
  EXPECT_EQ(Error("[state]\nkind = \"dynamodb\"\nendpoint = "
                  "\"http://localhost:8000\"\n"),
            "test.toml:3:12: state.endpoint: is plain http; set allow_http = "
            "true in [state] to "
            "allow unencrypted connections, or use https");
  EXPECT_THAT(Error("[state]\nkind = \"dynamodb\"\nregion = \"eu west\"\n"),
              AllOf(StartsWith("test.toml:3:10: state.region: region \"eu "
                               "west\" is not a region "
                               "name"),
                    Not(HasSubstr("explicit options"))));
  std::string userinfo = Error(
      "[state]\nkind = \"dynamodb\"\nendpoint = "
      "\"https://u:hunter2@db.example\"\n");
  EXPECT_THAT(userinfo,
              AllOf(StartsWith("test.toml:3:12: state.endpoint:"),
                    HasSubstr("user info"), Not(HasSubstr("hunter2"))));
}

TEST(ServiceConfigTest, DynamoDbEndpointFileWinsEnvironmentFillsGaps) {
  std::map<std::string, std::string> env = {
      {"AWS_REGION", "ap-south-1"},
      {"AWS_ENDPOINT_URL_DYNAMODB", "https://env.example"}};
  aws::AwsConfigSources sources{&env, "/nonexistent"};
  ServiceConfig from_file = Parsed(
      "[state]\nkind = \"dynamodb\"\nregion = \"eu-west-1\"\nendpoint = "
      "\"https://db.example\"\n");
  StatusOr<aws::AwsServiceConfig> resolved =
      DynamoDbServiceConfig(from_file.state, sources);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->region, "eu-west-1");
  EXPECT_EQ(resolved->endpoint_url, "https://db.example");

  ServiceConfig bare = Parsed("[state]\nkind = \"dynamodb\"\n");
  resolved = DynamoDbServiceConfig(bare.state, sources);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->region, "ap-south-1");
  EXPECT_EQ(resolved->endpoint_url, "https://env.example");
}

}  // namespace
}  // namespace deltacommit::service
