// The s3-dynamodb entries as a program that is not ours sees them: commits
// made through our CLI (Ceph RGW + dynalite), read back with Debian's AWS
// CLI (/usr/bin/aws, never a shim on PATH), must be exactly Delta Spark's
// items (docs/protocols/s3-dynamodb.md): tablePath S, fileName S, tempPath S
// relative to _delta_log (".tmp/..."), complete S "true", expireTime N =
// commit time + ttl, and nothing else. Our own decoder would agree with our
// own encoder even if both were wrong; this check does not share code with
// them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "s3_dynamodb_fixture.h"

namespace deltacommit::testing {
namespace {

constexpr char kAws[] = "/usr/bin/aws";  // Debian's awscli (scripts/setup.sh)

class DynamoDbItemLayoutTest : public S3DynamoDbCliTest {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kAws)) {
      const std::string why = std::string(kAws) + " is missing: install Debian's awscli "
                              "(scripts/setup.sh does)";
      if (InCi()) FAIL() << "CI needs it: " << why;
      GTEST_SKIP() << why;
    }
    S3DynamoDbCliTest::SetUp();
  }

  // `aws dynamodb <args>` on the test server; its JSON output.
  nlohmann::json Aws(std::vector<std::string> args) const {
    const std::vector<std::string> common = {
        "--endpoint-url", client_->config().service.endpoint_url, "--region",
        client_->config().service.region, "--output", "json"};
    args.insert(args.begin(), "dynamodb");
    args.insert(args.end(), common.begin(), common.end());
    CliResult r = RunProgram(kAws, args);
    EXPECT_EQ(r.exit_code, 0) << "aws " << args[1] << " failed: " << r.err;
    auto json = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << "aws " << args[1] << " printed: " << r.out << r.err;
    return json;
  }

  nlohmann::json GetItem(Version version) const {
    const nlohmann::json key = {{"tablePath", {{"S", table_uri_}}},
                                {"fileName", {{"S", CommitFileName(version)}}}};
    return Aws({"get-item", "--table-name", ddb_table_, "--key", key.dump(), "--consistent-read"});
  }

  // Asserts `item` is Delta Spark's complete entry for `version`, written
  // between `begin` and `end` (epoch seconds) with time to live `ttl`.
  void ExpectCompleteEntry(const nlohmann::json& item, Version version, int64_t begin,
                           int64_t end, int64_t ttl) const {
    SCOPED_TRACE("entry of version " + std::to_string(version) + ": " + item.dump());
    std::set<std::string> names;
    for (const auto& [name, value] : item.items()) {
      names.insert(name);
      EXPECT_EQ(value.size(), 1u) << name << " must hold exactly one typed value";
    }
    EXPECT_EQ(names, (std::set<std::string>{"tablePath", "fileName", "tempPath", "complete",
                                            "expireTime"}));
    EXPECT_EQ(item["tablePath"], nlohmann::json({{"S", table_uri_}}));
    EXPECT_EQ(item["fileName"], nlohmann::json({{"S", CommitFileName(version)}}));
    EXPECT_EQ(item["complete"], nlohmann::json({{"S", "true"}}));
    ASSERT_TRUE(item["tempPath"].contains("S"));
    const std::string temp = item["tempPath"]["S"];
    const std::regex temp_name("\\.tmp/" + FormatVersion(version) +
                               "\\.json\\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                               "[0-9a-f]{12}");
    EXPECT_TRUE(std::regex_match(temp, temp_name)) << temp;
    // Relative to _delta_log: the temp object is there.
    EXPECT_TRUE(s3_.store->Head(std::string(kLogDir) + temp).ok()) << temp;
    ASSERT_TRUE(item["expireTime"].contains("N"));
    const std::string expire = item["expireTime"]["N"];
    ASSERT_TRUE(std::regex_match(expire, std::regex("[1-9][0-9]*"))) << expire;
    EXPECT_GE(std::stoll(expire), begin + ttl);
    EXPECT_LE(std::stoll(expire), end + ttl);
  }
};

TEST_F(DynamoDbItemLayoutTest, EntriesAreDeltaSparksItemsAsTheAwsCliSeesThem) {
  const int64_t begin = std::time(nullptr);
  CliResult create = Cli({"create", table_uri_, "--schema", "id:long"});
  ASSERT_EQ(create.exit_code, 0) << create.err;
  const int64_t created = std::time(nullptr);
  // A ttl of Delta Spark's own spelling ("3600s") for the second commit.
  CliResult commit = Cli({"commit", table_uri_, "--actions", "-", "--storage-option",
                          "io.delta.storage.S3DynamoDBLogStore.ddb.ttl=3600s"},
                         AddLine("part-0.parquet"));
  ASSERT_EQ(commit.exit_code, 0) << commit.err;
  const int64_t end = std::time(nullptr);

  nlohmann::json first = GetItem(0);
  ASSERT_TRUE(first.contains("Item")) << first.dump();
  ExpectCompleteEntry(first["Item"], 0, begin, created, 86400);
  nlohmann::json second = GetItem(1);
  ASSERT_TRUE(second.contains("Item")) << second.dump();
  ExpectCompleteEntry(second["Item"], 1, created, end, 3600);

  // The latest entry as Delta Spark finds it: Query, descending, Limit 1.
  const nlohmann::json values = {{":p", {{"S", table_uri_}}}};
  nlohmann::json latest =
      Aws({"query", "--table-name", ddb_table_, "--key-condition-expression", "tablePath = :p",
           "--expression-attribute-values", values.dump(), "--no-scan-index-forward", "--limit",
           "1", "--consistent-read"});
  ASSERT_TRUE(latest.contains("Items")) << latest.dump();
  ASSERT_EQ(latest["Items"].size(), 1u) << latest.dump();
  EXPECT_EQ(latest["Items"][0], second["Item"]);
}

}  // namespace
}  // namespace deltacommit::testing
