// `deltacommit doctor` and s3-dynamodb auto-create on the real servers
// (Ceph RGW + dynalite): doctor passes on good tables and prints a policy
// that parses; it FAILs, naming what is wrong, for a wrong secret key, a
// missing or misshapen DynamoDB table, an unreachable endpoint and an S3
// permission denied by a bucket policy. Auto-create creates the table on
// first use, racing creators both succeed, and without it the error says
// how to turn it on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/dynamodb_test_client.h"
#include "common/test_servers.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/log_path.h"
#include "doctor_report.h"

namespace deltacommit {
namespace {

using Json = nlohmann::json;
using testing::CliResult;
using testing::DoctorCheck;
using testing::DoctorReport;
using testing::ExpectDoctorAllPass;
using testing::RunCli;

// Sets an environment variable for the CLI processes a test starts, and
// restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    DC_REQUIRE_DYNAMODB();
    s3_ = testing::NewS3TestStore("doctor");
    ddb_table_ = "dl_doctor_" + NewUuid().substr(0, 8);
    client_ = ddb_.emplace().client.get();
  }

  std::vector<std::string> DynamoDbOptions(const std::string& table) const {
    return {"--log-store", "s3-dynamodb", "--storage-option",
            "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + table};
  }

  CliResult Cli(std::vector<std::string> args, const std::vector<std::string>& options,
                const std::string& input = {}) {
    args.insert(args.end(), options.begin(), options.end());
    return RunCli(args, input);
  }

  testing::S3TestStore s3_;
  std::string ddb_table_;
  std::optional<testing::DynamoDbTestClient> ddb_;  // after DC_REQUIRE_DYNAMODB
  dynamodb::DynamoDbClient* client_ = nullptr;
};

TEST_F(DoctorTest, GoodS3ConditionalTablePassesAndPrintsAPolicyThatParses) {
  ASSERT_EQ(RunCli({"create", s3_.uri, "--schema", "id:long"}).exit_code, 0);
  CliResult r = RunCli({"doctor", s3_.uri, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = DoctorReport(r);
  ExpectDoctorAllPass(report);
  EXPECT_EQ(report["mode"], "s3-conditional");
  for (const char* name : {"S3 credentials", "S3 endpoint", "s3:ListBucket", "s3:GetObject",
                           "s3:PutObject", "If-None-Match", "s3:DeleteObject"}) {
    EXPECT_EQ(DoctorCheck(report, name)["status"], "OK") << name;
  }
  EXPECT_NE(DoctorCheck(report, "s3:GetObject")["detail"].get<std::string>().find(CommitPath(0)),
            std::string::npos);
  // The probes are gone: only commit 0 (and nothing under .tmp/) is left.
  auto listing = s3_.store->List(kLogDir);
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->size(), 1u);
  EXPECT_EQ((*listing)[0].key, CommitPath(0));

  CliResult text = RunCli({"doctor", s3_.uri});
  EXPECT_EQ(text.exit_code, 0) << text.out;
  auto at = text.out.find("Least-privilege IAM policy");
  ASSERT_NE(at, std::string::npos) << text.out;
  Json printed = Json::parse(text.out.substr(text.out.find('\n', at)), nullptr, false);
  ASSERT_FALSE(printed.is_discarded()) << text.out;
  EXPECT_EQ(printed, report["policy"]);
  CliResult policy_only = RunCli({"doctor", s3_.uri, "--policy-only"});
  EXPECT_EQ(policy_only.exit_code, 0);
  EXPECT_EQ(Json::parse(policy_only.out, nullptr, false), report["policy"]);
  EXPECT_EQ(printed["Statement"][1]["Resource"],
            "arn:aws:s3:::" + s3_.store->config().bucket + "/" + s3_.store->config().key_prefix +
                "/_delta_log/*");
}

TEST_F(DoctorTest, GoodS3DynamoDbTablePasses) {
  ASSERT_EQ(RunCli({"dynamodb", "create-table", "--table-name", ddb_table_}).exit_code, 0);
  const std::string uri = "s3a" + s3_.uri.substr(2);
  ASSERT_EQ(Cli({"create", uri, "--schema", "id:long"}, DynamoDbOptions(ddb_table_)).exit_code, 0);
  CliResult r = Cli({"doctor", uri, "--json"}, DynamoDbOptions(ddb_table_));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = DoctorReport(r);
  // dynalite has no time to live: that check warns.
  ExpectDoctorAllPass(report, {"dynamodb:DescribeTimeToLive"});
  for (const char* name : {"CopyObject", "DynamoDB credentials", "DynamoDB endpoint",
                           "dynamodb:DescribeTable", "dynamodb:GetItem", "dynamodb:Query",
                           "dynamodb:PutItem"}) {
    EXPECT_EQ(DoctorCheck(report, name)["status"], "OK") << name;
  }
  EXPECT_NE(DoctorCheck(report, "dynamodb:Query")["detail"].get<std::string>().find(
                CommitFileName(0)),
            std::string::npos);
  Json statements = report["policy"]["Statement"];
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[2]["Resource"], "arn:aws:dynamodb:us-east-1:*:table/" + ddb_table_);
  // The PutItem probe wrote nothing: the only entry is version 0's.
  auto latest = client_->Query({ddb_table_,
                                {"tablePath = :p", {}, {{":p", dynamodb::AttributeValue::String(uri)}}},
                                true, std::nullopt, true, std::nullopt});
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->items.size(), 1u);
}

TEST_F(DoctorTest, WrongSecretKeyFailsNamingTheRejectedSignature) {
  const std::string bad_secret = "wrongWRONGwrongWRONGwrongWRONGwrong12345";
  ScopedEnv secret("AWS_SECRET_ACCESS_KEY", bad_secret);
  CliResult r = RunCli({"doctor", s3_.uri, "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = DoctorReport(r);
  EXPECT_EQ(report["ok"], false);
  Json list = DoctorCheck(report, "s3:ListBucket");
  EXPECT_EQ(list["status"], "FAIL");
  const std::string detail = list["detail"];
  EXPECT_NE(detail.find("SignatureDoesNotMatch"), std::string::npos) << detail;
  EXPECT_NE(detail.find("environment (AWS_ACCESS_KEY_ID)"), std::string::npos) << detail;
  EXPECT_EQ(DoctorCheck(report, "s3:PutObject")["status"], "FAIL");
  EXPECT_EQ(r.out.find(bad_secret), std::string::npos);  // never printed
  EXPECT_EQ(r.err.find(bad_secret), std::string::npos);
}

TEST_F(DoctorTest, MissingDynamoDbTableFailsWithBothHints) {
  CliResult r = Cli({"doctor", s3_.uri, "--json"}, DynamoDbOptions(ddb_table_));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = DoctorReport(r);
  Json describe = DoctorCheck(report, "dynamodb:DescribeTable");
  EXPECT_EQ(describe["status"], "FAIL");
  const std::string detail = describe["detail"];
  EXPECT_NE(detail.find("DynamoDB table " + ddb_table_ + " not found"), std::string::npos) << detail;
  EXPECT_NE(detail.find("deltacommit dynamodb create-table"), std::string::npos) << detail;
  EXPECT_NE(detail.find("--create-dynamodb-table"), std::string::npos) << detail;
  EXPECT_EQ(DoctorCheck(report, "dynamodb:PutItem")["status"], "SKIP");
  EXPECT_EQ(DoctorCheck(report, "s3:PutObject")["status"], "OK");  // S3 is fine

  // Doctor never creates it, even when auto-create is on: then it only warns.
  CliResult with_auto = Cli({"doctor", s3_.uri, "--json", "--create-dynamodb-table"},
                            DynamoDbOptions(ddb_table_));
  EXPECT_EQ(with_auto.exit_code, 0) << with_auto.out;
  EXPECT_EQ(DoctorCheck(DoctorReport(with_auto), "dynamodb:DescribeTable")["status"], "WARN");
  EXPECT_EQ(client_->DescribeTable(ddb_table_).status().code(), StatusCode::kNotFound);
  Json statements = DoctorReport(with_auto)["policy"]["Statement"];
  ASSERT_EQ(statements.size(), 4u);
  EXPECT_EQ(statements[3]["Action"][0], "dynamodb:CreateTable");
}

TEST_F(DoctorTest, DynamoDbTableWithAnotherKeySchemaFails) {
  ASSERT_TRUE(client_->CreateTable({ddb_table_, {"tableId"}, std::nullopt}).ok());
  ASSERT_TRUE(client_->WaitForTableActive(ddb_table_, std::chrono::seconds(60)).ok());
  CliResult r = Cli({"doctor", s3_.uri, "--json"}, DynamoDbOptions(ddb_table_));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json describe = DoctorCheck(DoctorReport(r), "dynamodb:DescribeTable");
  EXPECT_EQ(describe["status"], "FAIL");
  EXPECT_NE(describe["detail"].get<std::string>().find(
                "has key schema tableId S HASH, no RANGE key, but s3-dynamodb (Delta Spark, "
                "delta-rs) needs tablePath S HASH, fileName S RANGE"),
            std::string::npos)
      << describe;
  // Auto-create refuses it too, rather than committing into it.
  CliResult create = Cli({"create", s3_.uri, "--schema", "id:long", "--create-dynamodb-table"},
                         DynamoDbOptions(ddb_table_));
  EXPECT_EQ(create.exit_code, 1) << create.err;
  EXPECT_NE(create.err.find("needs tablePath S HASH"), std::string::npos) << create.err;
}

TEST_F(DoctorTest, UnreachableEndpointsFailAndSkipTheirChecks) {
  CliResult r = RunCli({"doctor", s3_.uri, "--json", "--endpoint-url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = DoctorReport(r);
  Json endpoint = DoctorCheck(report, "S3 endpoint");
  EXPECT_EQ(endpoint["status"], "FAIL");
  EXPECT_NE(endpoint["detail"].get<std::string>().find("http://127.0.0.1:1 unreachable"),
            std::string::npos)
      << endpoint;
  EXPECT_EQ(DoctorCheck(report, "s3:ListBucket")["status"], "SKIP");

  auto options = DynamoDbOptions(ddb_table_);
  options.insert(options.end(), {"--storage-option", "AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:1"});
  CliResult ddb = Cli({"doctor", s3_.uri, "--json"}, options);
  EXPECT_EQ(ddb.exit_code, 1);
  Json ddb_report = DoctorReport(ddb);
  EXPECT_EQ(DoctorCheck(ddb_report, "S3 endpoint")["status"], "OK");
  EXPECT_EQ(DoctorCheck(ddb_report, "DynamoDB endpoint")["status"], "FAIL");
  EXPECT_EQ(DoctorCheck(ddb_report, "dynamodb:DescribeTable")["status"], "SKIP");
}

TEST(DoctorLocalTest, LocalTablePassesAndAFileInsteadOfADirectoryFails) {
  const auto dir = std::filesystem::temp_directory_path() / ("dc-doctor-" + NewUuid());
  const std::string table = (dir / "t").string();
  ASSERT_EQ(RunCli({"create", table, "--schema", "id:long"}).exit_code, 0);
  CliResult r = RunCli({"doctor", table, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = DoctorReport(r);
  ExpectDoctorAllPass(report);
  EXPECT_EQ(DoctorCheck(report, "atomic create-if-absent")["status"], "OK");
  EXPECT_TRUE(report["policy"].is_null());
  EXPECT_EQ(RunCli({"doctor", table, "--policy-only"}).exit_code, 2);
  std::ofstream(dir / "file") << "x";
  CliResult file = RunCli({"doctor", (dir / "file").string(), "--json"});
  EXPECT_EQ(file.exit_code, 1);
  EXPECT_EQ(DoctorCheck(DoctorReport(file), "table directory")["status"], "FAIL");
  std::filesystem::remove_all(dir);
}

// --- auto-create -------------------------------------------------------------

TEST_F(DoctorTest, AutoCreateMakesTheTableOnFirstUseAndCommits) {
  const std::string uri = "s3a" + s3_.uri.substr(2);
  auto options = DynamoDbOptions(ddb_table_);
  options.insert(options.end(), {"--storage-option", "deltacommit.dynamodb.autoCreate=true"});
  CliResult r = Cli({"create", uri, "--schema", "id:long"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("created DynamoDB table " + ddb_table_), std::string::npos) << r.err;
  auto table = client_->DescribeTable(ddb_table_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->hash_key, "tablePath");
  EXPECT_EQ(table->range_key, "fileName");
  CliResult commit = Cli({"commit", uri, "--actions", "-"}, options, testing::AddLine("a"));
  EXPECT_EQ(commit.exit_code, 0) << commit.err;
  EXPECT_EQ(commit.err.find("created"), std::string::npos) << commit.err;  // it exists now
  auto entry = client_->GetItem({ddb_table_,
                                 {{"tablePath", dynamodb::AttributeValue::String(uri)},
                                  {"fileName", dynamodb::AttributeValue::String(CommitFileName(1))}},
                                 true});
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_TRUE(entry->has_value());
}

TEST_F(DoctorTest, RacingAutoCreatorsBothSucceed) {
  auto second = testing::NewS3TestStore("doctor-race");
  std::vector<std::string> uris = {s3_.uri, second.uri};
  std::vector<CliResult> results(2);
  std::vector<std::thread> creators;
  for (size_t i = 0; i < 2; ++i) {
    creators.emplace_back([&, i] {
      results[i] = Cli({"create", uris[i], "--schema", "id:long", "--create-dynamodb-table"},
                       DynamoDbOptions(ddb_table_));
    });
  }
  for (auto& t : creators) t.join();
  int created = 0;
  for (const CliResult& r : results) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    created += r.err.find("created DynamoDB table") != std::string::npos;
  }
  EXPECT_EQ(created, 1);  // the other found it, or lost the CreateTable race and waited
  auto table = client_->DescribeTable(ddb_table_);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->status, "ACTIVE");
}

TEST_F(DoctorTest, WithoutAutoCreateAMissingTableErrorHasBothHints) {
  CliResult r = Cli({"create", s3_.uri, "--schema", "id:long"}, DynamoDbOptions(ddb_table_));
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("deltacommit dynamodb create-table"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--create-dynamodb-table"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("deltacommit.dynamodb.autoCreate=true"), std::string::npos) << r.err;
  EXPECT_EQ(client_->DescribeTable(ddb_table_).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(s3_.store->Head(CommitPath(0)).ok());  // nothing committed
}

}  // namespace
}  // namespace deltacommit
