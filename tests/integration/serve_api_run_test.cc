// `deltacommit serve` over whole runs on RGW: 8 writers racing through the
// service, SIGTERM with a commit in flight, and the service's entire log of
// a run checked for the secrets and tokens it was sent.
#include <atomic>
#include <set>
#include <sstream>
#include <thread>

#include "common/cli_runner.h"
#include "delay_proxy.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

class ServeRunTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  // Commits `actions` at the version after the latest the service reports,
  // rebasing on every 409; the version it landed at, or -1.
  Version CommitRebasing(const std::string& actions, Version guess) {
    for (int attempt = 0; attempt < 400; ++attempt) {
      aws::HttpResponse answer = Post(Commit(guess, actions));
      if (answer.status == 200) return json::parse(answer.body)["version"].get<Version>();
      if (answer.status != 409) {
        ADD_FAILURE() << "status " << answer.status << ": " << answer.body;
        return -1;
      }
      guess = ErrorOf(answer)["latest_version"].get<Version>() + 1;
    }
    ADD_FAILURE() << "no version after 400 attempts";
    return -1;
  }
};

TEST_F(ServeRunTest, EightWritersGetContiguousVersionsEachCommitOnce) {
  StartServe();
  constexpr int kWriters = 8;
  constexpr int kCommitsEach = 5;
  // Version 0 creates the table (protocol and metaData); the writers race
  // for the versions after it.
  ASSERT_EQ(Post(Commit(0, FirstActions("create"))).status, 200);
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kCommitsEach; ++i) {
        if (CommitRebasing(Actions("w" + std::to_string(w) + "-" + std::to_string(i)), 1) < 0) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  ASSERT_EQ(failures, 0);
  std::set<std::string> expected = {FirstActions("create")};
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kCommitsEach; ++i) {
      expected.insert(Actions("w" + std::to_string(w) + "-" + std::to_string(i)));
    }
  }
  ExpectLogHoldsEachOnce(expected);
  EXPECT_EQ(serve_->Terminate(), 0);
}

// The S3 endpoint "slow" is a proxy that holds each new connection 2 s, so
// the commit is certainly in its handler when SIGTERM arrives.
TEST_F(ServeRunTest, SigtermWithACommitInFlightAnswersItAndExitsZero) {
  const std::string rgw = Env("AWS_ENDPOINT_URL_S3");
  const auto port = static_cast<uint16_t>(std::stoi(rgw.substr(rgw.rfind(':') + 1)));
  DelayProxy proxy(port, std::chrono::milliseconds(2000));
  ASSERT_NE(proxy.port(), 0);
  StartServe("[[s3.allowed_endpoint]]\nname = \"slow\"\nurl = \"http://127.0.0.1:" +
             std::to_string(proxy.port()) + "\"\nallow_http = true\n");
  json body = Commit(0, FirstActions("in-flight"));
  body["endpoint"] = "slow";
  aws::HttpResponse answer;
  std::thread request([&] { answer = Post(body); });
  ASSERT_TRUE(proxy.WaitForConnection(std::chrono::seconds(30)));
  serve_->SendSigterm();
  request.join();
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(serve_->WaitForExit(std::chrono::seconds(60)), 0) << serve_->Logs();
  EXPECT_EQ(Read(CommitPath(0)), FirstActions("in-flight"));
  const std::string logs = serve_->Logs();
  EXPECT_THAT(logs, HasSubstr(R"("msg":"shut down")"));
  EXPECT_THAT(logs, HasSubstr(R"("signal":15)"));
}

TEST_F(ServeRunTest, NoSecretKeyOrSessionTokenInAnyLogLine) {
  StartServe("", "debug");
  const std::string wrong_secret = "WRONGsecretKEYserveRUN/0123456789abcdefgh";
  const std::string stray_token = "stray-" + NewUuid();
  ASSERT_EQ(Post(Commit(0, FirstActions("a"))).status, 200);
  Post(Commit(0, FirstActions("a")));                  // replay
  Post(Commit(0, FirstActions("b")));                  // conflict
  Post(Commit(1, Actions("c"), wrong_secret));    // refused by S3
  json expired = Commit(1, Actions("c"));
  expired["credentials"]["expiration"] = "2024-01-01T00:00:00Z";
  Post(expired);
  json unknown = Commit(1, Actions("c"));
  unknown["credentials"]["secretAccessKey"] = wrong_secret;  // an unknown field
  Post(unknown);
  Send("POST", "/v1/commits", R"({"credentials":{"secret_access_key":")" + wrong_secret + "\"",
       writer_token_);                                        // malformed
  Send("POST", "/v1/commits", Commit(1, Actions("c")).dump(), stray_token);
  Send("POST", "/v1/commits", Commit(1, Actions("c")).dump(), other_token_);
  const std::string staged = StagedCommitPath(1, NewUuid());
  ASSERT_TRUE(s3_.store->Put(staged, Actions("d")).ok());
  json coordinated = Commit(1, "");
  coordinated.erase("actions");
  coordinated["staged_file"] = staged;
  ASSERT_EQ(Post(coordinated).status, 200);
  Send("GET", PendingPath(table_, 0), "", writer_token_);
  for (int i = 0; i < 300 && Read(CommitPath(1)) != Actions("d"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(serve_->Terminate(), 0);

  const std::string logs = serve_->Logs();
  for (const std::string& secret :
       {Env("AWS_SECRET_ACCESS_KEY"), wrong_secret, std::string(kServeSessionToken),
        Env("AWS_ACCESS_KEY_ID"), writer_token_, other_token_, stray_token}) {
    EXPECT_THAT(logs, Not(HasSubstr(secret))) << "logged: " << secret.substr(0, 6) << "...";
  }
  // The log is structured and says what happened.
  std::istringstream lines(logs);
  int commit_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    json parsed = json::parse(line, nullptr, false);
    ASSERT_TRUE(parsed.is_object()) << "not a JSON line: " << line;
    EXPECT_TRUE(parsed.contains("time") && parsed.contains("level")) << line;
    if (parsed.value("msg", "") == "commit") ++commit_lines;
  }
  EXPECT_EQ(commit_lines, 10);
  EXPECT_THAT(logs, HasSubstr(R"("code":"credentials_rejected")"));
  EXPECT_THAT(logs, HasSubstr(R"("component":"commits")"));  // the commit logic's own lines
}

TEST(ServeCliTest, HashTokenPrintsTheSha256OfStdin) {
  CliResult hashed = RunCli({"serve", "hash-token"}, "my-token-123\n");
  EXPECT_EQ(hashed.exit_code, 0) << hashed.err;
  EXPECT_EQ(hashed.out, service::HashToken("my-token-123") + "\n");
  CliResult bad = RunCli({"serve", "hash-token"}, "two words\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("cannot be sent as a bearer token"));
  EXPECT_THAT(bad.err, Not(HasSubstr("two words")));
}

TEST(ServeCliTest, ABadConfigExits2NamingIt) {
  CliResult missing = RunCli({"serve", "--config", "/nonexistent/serve.toml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("service config /nonexistent/serve.toml does not exist"));
  CliResult none = RunCli({"serve"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("serve needs --config FILE"));
}

}  // namespace
}  // namespace deltacommit::testing
