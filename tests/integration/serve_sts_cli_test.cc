// The CLI's `--log-store service|coordinated` against a real `deltacommit
// serve` on RGW + SQLite, with the test user's LONG-TERM keys in the CLI's
// environment: the CLI exchanges them through RGW's STS (GetSessionToken)
// and sends the service only the session. The service takes only
// credentials with an expiration, so a landed commit proves temporary ones
// arrived; its commit log line's key id proves which.
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/cli_runner.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using nlohmann::json;

// Sets environment variables for the CLI children and restores them.
class ScopedEnv {
 public:
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_) {
      if (old) ::setenv(name.c_str(), old->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }
  void Set(const std::string& name, const std::string& value) {
    Save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void Unset(const std::string& name) {
    Save(name);
    ::unsetenv(name.c_str());
  }

 private:
  void Save(const std::string& name) {
    if (saved_.count(name)) return;
    const char* v = std::getenv(name.c_str());
    saved_[name] = v != nullptr ? std::optional<std::string>(v) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

class ServeStsCliTest : public ServeApiTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    DC_REQUIRE_STS();
    ServeApiTest::SetUp();
  }

  CliResult Cli(std::vector<std::string> args, const std::string& stdin_data = {}) {
    for (const std::string& a : {std::string("--log-store"), GetParam(),
                                 std::string("--service-url"), serve_->Url(""),
                                 std::string("--service-token"), writer_token_}) {
      args.push_back(a);
    }
    return RunCli(args, stdin_data);
  }
  CliResult CommitFile(const std::string& file) {
    return Cli({"commit", table_, "--actions", "-"}, AddLine(file));
  }

  // The first version the service ratifies: coordinated writers create
  // version 0 themselves.
  int FirstServiceCommit() const { return GetParam() == "service" ? 0 : 1; }

  static std::string Redacted(const std::string& key_id) {
    aws::Credentials c;
    c.access_key_id = key_id;
    return c.RedactedKeyId();
  }
};

TEST_P(ServeStsCliTest, LongTermKeysAreExchangedForASessionAndTheCommitsLand) {
  CliResult created = Cli({"create", table_, "--schema", "id:long"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  for (const char* file : {"a.parquet", "b.parquet"}) {
    CliResult r = CommitFile(file);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliResult snapshot = Cli({"snapshot", table_, "--json"});
  ASSERT_EQ(snapshot.exit_code, 0) << snapshot.err;
  json parsed = json::parse(snapshot.out, nullptr, false);
  EXPECT_EQ(parsed["version"], 2) << snapshot.out;
  EXPECT_EQ(parsed["numFiles"], 2) << snapshot.out;

  // Every commit the service took came with a key that is not the writer's
  // long-term one: RGW's session keys. (Coordinated writers create version
  // 0 themselves, without the service.)
  const std::string long_term = Redacted(Env("AWS_ACCESS_KEY_ID"));
  std::vector<json> lines = CommitLogLines();
  ASSERT_THAT(lines, SizeIs(FirstServiceCommit() == 0 ? 3 : 2)) << serve_->Logs();
  for (const json& line : lines) {
    EXPECT_EQ(line.value("status", 0), 200) << line;
    // The CLI's blind appends go as appends (the service assigns versions).
    EXPECT_EQ(line.value("mode", ""), line.contains("read_version") ? "append" : GetParam())
        << line;
    const std::string key_id = line.value("key_id", "");
    EXPECT_FALSE(key_id.empty()) << line;
    EXPECT_NE(key_id, long_term) << line;
  }
  EXPECT_THAT(serve_->Logs(), Not(HasSubstr(Env("AWS_SECRET_ACCESS_KEY"))));
}

TEST_P(ServeStsCliTest, TemporaryCredentialsPassThroughOnlyWithTheirExpiration) {
  ASSERT_EQ(Cli({"create", table_, "--schema", "id:long"}).exit_code, 0);
  StatusOr<aws::Credentials> session = TestSessionCredentials();
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ScopedEnv env;
  env.Set("AWS_ACCESS_KEY_ID", session->access_key_id);
  env.Set("AWS_SECRET_ACCESS_KEY", session->secret_access_key);
  env.Set("AWS_SESSION_TOKEN", session->session_token);
  env.Unset("AWS_CREDENTIAL_EXPIRATION");

  // Without the expiry: refused before anything is sent to the service.
  CliResult refused = CommitFile("a.parquet");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("session token but no expiration"));
  EXPECT_THAT(refused.err, HasSubstr("AWS_CREDENTIAL_EXPIRATION"));
  EXPECT_THAT(refused.err, Not(HasSubstr(session->session_token)));
  EXPECT_THAT(refused.err, Not(HasSubstr(session->secret_access_key)));
  EXPECT_THAT(CommitLogLines(), SizeIs(1 - FirstServiceCommit())) << "only a create could have";

  // With it: sent as they are (the service logs their key id).
  env.Set("AWS_CREDENTIAL_EXPIRATION", aws::internal::FormatUtc(*session->expiration_ms));
  CliResult landed = CommitFile("a.parquet");
  ASSERT_EQ(landed.exit_code, 0) << landed.err;
  std::vector<json> lines = CommitLogLines();
  ASSERT_THAT(lines, SizeIs(2 - FirstServiceCommit()));
  EXPECT_EQ(lines.back().value("status", 0), 200) << lines.back();
  EXPECT_EQ(lines.back().value("key_id", ""), session->RedactedKeyId()) << lines.back();
}

INSTANTIATE_TEST_SUITE_P(Modes, ServeStsCliTest, ::testing::Values("service", "coordinated"));

}  // namespace
}  // namespace deltacommit::testing
