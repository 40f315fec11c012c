// The CLI's `--log-store service|coordinated` on the real S3 server (Ceph
// RGW), with a STAND-IN commit service: the ScriptedCommitService model on
// the real HTTP server, writing to the same bucket. This checks the client
// side end to end (options, environment, credentials sent, staged objects,
// merged listings, concurrent CLI writers); it is not a test of the service.
//
// (tests/integration/serve_sts_cli_test.cc runs the CLI against the real
// `deltacommit serve`.) The end-to-end test with it must cover, with
// the same CLI commands: 8 writer processes through the service on RGW ->
// versions contiguous, each commit once, in both modes; the real service's
// answers for expired credentials (422 "expired at"), an invalid session
// token and denied access (424 naming the S3 action), an endpoint not on the
// allowlist and a wrong table prefix (403), a missing token (401), an
// oversized commit (413) -> the CLI's message and exit code each, nothing
// written; a lost reply (service killed after ratifying) -> the CLI's retry
// or read-back lands the commit once; coordinated commits readable before
// they are published and after; a `<v>.json` written around the service is
// ignored; and the service logs of the run contain none of the secrets sent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"
#include "service/testing/scripted_commit_service.h"

namespace deltacommit {
namespace {

using testing::AddLine;
using testing::CliResult;
using testing::RunCli;
using testing::ScriptedCommitService;

class ServiceClientCliTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // Commits carry a session from RGW's STS for the test user's keys.
    DC_REQUIRE_STS();
    s3_ = testing::NewS3TestStore("svcclient");
    service_ = std::make_unique<ScriptedCommitService>(s3_.store->Describe(), s3_.store.get());
    ASSERT_TRUE(service_->Start().ok());
    // The token from the environment, as a deployment would keep it out of
    // the process list.
    ::setenv("DELTACOMMIT_SERVICE_TOKEN", std::string(ScriptedCommitService::kToken).c_str(), 1);
  }
  void TearDown() override { ::unsetenv("DELTACOMMIT_SERVICE_TOKEN"); }

  std::vector<std::string> Args(std::vector<std::string> args) {
    for (std::string a : {"--log-store", GetParam().c_str(), "--service-url"}) args.push_back(a);
    args.push_back(service_->url());
    return args;
  }

  nlohmann::json Snapshot() {
    CliResult r = RunCli(Args({"snapshot", s3_.uri, "--json"}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  testing::S3TestStore s3_;
  std::unique_ptr<ScriptedCommitService> service_;
};

TEST_P(ServiceClientCliTest, FourWriterProcessesLandEveryCommitOnce) {
  CliResult created = RunCli(Args({"create", s3_.uri, "--schema", "id:long"}));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  constexpr int kWriters = 4, kCommits = 4;
  std::vector<std::thread> writers;
  std::vector<CliResult> results(kWriters * kCommits);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int c = 0; c < kCommits; ++c) {
        const std::string path = "w" + std::to_string(w) + "-c" + std::to_string(c) + ".parquet";
        results[static_cast<size_t>(w * kCommits + c)] =
            RunCli(Args({"commit", s3_.uri, "--actions", "-"}), AddLine(path));
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const CliResult& r : results) ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json snapshot = Snapshot();
  EXPECT_EQ(snapshot["version"], kWriters * kCommits);
  EXPECT_EQ(snapshot["numFiles"], kWriters * kCommits);
  CliResult check = RunCli(Args({"check", s3_.uri}));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  if (GetParam() == "coordinated") {
    // Nothing published yet: every version above 0 lives in a staged object.
    EXPECT_FALSE(s3_.store->Head(CommitPath(1)).ok());
    ASSERT_TRUE(service_->Publish(kWriters * kCommits).ok());
    EXPECT_TRUE(s3_.store->Head(CommitPath(kWriters * kCommits)).ok());
    EXPECT_EQ(Snapshot()["numFiles"], kWriters * kCommits);
  } else {
    EXPECT_TRUE(s3_.store->Head(CommitPath(kWriters * kCommits)).ok());
  }
}

TEST_P(ServiceClientCliTest, ASessionForTheWritersKeysAndTheEndpointNameAreSent) {
  ASSERT_EQ(RunCli(Args({"create", s3_.uri, "--schema", "id:long"})).exit_code, 0);
  CliResult r = RunCli(Args({"commit", s3_.uri, "--actions", "-", "--service-endpoint", "rgw"}),
                       AddLine("a.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const testing::RecordedRequest sent = service_->requests().back();
  nlohmann::json body = nlohmann::json::parse(sent.body);
  EXPECT_EQ(body["endpoint"], "rgw");
  // The long-term keys in the environment are never sent: a session is.
  const nlohmann::json& creds = body["credentials"];
  EXPECT_NE(creds["access_key_id"], std::getenv("AWS_ACCESS_KEY_ID"));
  EXPECT_NE(creds["secret_access_key"], std::getenv("AWS_SECRET_ACCESS_KEY"));
  EXPECT_FALSE(creds.value("session_token", "").empty());
  EXPECT_FALSE(creds.value("expiration", "").empty());
  EXPECT_EQ(sent.body.find(std::getenv("AWS_SECRET_ACCESS_KEY")), std::string::npos);
}

TEST_P(ServiceClientCliTest, ARefusalIsReportedWithTheServicesMessage) {
  ASSERT_EQ(RunCli(Args({"create", s3_.uri, "--schema", "id:long"})).exit_code, 0);
  service_->ScriptCommits([](const http::Request&) {
    return std::optional<http::Response>(testing::ApiError(
        422, "credentials_invalid", "credentials expired at 2026-11-29T23:00:00Z"));
  });
  CliResult r = RunCli(Args({"commit", s3_.uri, "--actions", "-"}), AddLine("a.parquet"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("expired at 2026-11-29T23:00:00Z"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(std::getenv("AWS_SECRET_ACCESS_KEY")), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(ScriptedCommitService::kToken), std::string::npos) << r.err;
}

// A coordinated table says so (docs/protocols/coordinated.md), so that no
// filesystem writer commits around the service; a service-mode table is an
// ordinary table that s3-conditional writers share (the service writes
// <v>.json put-if-absent).
TEST_P(ServiceClientCliTest, ACoordinatedTableNamesItsCoordinatorAndRefusesOtherWriters) {
  ASSERT_EQ(RunCli(Args({"create", s3_.uri, "--schema", "id:long"})).exit_code, 0);
  StatusOr<std::string> first = s3_.store->Get(CommitPath(0));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  nlohmann::json protocol, configuration;
  std::istringstream lines(*first);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json action = nlohmann::json::parse(line);
    if (action.contains("protocol")) protocol = action["protocol"];
    if (action.contains("metaData")) configuration = action["metaData"]["configuration"];
  }
  CliResult direct = RunCli({"commit", s3_.uri, "--actions", "-", "--log-store", "s3-conditional"},
                            AddLine("direct.parquet"));
  if (GetParam() == "service") {
    EXPECT_FALSE(configuration.contains("delta.coordinatedCommits.commitCoordinator-preview"));
    EXPECT_EQ(direct.exit_code, 0) << direct.err;
    return;
  }
  EXPECT_EQ(configuration["delta.coordinatedCommits.commitCoordinator-preview"], "deltacommit");
  EXPECT_EQ(nlohmann::json::parse(std::string(
                configuration["delta.coordinatedCommits.commitCoordinatorConf-preview"]))["serviceUrl"],
            service_->url());
  EXPECT_EQ(configuration["delta.coordinatedCommits.tableConf-preview"], "{}");
  EXPECT_EQ(configuration["delta.enableInCommitTimestamps"], "true");
  EXPECT_EQ(protocol["minWriterVersion"], 7);
  EXPECT_EQ(protocol["writerFeatures"],
            nlohmann::json({"coordinatedCommits-preview", "inCommitTimestamp",
                            "vacuumProtocolCheck"}));
  EXPECT_EQ(protocol["readerFeatures"], nlohmann::json({"vacuumProtocolCheck"}));
  EXPECT_NE(direct.exit_code, 0);
  EXPECT_NE(direct.err.find("would bypass it: use --log-store coordinated"), std::string::npos)
      << direct.err;
  EXPECT_FALSE(s3_.store->Head(CommitPath(1)).ok()) << "nothing written around the service";
  CliResult ours = RunCli(Args({"commit", s3_.uri, "--actions", "-"}), AddLine("ours.parquet"));
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  // Reading around the service works, and says it may be behind.
  CliResult around = RunCli({"snapshot", s3_.uri, "--log-store", "s3-conditional"});
  EXPECT_EQ(around.exit_code, 0) << around.err;
  EXPECT_NE(around.err.find("shows only published commits and may be behind: use --log-store "
                            "coordinated"),
            std::string::npos)
      << around.err;
  EXPECT_EQ(RunCli(Args({"snapshot", s3_.uri})).err, "");
}

TEST_P(ServiceClientCliTest, ACoordinatedWriterRefusesATableCreatedWithoutACoordinator) {
  ASSERT_EQ(RunCli({"create", s3_.uri, "--schema", "id:long", "--log-store", "s3-conditional"})
                .exit_code,
            0);
  CliResult r = RunCli(Args({"commit", s3_.uri, "--actions", "-"}), AddLine("a.parquet"));
  if (GetParam() == "service") {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return;
  }
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("names no commit coordinator"), std::string::npos) << r.err;
  for (const testing::RecordedRequest& sent : service_->requests()) {
    EXPECT_NE(sent.method, "POST") << "refused before any commit was sent";
  }
}

TEST_P(ServiceClientCliTest, AMissingTokenOrUrlSaysWhereToGiveIt) {
  ::unsetenv("DELTACOMMIT_SERVICE_TOKEN");
  CliResult r = RunCli(Args({"snapshot", s3_.uri}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("DELTACOMMIT_SERVICE_TOKEN"), std::string::npos) << r.err;
  r = RunCli({"snapshot", s3_.uri, "--log-store", GetParam(), "--service-token", "t"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--service-url"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, ServiceClientCliTest,
                         ::testing::Values("service", "coordinated"));

TEST(ServiceClientCliOptionsTest, ServiceOptionsWithAnotherLogStoreAreRefused) {
  DC_REQUIRE_S3();
  CliResult r = RunCli({"snapshot", "s3://bucket/t", "--service-url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--service-url: only for --log-store service or coordinated"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace deltacommit
