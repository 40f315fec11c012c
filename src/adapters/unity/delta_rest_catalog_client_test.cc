// The Delta REST API client's parsing of the catalog's answers and its
// checks of options; its calls run against a real `deltacommit serve` in
// tests/integration/catalog_table_test.cc.
#include "deltacommit/unity_client/delta_rest_catalog_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace deltacommit::unity_client {
namespace {

using ::testing::HasSubstr;

constexpr char kContext[] = "catalog http://uc: load table main.sales.orders";

TEST(ParseLoadTableAnswerTest, CommitsComeAscendingWithTheirStagedNames) {
  StatusOr<CatalogTable> table = ParseLoadTableAnswer(
      R"({"metadata":{"table-uuid":"u-1","location":"file:/data/t","table-type":"MANAGED"},
          "commits":[{"version":3,"timestamp":30,"file-name":"00000000000000000003.b.json",
                      "file-size":7,"file-modification-timestamp":31},
                     {"version":2,"timestamp":20,"file-name":"00000000000000000002.a.json",
                      "file-size":5,"file-modification-timestamp":21}],
          "latest-table-version":3})",
      kContext);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->table_id, "u-1");
  EXPECT_EQ(table->location, "file:///data/t");
  EXPECT_TRUE(table->managed);
  EXPECT_EQ(table->commits.latest_version, 3);
  ASSERT_EQ(table->commits.commits.size(), 2u);
  EXPECT_EQ(table->commits.commits[0].version, 2);
  EXPECT_EQ(table->commits.commits[0].staged_file,
            "_delta_log/_staged_commits/00000000000000000002.a.json");
  EXPECT_EQ(table->commits.commits[0].size, 5);
  EXPECT_EQ(table->commits.commits[1].commit_timestamp_ms, 30);
}

TEST(ParseLoadTableAnswerTest, AnExternalTableWithoutCommitsHasNoLatestVersion) {
  StatusOr<CatalogTable> table = ParseLoadTableAnswer(
      R"({"metadata":{"table-uuid":"u","location":"s3://b/t/","table-type":"EXTERNAL"}})",
      kContext);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_FALSE(table->managed);
  EXPECT_EQ(table->location, "s3://b/t");
  EXPECT_EQ(table->commits.latest_version, -1);
  EXPECT_TRUE(table->commits.commits.empty());
}

TEST(ParseLoadTableAnswerTest, AnswersThatCannotBeTrustedAreRefusedNamingWhy) {
  const std::string metadata =
      R"("metadata":{"table-uuid":"u","location":"s3://b/t","table-type":"MANAGED"})";
  auto commit = [](int v, const std::string& name) {
    return R"({"version":)" + std::to_string(v) + R"(,"timestamp":1,"file-name":")" + name +
           R"(","file-size":1,"file-modification-timestamp":1})";
  };
  const std::pair<std::string, std::string> cases[] = {
      {"[]", "not a JSON object"},
      {R"({"commits":[]})", "no \"metadata\" object"},
      {R"({"metadata":{"location":"s3://b/t","table-type":"MANAGED"}})", "\"table-uuid\""},
      {"{" + metadata + R"(,"commits":[)" + commit(1, "a.json") + "," + commit(3, "c.json") +
           R"(],"latest-table-version":3})",
       "not contiguous (1 then 3)"},
      {"{" + metadata + R"(,"commits":[)" + commit(4, "a.json") + R"(],"latest-table-version":3})",
       "above latest-table-version 3"},
      {"{" + metadata + R"(,"commits":[)" + commit(1, "../../x.json") +
           R"(],"latest-table-version":1})",
       "not a staged commit's name"},
      {"{" + metadata + R"(,"commits":{}})", "\"commits\" is not an array"},
  };
  for (const auto& [body, want] : cases) {
    StatusOr<CatalogTable> table = ParseLoadTableAnswer(body, kContext);
    ASSERT_FALSE(table.ok()) << body;
    EXPECT_THAT(table.status().message(), HasSubstr(want)) << body;
    EXPECT_THAT(table.status().message(), HasSubstr(kContext)) << body;
  }
}

TEST(ParseCredentialsAnswerTest, TheLongestPrefixOfTheLocationWins) {
  const std::string body = R"({"storage-credentials":[
      {"prefix":"s3://b/","operation":"READ","config":{"s3.access-key-id":"wide"}},
      {"prefix":"s3://b/tables/t/","operation":"READ_WRITE",
       "config":{"s3.access-key-id":"AK","s3.secret-access-key":"SK","s3.session-token":"ST"},
       "expiration-time-ms":1700000000000},
      {"prefix":"s3://b/tables/t-sibling/","config":{"s3.access-key-id":"sibling"}}]})";
  StatusOr<VendedCredentials> c = ParseCredentialsAnswer(body, "s3://b/tables/t", kContext);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AK");
  EXPECT_EQ(c->secret_access_key, "SK");
  EXPECT_EQ(c->session_token, "ST");
  EXPECT_EQ(c->expiration_ms, 1700000000000);
  // A table sharing the start of its name gets the bucket's, not its
  // sibling's.
  StatusOr<VendedCredentials> other = ParseCredentialsAnswer(body, "s3://b/tables/t-s", kContext);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->access_key_id, "wide");
  StatusOr<VendedCredentials> none = ParseCredentialsAnswer(body, "s3://other/t", kContext);
  EXPECT_THAT(none.status().message(), HasSubstr("no credential's prefix covers s3://other/t"));
}

TEST(ParseCredentialsAnswerTest, ALocalLocationGetsEmptyCredentialsThatNeverExpire) {
  StatusOr<VendedCredentials> c = ParseCredentialsAnswer(
      R"({"storage-credentials":[{"prefix":"file:///data/t/","operation":"READ","config":{}}]})",
      "file:///data/t", kContext);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->access_key_id.empty());
  EXPECT_FALSE(c->expiration_ms.has_value());
}

TEST(ParseStagingTableAnswerTest, RequirementsAndCredentialsAreRead) {
  StatusOr<CatalogStagingTable> staging = ParseStagingTableAnswer(
      R"({"table-id":"id-1","table-type":"MANAGED","location":"s3://b/tables/id-1",
          "storage-credentials":[{"prefix":"s3://b/tables/id-1/","operation":"READ_WRITE",
            "config":{"s3.access-key-id":"AK","s3.secret-access-key":"SK"}}],
          "required-protocol":{"min-reader-version":3,"min-writer-version":7,
            "reader-features":["catalogManaged"],
            "writer-features":["catalogManaged","inCommitTimestamp"]},
          "required-properties":{"io.unitycatalog.tableId":"id-1"}})",
      kContext);
  ASSERT_TRUE(staging.ok()) << staging.status().ToString();
  EXPECT_EQ(staging->table_id, "id-1");
  EXPECT_EQ(staging->credentials.access_key_id, "AK");
  EXPECT_EQ(staging->required_reader_features, std::vector<std::string>{"catalogManaged"});
  EXPECT_EQ(staging->required_writer_features.size(), 2u);
  EXPECT_EQ(staging->required_properties.at("io.unitycatalog.tableId"), "id-1");
  StatusOr<CatalogStagingTable> bad = ParseStagingTableAnswer(
      R"({"table-id":"i","location":"s3://b/t","required-properties":{"k":1}})", kContext);
  EXPECT_THAT(bad.status().message(), HasSubstr("required property \"k\" is not a string"));
}

TEST(NormalizeLocationTest, HadoopsSpellingOfAPathIsAFileUri) {
  EXPECT_EQ(NormalizeLocation("file:/data/t"), "file:///data/t");
  EXPECT_EQ(NormalizeLocation("file:///data/t/"), "file:///data/t");
  EXPECT_EQ(NormalizeLocation("s3://b/p/"), "s3://b/p");
  EXPECT_EQ(NormalizeLocation("s3://b"), "s3://b");
}

class NoHttp : public aws::HttpClient {
 public:
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest&) override {
    return UnavailableError("no network in this test");
  }
};

class NoSleep : public Sleeper {
 public:
  void Sleep(std::chrono::milliseconds) override {}
};

TEST(DeltaRestCatalogClientTest, OptionsAreCheckedBeforeAnythingIsSent) {
  NoHttp http;
  NoSleep sleeper;
  for (const char* url : {"", "ftp://uc", "http://", "http://uc:8080?x=1", "uc:8080"}) {
    auto client = DeltaRestCatalogClient::Create({url, "token", {}}, http, sleeper);
    EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(client.status().message(), HasSubstr("--catalog-url")) << url;
  }
  auto no_token = DeltaRestCatalogClient::Create({"http://uc:8080", "", {}}, http, sleeper);
  EXPECT_THAT(no_token.status().message(), HasSubstr("--catalog-token"));
  auto client = DeltaRestCatalogClient::Create({"http://uc:8080/api/2.1/unity-catalog/", "t", {}},
                                               http, sleeper);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->Describe(), "catalog http://uc:8080");
}

}  // namespace
}  // namespace deltacommit::unity_client
