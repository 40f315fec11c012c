// `deltacommit doctor --log-store service|coordinated` against a real
// `deltacommit serve` on Ceph RGW + SQLite, with the test user's long-term
// keys (exchanged through RGW's STS): every check passes on a good setup,
// and each problem is a FAIL naming it: an unknown token (401), a token
// for another prefix or without "commit", an endpoint off the allowlist
// (403), a service that is not running or spoken to with the wrong scheme,
// temporary credentials without an expiration, a user without
// sts:GetSessionToken, a log written around the service. Pending commits
// are reported as information. No output carries a token or a secret, and
// the probes leave nothing behind.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/cli_runner.h"
#include "doctor_report.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

// A TCP port nothing listens on (bound, then released).
uint16_t UnusedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ADD_FAILURE() << "no free port";
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

class DoctorServiceTest : public ServeApiTest {
 protected:
  void SetUp() override {
    DC_REQUIRE_STS();
    ServeApiTest::SetUp();
    StartServe(ReaderToken());
  }
  bool StartInSetUp() const override { return false; }

  // A token that may read the table but not commit to it.
  std::string ReaderToken() const {
    return "[[token]]\nname = \"reader\"\nsha256 = \"" + service::HashToken(reader_token_) +
           "\"\ntables = [\"" + table_ + "\"]\nactions = [\"read\"]\n";
  }

  std::vector<std::string> ServiceArgs(const std::string& url, const std::string& token) const {
    return {"--log-store", mode_, "--service-url", url, "--service-token", token};
  }

  // `args` for the table in mode_ with the service at `url`, run with extra
  // environment `env` ("NAME=value", through env(1)).
  CliResult Run(std::vector<std::string> args, const std::string& url, const std::string& token,
                const std::vector<std::string>& env = {}, const std::string& input = {}) {
    for (const std::string& a : ServiceArgs(url, token)) args.push_back(a);
    if (env.empty()) return RunCli(args, input);
    std::vector<std::string> all = env;
    all.push_back(CliPath());
    all.insert(all.end(), args.begin(), args.end());
    return RunProgram("/usr/bin/env", all, input);
  }

  // `doctor --json` with the running service and `token`.
  CliResult Doctor(const std::string& token, const std::vector<std::string>& env = {}) {
    return Run({"doctor", table_, "--json"}, serve_->Url(""), token, env);
  }

  void CreateAndCommitOne() {
    CliResult created = Run({"create", table_, "--schema", "id:long"}, serve_->Url(""),
                            writer_token_);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    // A versioned commit (in coordinated mode a staged one, which the
    // publisher writes in the background), not an append.
    CliResult committed =
        Run({"commit", table_, "--actions", "-", "--storage-option",
             "deltacommit.service.assignVersions=false"},
            serve_->Url(""), writer_token_, {}, AddLine("a.parquet"));
    ASSERT_EQ(committed.exit_code, 0) << committed.err;
  }

  // Neither stream of `r` holds a token or a secret of the test.
  void ExpectNoSecrets(const CliResult& r) const {
    for (const std::string& secret :
         {writer_token_, other_token_, reader_token_, Env("AWS_SECRET_ACCESS_KEY"),
          Env("DELTACOMMIT_TEST_NOSTS_SECRET_ACCESS_KEY")}) {
      if (secret.empty()) continue;
      EXPECT_THAT(r.out, Not(HasSubstr(secret)));
      EXPECT_THAT(r.err, Not(HasSubstr(secret)));
    }
  }

  // The service's commit log lines with HTTP status `status`.
  int CommitLines(int status) const {
    int n = 0;
    std::istringstream in(serve_->Logs());
    for (std::string line; std::getline(in, line);) {
      json parsed = json::parse(line, nullptr, false);
      n += parsed.is_object() && parsed.value("msg", "") == "commit" &&
           parsed.value("status", 0) == status;
    }
    return n;
  }

  static std::string Detail(const json& report, const std::string& check) {
    return DoctorCheck(report, check)["detail"].get<std::string>();
  }

  std::string mode_ = "coordinated";
  const std::string reader_token_ = "reader-" + NewUuid();
};

class DoctorServiceModesTest : public DoctorServiceTest,
                               public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    mode_ = GetParam();
    DoctorServiceTest::SetUp();
  }
};

TEST_P(DoctorServiceModesTest, AGoodSetupPassesEveryCheckAndCommitsNothing) {
  // Before the table exists: coordinated writers create version 0 with
  // If-None-Match themselves, which RGW enforces.
  CliResult fresh = Doctor(writer_token_);
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out << fresh.err;
  json fresh_report = DoctorReport(fresh);
  ExpectDoctorAllPass(fresh_report);
  EXPECT_THAT(Detail(fresh_report, "service:read"), HasSubstr("no state for it yet"));
  const bool has_conditional = fresh.out.find("\"If-None-Match\"") != std::string::npos;
  EXPECT_EQ(has_conditional, mode_ == "coordinated") << fresh.out;

  ASSERT_NO_FATAL_FAILURE(CreateAndCommitOne());
  const int commits_before = CommitLines(200);
  CliResult r = Doctor(writer_token_);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json report = DoctorReport(r);
  ExpectDoctorAllPass(report);
  EXPECT_EQ(report["mode"], mode_);
  for (const char* name :
       {"S3 credentials", "S3 endpoint", "s3:ListBucket", "s3:GetObject", "s3:PutObject",
        "s3:DeleteObject", "sts:GetSessionToken", "session on S3", "service endpoint",
        "service ready", "service:commit", "service:read", "pending commits",
        "commit coordinator"}) {
    EXPECT_EQ(DoctorCheck(report, name)["status"], "OK") << name;
  }
  EXPECT_THAT(Detail(report, "commit coordinator"),
              HasSubstr(mode_ == "coordinated" ? "names commit coordinator \"deltacommit\""
                                               : "names no commit coordinator"));
  EXPECT_THAT(r.out, Not(HasSubstr("If-None-Match")));  // the table exists
  EXPECT_THAT(Detail(report, "sts:GetSessionToken"), HasSubstr("got a session"));
  EXPECT_THAT(Detail(report, "service:commit"), HasSubstr("nothing was committed"));
  EXPECT_THAT(Detail(report, "service:read"), HasSubstr("latest ratified version is 1"));
  EXPECT_THAT(Detail(report, "s3:PutObject"), HasSubstr("_delta_log/_staged_commits/doctor-probe"));
  // The policy now has sts:GetSessionToken and the staged commits' delete.
  ASSERT_EQ(report["policy"]["Statement"].size(), 4u) << report["policy"];
  EXPECT_EQ(report["policy"]["Statement"][3]["Action"], "sts:GetSessionToken");

  // The probe commit was refused (422) and nothing was committed; the probe
  // object is gone.
  EXPECT_EQ(CommitLines(200), commits_before);
  EXPECT_GE(CommitLines(422), 2);
  for (const std::string& key : Keys()) EXPECT_THAT(key, Not(HasSubstr("doctor")));
  CliResult snapshot = Run({"snapshot", table_, "--json"}, serve_->Url(""), writer_token_);
  EXPECT_EQ(json::parse(snapshot.out, nullptr, false)["version"], 1) << snapshot.out;

  CliResult text = Run({"doctor", table_}, serve_->Url(""), writer_token_);
  EXPECT_EQ(text.exit_code, 0) << text.out;
  EXPECT_THAT(text.out, HasSubstr("checks passed"));
  EXPECT_THAT(text.out, HasSubstr("OK    service:commit"));
  for (const CliResult* out : {&fresh, &r, &text}) ExpectNoSecrets(*out);
}

TEST_P(DoctorServiceModesTest, AnUnknownTokenFailsWith401AndSkipsTheRead) {
  const std::string wrong = "wrong-" + NewUuid();
  CliResult r = Doctor(wrong);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = DoctorReport(r);
  EXPECT_EQ(report["ok"], false);
  json commit = DoctorCheck(report, "service:commit");
  EXPECT_EQ(commit["status"], "FAIL");
  EXPECT_THAT(commit["detail"].get<std::string>(), HasSubstr("HTTP 401 unauthenticated"));
  EXPECT_THAT(commit["detail"].get<std::string>(), HasSubstr("--service-token"));
  EXPECT_EQ(DoctorCheck(report, "service:read")["status"], "SKIP");
  EXPECT_EQ(DoctorCheck(report, "service endpoint")["status"], "OK");
  EXPECT_EQ(DoctorCheck(report, "s3:PutObject")["status"], "OK");  // S3 is fine
  EXPECT_THAT(r.out + r.err, Not(HasSubstr(wrong)));
  ExpectNoSecrets(r);
}

TEST_P(DoctorServiceModesTest, ATokenForAnotherPrefixFailsWithTheServicesMessage) {
  CliResult r = Doctor(other_token_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = DoctorReport(r);
  json commit = DoctorCheck(report, "service:commit");
  EXPECT_EQ(commit["status"], "FAIL");
  const std::string detail = commit["detail"];
  EXPECT_THAT(detail, HasSubstr("HTTP 403 forbidden"));
  EXPECT_THAT(detail, HasSubstr("token \"other\" may not commit to table " + table_));
  EXPECT_THAT(detail, HasSubstr("not under any of the token's table prefixes"));
  // Reading: coordinated writers need it; service-mode writers never ask.
  json read = DoctorCheck(report, "service:read");
  EXPECT_EQ(read["status"], mode_ == "coordinated" ? "FAIL" : "OK") << read;
  EXPECT_THAT(read["detail"].get<std::string>(), HasSubstr("HTTP 403"));
  ExpectNoSecrets(r);
}

TEST_P(DoctorServiceModesTest, AReadOnlyTokenFailsTheCommitCheckOnly) {
  CliResult r = Doctor(reader_token_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = DoctorReport(r);
  EXPECT_EQ(DoctorCheck(report, "service:commit")["status"], "FAIL");
  EXPECT_THAT(Detail(report, "service:commit"),
              HasSubstr("the token's actions do not include \"commit\""));
  EXPECT_EQ(DoctorCheck(report, "service:read")["status"], "OK");
  EXPECT_EQ(DoctorCheck(report, "pending commits")["status"], "OK");
  ExpectNoSecrets(r);
}

TEST_P(DoctorServiceModesTest, TheCommitCheckCoversTheServiceEndpoint) {
  CliResult allowed = Run({"doctor", table_, "--json", "--service-endpoint", "rgw"},
                          serve_->Url(""), writer_token_);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_THAT(Detail(DoctorReport(allowed), "service:commit"),
              HasSubstr("may commit to " + table_ + " through endpoint \"rgw\""));
  CliResult refused = Run({"doctor", table_, "--json", "--service-endpoint", "elsewhere"},
                          serve_->Url(""), writer_token_);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  json commit = DoctorCheck(DoctorReport(refused), "service:commit");
  EXPECT_EQ(commit["status"], "FAIL");
  EXPECT_THAT(commit["detail"].get<std::string>(), HasSubstr("HTTP 403 forbidden"));
  EXPECT_THAT(commit["detail"].get<std::string>(), HasSubstr("elsewhere"));
}

TEST_P(DoctorServiceModesTest, AServiceThatIsNotRunningFailsNamingTheUrl) {
  const std::string url = "http://127.0.0.1:" + std::to_string(UnusedPort());
  CliResult r = Run({"doctor", table_, "--json"}, url, writer_token_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = DoctorReport(r);
  json endpoint = DoctorCheck(report, "service endpoint");
  EXPECT_EQ(endpoint["status"], "FAIL");
  EXPECT_THAT(endpoint["detail"].get<std::string>(), HasSubstr(url + " unreachable"));
  EXPECT_THAT(endpoint["detail"].get<std::string>(), HasSubstr("is `deltacommit serve` running"));
  for (const char* skipped : {"service ready", "service:commit", "service:read",
                              "pending commits"}) {
    EXPECT_EQ(DoctorCheck(report, skipped)["status"], "SKIP") << skipped;
  }
  EXPECT_EQ(DoctorCheck(report, "sts:GetSessionToken")["status"], "OK");  // not the service's

  // https:// to the plain-HTTP service: a TLS failure, said so.
  const std::string https = "https://127.0.0.1:" + std::to_string(serve_->port());
  CliResult tls = Run({"doctor", table_}, https, writer_token_);
  EXPECT_EQ(tls.exit_code, 1) << tls.out;
  EXPECT_THAT(tls.out, HasSubstr("FAIL  service endpoint"));
  EXPECT_THAT(tls.out, HasSubstr("TLS failed"));
  for (const CliResult* out : {&r, &tls}) ExpectNoSecrets(*out);
}

TEST_P(DoctorServiceModesTest, AUserWithoutGetSessionTokenFailsNamingTheAction) {
  const std::string key = Env("DELTACOMMIT_TEST_NOSTS_ACCESS_KEY_ID");
  const std::string secret = Env("DELTACOMMIT_TEST_NOSTS_SECRET_ACCESS_KEY");
  if (key.empty() || secret.empty()) {
    GTEST_SKIP() << "no user without sts:GetSessionToken (DELTACOMMIT_TEST_NOSTS_*)";
  }
  CliResult r = Doctor(writer_token_, {"AWS_ACCESS_KEY_ID=" + key,
                                       "AWS_SECRET_ACCESS_KEY=" + secret});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json report = DoctorReport(r);
  json sts = DoctorCheck(report, "sts:GetSessionToken");
  EXPECT_EQ(sts["status"], "FAIL");
  const std::string detail = sts["detail"];
  EXPECT_THAT(detail, HasSubstr("grant them sts:GetSessionToken"));
  aws::Credentials nosts;
  nosts.access_key_id = key;
  EXPECT_THAT(detail, HasSubstr("long-term key " + nosts.RedactedKeyId() +
                                " from environment (AWS_ACCESS_KEY_ID)"));
  EXPECT_THAT(r.out, Not(HasSubstr("session on S3")));  // no session to try
  // The service's checks do not depend on the writer's credentials.
  EXPECT_EQ(DoctorCheck(report, "service:commit")["status"], "OK");
  EXPECT_THAT(r.out + r.err, Not(HasSubstr(secret)));
  ExpectNoSecrets(r);
}

TEST_P(DoctorServiceModesTest, TemporaryCredentialsPassThroughOnlyWithTheirExpiration) {
  StatusOr<aws::Credentials> session = TestSessionCredentials();
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<std::string> env = {"AWS_ACCESS_KEY_ID=" + session->access_key_id,
                                  "AWS_SECRET_ACCESS_KEY=" + session->secret_access_key,
                                  "AWS_SESSION_TOKEN=" + session->session_token};
  CliResult without = Doctor(writer_token_, env);
  EXPECT_EQ(without.exit_code, 1) << without.out << without.err;
  json sts = DoctorCheck(DoctorReport(without), "sts:GetSessionToken");
  EXPECT_EQ(sts["status"], "FAIL");
  EXPECT_THAT(sts["detail"].get<std::string>(), HasSubstr("session token but no expiration"));
  EXPECT_THAT(sts["detail"].get<std::string>(), HasSubstr("AWS_CREDENTIAL_EXPIRATION"));

  env.push_back("AWS_CREDENTIAL_EXPIRATION=" +
                aws::internal::FormatUtc(*session->expiration_ms));
  CliResult with = Doctor(writer_token_, env);
  EXPECT_EQ(with.exit_code, 0) << with.out << with.err;
  json report = DoctorReport(with);
  ExpectDoctorAllPass(report);
  EXPECT_THAT(Detail(report, "sts:GetSessionToken"),
              HasSubstr("not needed: the credentials (key " + session->RedactedKeyId() +
                        " from environment (AWS_ACCESS_KEY_ID)) are temporary"));
  EXPECT_THAT(with.out, Not(HasSubstr("session on S3")));  // the S3 checks used them already
  for (const CliResult* out : {&without, &with}) {
    ExpectNoSecrets(*out);
    EXPECT_THAT(out->out + out->err, Not(HasSubstr(session->secret_access_key)));
    EXPECT_THAT(out->out + out->err, Not(HasSubstr(session->session_token)));
  }
}

TEST_P(DoctorServiceModesTest, ALogWrittenAroundTheServiceFails) {
  ASSERT_NO_FATAL_FAILURE(CreateAndCommitOne());
  // Coordinated: the publisher writes 1.json in the background; the commit
  // around the service must come after it (else it would take version 1).
  for (int i = 0; i < 300 && !s3_.store->Head(CommitPath(1)).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(s3_.store->Head(CommitPath(1)).ok()) << "version 1 never published";
  // Version 2 put straight into the log, which the service never ratified
  // (our filesystem writers refuse a coordinated table, so a raw PUT stands
  // in for a foreign writer).
  StatusOr<std::string> one = s3_.store->Get(CommitPath(1));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_TRUE(s3_.store->PutIfAbsent(CommitPath(2), *one).ok());
  CliResult r = Doctor(writer_token_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json pending = DoctorCheck(DoctorReport(r), "pending commits");
  EXPECT_EQ(pending["status"], "FAIL");
  EXPECT_THAT(pending["detail"].get<std::string>(),
              HasSubstr("the log has " + CommitPath(2) +
                        " but the service's latest ratified version is 1: versions 2 to 2 were "
                        "written around the service"));
}

TEST_P(DoctorServiceModesTest, AModeTheTablesCoordinatorRefusesFailsTheCoordinatorCheck) {
  ASSERT_NO_FATAL_FAILURE(CreateAndCommitOne());
  // s3-conditional on the table: fine for a service-mode table, refused for
  // a coordinated one.
  CliResult direct = RunCli({"doctor", table_, "--json", "--log-store", "s3-conditional"});
  json check = DoctorCheck(DoctorReport(direct), "commit coordinator");
  if (mode_ == "service") {
    EXPECT_EQ(check["status"], "OK") << check;
    return;
  }
  EXPECT_EQ(direct.exit_code, 1) << direct.out << direct.err;
  EXPECT_EQ(check["status"], "FAIL") << check;
  EXPECT_THAT(check["detail"].get<std::string>(),
              HasSubstr("would bypass it: use --log-store coordinated"));
}

TEST_F(DoctorServiceTest, ACoordinatedWriterOnAPlainTableFailsTheCoordinatorCheck) {
  CliResult created = RunCli({"create", table_, "--schema", "id:long"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  CliResult r = Doctor(writer_token_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json check = DoctorCheck(DoctorReport(r), "commit coordinator");
  EXPECT_EQ(check["status"], "FAIL") << check;
  EXPECT_THAT(check["detail"].get<std::string>(), HasSubstr("names no commit coordinator"));
}

INSTANTIATE_TEST_SUITE_P(Modes, DoctorServiceModesTest,
                         ::testing::Values("service", "coordinated"));

// Coordinated commits wait for the publisher; one whose publisher drops
// every credential (they expire within the hour it wants) stays pending.
TEST_F(DoctorServiceTest, UnpublishedCoordinatedCommitsAreInformation) {
  serve_.reset();
  StartServe(ReaderToken() + "[publish]\nmin_credentials_validity_ms = 3600000\n");
  ASSERT_NO_FATAL_FAILURE(CreateAndCommitOne());
  CliResult r = Doctor(writer_token_);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json pending = DoctorCheck(DoctorReport(r), "pending commits");
  EXPECT_EQ(pending["status"], "OK");
  EXPECT_THAT(pending["detail"].get<std::string>(),
              HasSubstr("1 ratified, not yet published: versions 1 to 1"));
  EXPECT_THAT(pending["detail"].get<std::string>(), HasSubstr("plain Delta readers"));
  ExpectNoSecrets(r);
}

}  // namespace
}  // namespace deltacommit::testing
