// `deltacommit serve` serving local (file:///path) tables under its [local]
// roots: writers commit through it with --log-store service and coordinated
// and send no credentials; what is not under a root, a link out of one, and
// what only S3 tables take are refused, and nothing is written. No S3 here:
// this is what `deltacommit demo` runs on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/serve_process.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/log_path.h"
#include "serve_api_fixture.h"
#include "service/config/auth.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

constexpr char kToken[] = "local-writer-token-0123456789";

class ServeLocalTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("dc-serve-local-" + NewUuid());
    root_ = base_ / "root";
    fs::create_directories(root_);
    fs::create_directories(base_ / "outside");
    auto serve = ServeProcess::Start(
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = \"sqlite\"\npath = \"s.sqlite\"\n"
        "[local]\nroots = [\"" + root_.string() + "\"]\n"
        "[[token]]\nname = \"writer\"\nsha256 = \"" + service::HashToken(kToken) + "\"\n"
        "tables = [\"file://" + base_.string() + "\"]\nactions = [\"commit\", \"read\"]\n");
    ASSERT_TRUE(serve.ok()) << serve.status().ToString();
    serve_ = std::move(serve).value();
  }
  void TearDown() override {
    serve_.reset();
    fs::remove_all(base_);
  }

  // The CLI with the service's URL and token.
  CliResult Cli(std::vector<std::string> args, const std::string& log_store,
                const std::string& stdin_data = {}) {
    for (const std::string& a : {std::string("--log-store"), log_store, std::string("--service-url"),
                                 serve_->Url(""), std::string("--service-token"),
                                 std::string(kToken)}) {
      args.push_back(a);
    }
    return RunCli(args, stdin_data);
  }

  aws::HttpResponse Post(const json& body) {
    aws::HttpRequest request;
    request.method = "POST";
    request.url = serve_->Url("/v1/commits");
    request.headers = {{"Authorization", std::string("Bearer ") + kToken},
                       {"Content-Type", "application/json"}};
    request.body = body.dump();
    StatusOr<aws::HttpResponse> response = http_->Send(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? *response : aws::HttpResponse{};
  }

  static json Commit(const fs::path& table) {
    return {{"table", "file://" + table.string()},
            {"version", 0},
            {"actions", FirstActions("t")}};
  }

  static json ErrorOf(const aws::HttpResponse& r) {
    json body = json::parse(r.body, nullptr, false);
    return body.is_object() && body.contains("error") ? body["error"] : json();
  }

  fs::path base_, root_;
  std::unique_ptr<ServeProcess> serve_;
  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
};

TEST_F(ServeLocalTablesTest, WritersCommitThroughTheServiceWithoutCredentials) {
  for (const std::string mode : {"service", "coordinated"}) {
    SCOPED_TRACE(mode);
    const std::string table = (root_ / mode).string();
    CliResult created = Cli({"create", table, "--schema", "id:long"}, mode);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    for (const std::string file : {"a.parquet", "b.parquet"}) {
      CliResult added = Cli({"commit", table, "--actions", "-"}, mode, AddLine(file));
      ASSERT_EQ(added.exit_code, 0) << added.err;
    }
    CliResult check = Cli({"check", table}, mode);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    CliResult files = Cli({"snapshot", table, "--files", "--json"}, mode);
    EXPECT_EQ(files.exit_code, 0) << files.err;
    EXPECT_THAT(files.out, AllOf(HasSubstr("a.parquet"), HasSubstr("b.parquet")));
    // Every commit went through the service (its log names the table), and
    // the log is whole on disk once published (coordinated: in the
    // background).
    EXPECT_THAT(serve_->Logs(), HasSubstr("\"table\":\"file://" + table + "\""));
    for (int i = 0; i < 500 && !fs::exists(fs::path(table) / CommitPath(2)); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (Version v = 0; v <= 2; ++v) {
      EXPECT_TRUE(fs::exists(fs::path(table) / CommitPath(v))) << v;
    }
  }
  EXPECT_THAT(serve_->Logs(), Not(HasSubstr("key_id"))) << "no credentials were sent";
  // doctor probes the service with placeholder credentials, which a local
  // table's request must not carry: refused, so the token's access shows.
  for (const std::string mode : {"service", "coordinated"}) {
    const std::string table = (root_ / mode).string();
    CliResult doctor = Cli({"doctor", table}, mode);
    EXPECT_EQ(doctor.exit_code, 0) << doctor.out << doctor.err;
    EXPECT_THAT(doctor.out, AllOf(HasSubstr("none needed: file://" + table + " is a local table"),
                                  HasSubstr("passed the token and [local] root checks")));
  }
}

TEST_F(ServeLocalTablesTest, TablesOutsideTheRootsAndLinksOutOfThemAre403) {
  aws::HttpResponse outside = Post(Commit(base_ / "outside"));
  EXPECT_EQ(outside.status, 403) << outside.body;
  EXPECT_THAT(ErrorOf(outside)["message"].dump(),
              HasSubstr("is not under any of the service's [local] roots"));

  fs::create_symlink(base_ / "outside", root_ / "escape");
  aws::HttpResponse escape = Post(Commit(root_ / "escape"));
  EXPECT_EQ(escape.status, 403) << escape.body;
  EXPECT_THAT(ErrorOf(escape)["message"].dump(), HasSubstr("crosses a symbolic link"));
  EXPECT_FALSE(fs::exists(base_ / "outside" / kLogDir)) << "nothing written outside the root";
}

TEST_F(ServeLocalTablesTest, CredentialsAndEndpointsAreRefusedForALocalTable) {
  json with_credentials = Commit(root_ / "t");
  with_credentials["credentials"] = {{"access_key_id", "AKIAEXAMPLE"},
                                     {"secret_access_key", "not-needed-secret"}};
  aws::HttpResponse refused = Post(with_credentials);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_THAT(ErrorOf(refused)["message"].dump(),
              HasSubstr("is a local table, which the service writes as its own user"));
  EXPECT_THAT(refused.body, Not(HasSubstr("not-needed-secret")));

  json with_endpoint = Commit(root_ / "t");
  with_endpoint["endpoint"] = "rgw";
  aws::HttpResponse no_endpoint = Post(with_endpoint);
  EXPECT_EQ(no_endpoint.status, 400) << no_endpoint.body;
  EXPECT_THAT(ErrorOf(no_endpoint)["message"].dump(), HasSubstr("has no S3 endpoint"));
  EXPECT_FALSE(fs::exists(root_ / "t")) << "nothing written";

  aws::HttpResponse ok = Post(Commit(root_ / "t"));
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_TRUE(fs::exists(root_ / "t" / CommitPath(0)));
}

}  // namespace
}  // namespace deltacommit::testing
