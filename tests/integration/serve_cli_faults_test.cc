// The CLI's `--log-store service|coordinated` against a real `deltacommit
// serve` on RGW, with an HttpFaultProxy between them:
//   - the reply to a commit is lost, after serve committed it or while it
//     does: the CLI must not report a failure nor commit twice; it resends
//     the same commit, which serve recognises as a replay, and the commit
//     is in the log exactly once;
//   - the session token the CLI got from RGW's STS arrives corrupted at
//     serve: S3 refuses serve's requests with it, serve answers 424
//     invalid_credentials, the CLI fails saying so, nothing is written, and
//     no secret is logged.
// The CLI has the test user's long-term keys and exchanges them for a
// session (see serve_sts_cli_test.cc), so these tests need RGW's STS.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "common/cli_runner.h"
#include "http_fault_proxy.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using nlohmann::json;
using LoseReply = HttpFaultProxy::LoseReply;

constexpr auto kLogWait = std::chrono::seconds(10);

class ServeCliFaultsTest : public ServeApiTest {
 protected:
  void SetUp() override {
    DC_REQUIRE_STS();
    ServeApiTest::SetUp();
  }

  // The CLI in `mode` with the commit service at `service_url`; its blind
  // appends take the versioned path unless assign_versions_.
  CliResult Cli(const std::string& mode, const std::string& service_url,
                std::vector<std::string> args, const std::string& stdin_data = {}) {
    for (const std::string& a : {std::string("--log-store"), mode, std::string("--service-url"),
                                 service_url, std::string("--service-token"), writer_token_}) {
      args.push_back(a);
    }
    if (!assign_versions_) {
      args.push_back("--storage-option");
      args.push_back("deltacommit.service.assignVersions=false");
    }
    return RunCli(args, stdin_data);
  }

  // Version 0, straight through serve (coordinated writers create it
  // themselves).
  void CreateTable(const std::string& mode) {
    CliResult created = Cli(mode, serve_->Url(""), {"create", table_, "--schema", "id:long"});
    ASSERT_EQ(created.exit_code, 0) << created.err;
  }

  CliResult CommitThrough(const HttpFaultProxy& proxy, const std::string& mode,
                          const std::string& data_file) {
    return Cli(mode, proxy.Url(), {"commit", table_, "--actions", "-"}, AddLine(data_file));
  }

  // serve's commit lines for `version`, once there are `count` of them or
  // after kLogWait: a request whose reply was lost before serve answered
  // may still be running when the CLI exits.
  std::vector<json> CommitLogLinesFor(Version version, size_t count) const {
    const auto deadline = std::chrono::steady_clock::now() + kLogWait;
    for (;;) {
      std::vector<json> lines;
      for (const json& line : CommitLogLines()) {
        if (line.value("version", Version{-1}) == version) lines.push_back(line);
      }
      if (lines.size() >= count || std::chrono::steady_clock::now() >= deadline) return lines;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The table's commit files once they are `expected` or after kLogWait;
  // in coordinated mode serve publishes ratified commits in the background
  // (a read of the pending commits prompts it).
  std::vector<std::string> CommitKeysOnceThey(const std::vector<std::string>& expected) {
    const auto deadline = std::chrono::steady_clock::now() + kLogWait;
    for (;;) {
      std::vector<std::string> keys = CommitKeys();
      if (keys == expected || std::chrono::steady_clock::now() >= deadline) return keys;
      Send("GET", PendingPath(table_, 0), "", writer_token_);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The status of an HTTP answer the proxy recorded, and its JSON body.
  static int StatusOf(const std::string& answer) {
    return answer.size() > 12 ? std::stoi(answer.substr(9, 3)) : 0;  // "HTTP/1.1 200"
  }
  static json BodyOf(const std::string& message) {
    const size_t at = message.find("\r\n\r\n");
    return json::parse(at == std::string::npos ? "" : message.substr(at + 4), nullptr, false);
  }

  // The log is versions 0 and 1, and version 1 added a.parquet once.
  void ExpectVersionOneAddedAOnce(const std::string& mode) {
    ASSERT_EQ(CommitKeysOnceThey({CommitPath(0), CommitPath(1)}),
              (std::vector<std::string>{CommitPath(0), CommitPath(1)}));
    EXPECT_THAT(Read(CommitPath(0)), Not(HasSubstr("a.parquet")));
    const std::string version_1 = Read(CommitPath(1));
    EXPECT_THAT(version_1, HasSubstr(R"("path":"a.parquet")"));
    EXPECT_EQ(version_1.find("a.parquet"), version_1.rfind("a.parquet")) << version_1;
    CliResult snapshot = Cli(mode, serve_->Url(""), {"snapshot", table_, "--json"});
    ASSERT_EQ(snapshot.exit_code, 0) << snapshot.err;
    json parsed = json::parse(snapshot.out, nullptr, false);
    EXPECT_EQ(parsed["version"], 1) << snapshot.out;
    EXPECT_EQ(parsed["numFiles"], 1) << snapshot.out;
  }

  bool assign_versions_ = false;
};

class LostCommitReplyTest
    : public ServeCliFaultsTest,
      public ::testing::WithParamInterface<std::tuple<std::string, LoseReply>> {
 protected:
  const std::string& mode() const { return std::get<0>(GetParam()); }
};

TEST_P(LostCommitReplyTest, TheCliResendsTheSameCommitAndItLandsOnce) {
  CreateTable(mode());
  HttpFaultProxy proxy(serve_->port(), {.lose_first_commit_reply = std::get<1>(GetParam()),
                                        .rewrite_commit_body = {}});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";

  CliResult committed = CommitThrough(proxy, mode(), "a.parquet");
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
  ASSERT_TRUE(proxy.reply_lost()) << "the reply was not lost: the test tested nothing";

  // Whatever reached serve after the lost reply was that same commit (same
  // version, same actions or staged name), and serve took each one: the
  // first ratified version 1, the others were recognised as its replay.
  const std::vector<std::string> bodies = proxy.commit_bodies();
  ASSERT_THAT(bodies, Not(::testing::IsEmpty()));
  for (const std::string& body : bodies) {
    EXPECT_EQ(body, bodies.front()) << "the CLI sent a different commit after the lost reply";
  }
  EXPECT_EQ(BodyOf("\r\n\r\n" + bodies.front())["version"], 1) << bodies.front();
  std::vector<json> lines = CommitLogLinesFor(1, bodies.size());
  ASSERT_THAT(lines, SizeIs(bodies.size())) << serve_->Logs();
  for (const json& line : lines) {
    EXPECT_EQ(line.value("status", 0), 200) << line;
    EXPECT_EQ(line.value("mode", ""), mode()) << line;
  }
  for (const json& line : CommitLogLines()) {
    EXPECT_LE(line.value("version", Version{-1}), 1) << "ratified again as a new version: " << line;
  }
  aws::HttpResponse pending = Send("GET", PendingPath(table_, 0), "", writer_token_);
  EXPECT_EQ(json::parse(pending.body, nullptr, false)["latest_version"], 1) << pending.body;

  ExpectVersionOneAddedAOnce(mode());
}

// The same through the service's appends: the resent append (same body,
// same txn) is answered as a duplicate with the version it landed in.
TEST_P(LostCommitReplyTest, TheCliResendsTheSameAppendAndItLandsOnce) {
  assign_versions_ = true;
  CreateTable(mode());
  HttpFaultProxy proxy(serve_->port(), {.lose_first_commit_reply = std::get<1>(GetParam()),
                                        .rewrite_commit_body = {}});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";
  CliResult committed = CommitThrough(proxy, mode(), "a.parquet");
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
  ASSERT_TRUE(proxy.reply_lost()) << "the reply was not lost: the test tested nothing";
  const std::vector<std::string> bodies = proxy.commit_bodies();
  ASSERT_GE(bodies.size(), 2u) << "the CLI did not resend the append";
  for (const std::string& body : bodies) EXPECT_EQ(body, bodies.front());
  const json first = BodyOf("\r\n\r\n" + bodies.front());
  EXPECT_EQ(first["append"], true) << bodies.front();
  EXPECT_EQ(first["read_version"], 0) << bodies.front();
  std::vector<json> lines = CommitLogLinesFor(1, bodies.size());
  ASSERT_THAT(lines, SizeIs(bodies.size())) << serve_->Logs();
  int duplicates = 0;
  for (const json& line : lines) {
    EXPECT_EQ(line.value("status", 0), 200) << line;
    EXPECT_EQ(line.value("mode", ""), "append") << line;
    duplicates += line.value("duplicate", false) ? 1 : 0;
  }
  EXPECT_EQ(duplicates, static_cast<int>(bodies.size()) - 1) << serve_->Logs();
  ExpectVersionOneAddedAOnce(mode());
}

// An append of rows whose reply was lost: the resend is answered as a
// duplicate of the writer's own appId version, which is the append's own
// first attempt. It landed, so the data files it wrote stay (they were
// removed, as for an append that was not committed, and the table then
// named files that were gone).
TEST_P(LostCommitReplyTest, AResentAppendOfRowsKeepsTheFilesItWrote) {
  assign_versions_ = true;
  CreateTable(mode());
  HttpFaultProxy proxy(serve_->port(), {.lose_first_commit_reply = std::get<1>(GetParam()),
                                        .rewrite_commit_body = {}});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";
  const std::filesystem::path rows =
      std::filesystem::temp_directory_path() / ("dc-rows-" + NewUuid() + ".csv");
  std::ofstream(rows) << "id\n1\n2\n3\n";
  CliResult appended = Cli(mode(), proxy.Url(), {"append", table_, rows.string(), "--json"});
  std::filesystem::remove(rows);
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  ASSERT_TRUE(proxy.reply_lost()) << "the reply was not lost: the test tested nothing";
  ASSERT_GE(proxy.commit_bodies().size(), 2u) << "the CLI did not resend the append";
  const json outcome = json::parse(appended.out, nullptr, false);
  EXPECT_EQ(outcome.value("result", ""), "committed") << appended.out;
  EXPECT_EQ(outcome.value("version", Version{-1}), 1) << appended.out;
  CliResult counted = Cli(mode(), serve_->Url(""),
                          {"query", table_, "select count(*) as n, sum(id) as s from t", "--json"});
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  const json row = json::parse(counted.out, nullptr, false);
  EXPECT_EQ(row.value("n", 0), 3) << counted.out;
  EXPECT_EQ(row.value("s", 0), 6) << counted.out;
}

std::string ModeAndFault(
    const ::testing::TestParamInfo<std::tuple<std::string, LoseReply>>& param) {
  return std::get<0>(param.param) + (std::get<1>(param.param) == LoseReply::kAfterTheAnswer
                                         ? "_AfterServeAnswered"
                                         : "_WhileServeCommits");
}

INSTANTIATE_TEST_SUITE_P(
    Modes, LostCommitReplyTest,
    ::testing::Combine(::testing::Values("service", "coordinated"),
                       ::testing::Values(LoseReply::kAfterTheAnswer, LoseReply::kBeforeTheAnswer)),
    ModeAndFault);

// `token` with the character in its middle changed: as long, and invalid.
std::string Corrupted(std::string token) {
  if (token.empty()) return token;
  char& c = token[token.size() / 2];
  c = c == 'A' ? 'B' : 'A';
  return token;
}

// Corrupts the session token in a POST /v1/commits body.
void CorruptSessionToken(std::string& body) {
  constexpr std::string_view kField = R"("session_token":")";
  const size_t at = body.find(kField);
  if (at == std::string::npos) return;
  const size_t start = at + kField.size();
  const size_t end = body.find('"', start);
  if (end == std::string::npos) return;
  body.replace(start, end - start, Corrupted(body.substr(start, end - start)));
}

class CorruptedSessionTokenTest : public ServeCliFaultsTest,
                                  public ::testing::WithParamInterface<std::string> {};

TEST_P(CorruptedSessionTokenTest, ServeAnswers424InvalidCredentialsAndNothingIsWritten) {
  CreateTable(GetParam());
  const std::vector<std::string> before = Keys();
  HttpFaultProxy proxy(serve_->port(), {.lose_first_commit_reply = LoseReply::kNever,
                                        .rewrite_commit_body = CorruptSessionToken});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";

  CliResult refused = CommitThrough(proxy, GetParam(), "a.parquet");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("HTTP 424 credentials_rejected"));
  EXPECT_THAT(refused.err, HasSubstr("did not accept the writer's AWS credentials"));
  EXPECT_THAT(refused.err, HasSubstr("session token"));

  // Sent once (a refusal of the credentials is not retried) and refused
  // with the reason that tells a client they are invalid, not lacking a
  // permission.
  const std::vector<std::string> bodies = proxy.commit_bodies();
  const std::vector<std::string> answers = proxy.commit_answers();
  ASSERT_THAT(bodies, SizeIs(1));
  ASSERT_THAT(answers, SizeIs(1));
  const std::string& answer = answers.front();
  EXPECT_EQ(StatusOf(answer), 424) << answer;
  EXPECT_EQ(BodyOf(answer)["error"]["reason"], "invalid_credentials") << answer;
  std::vector<json> lines = CommitLogLinesFor(1, 1);
  ASSERT_THAT(lines, SizeIs(1)) << serve_->Logs();
  EXPECT_EQ(lines.front().value("status", 0), 424) << lines.front();
  EXPECT_EQ(lines.front().value("code", ""), "credentials_rejected") << lines.front();

  EXPECT_EQ(Keys(), before) << "something was written under the table";

  // Neither the session's secret nor its token, as sent or as corrupted,
  // nor the long-term secret, is in serve's log or the CLI's output.
  const json sent = BodyOf("\r\n\r\n" + bodies.front())["credentials"];
  ASSERT_TRUE(sent.is_object()) << "no credentials in the commit";
  const std::string token = sent.value("session_token", "");
  ASSERT_FALSE(token.empty()) << "the CLI sent no session token";
  for (const std::string& secret : {sent.value("secret_access_key", ""), token, Corrupted(token),
                                    Env("AWS_SECRET_ACCESS_KEY")}) {
    ASSERT_FALSE(secret.empty());
    EXPECT_THAT(serve_->Logs(), Not(HasSubstr(secret))) << "logged: " << secret.substr(0, 6);
    EXPECT_THAT(refused.err + refused.out, Not(HasSubstr(secret)))
        << "printed: " << secret.substr(0, 6);
  }
}

std::string ModeName(const ::testing::TestParamInfo<std::string>& param) { return param.param; }

TEST_P(CorruptedSessionTokenTest, AnAppendIsRefusedTheSameWay) {
  assign_versions_ = true;
  CreateTable(GetParam());
  const std::vector<std::string> before = Keys();
  HttpFaultProxy proxy(serve_->port(), {.lose_first_commit_reply = LoseReply::kNever,
                                        .rewrite_commit_body = CorruptSessionToken});
  ASSERT_NE(proxy.port(), 0) << "the proxy cannot listen";
  CliResult refused = CommitThrough(proxy, GetParam(), "a.parquet");
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("append to "));
  EXPECT_THAT(refused.err, HasSubstr("HTTP 424 credentials_rejected"));
  const std::vector<std::string> bodies = proxy.commit_bodies();
  ASSERT_THAT(bodies, SizeIs(1));  // not retried, and no versioned attempt after it
  EXPECT_EQ(BodyOf("\r\n\r\n" + bodies.front())["append"], true);
  EXPECT_EQ(BodyOf(proxy.commit_answers().front())["error"]["reason"], "invalid_credentials");
  EXPECT_EQ(Keys(), before) << "something was written under the table";
}

INSTANTIATE_TEST_SUITE_P(Modes, CorruptedSessionTokenTest,
                         ::testing::Values("service", "coordinated"), ModeName);

}  // namespace
}  // namespace deltacommit::testing
