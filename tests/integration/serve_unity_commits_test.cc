// Unity Catalog's coordinated commits (POST and GET
// /api/2.1/unity-catalog/delta/preview/commits) on a real `deltacommit
// serve`, in the order Delta Spark's UCTokenBasedRestClient calls them for a
// managed table under a [local] root: stage the table, write version 0,
// create it, then for each version put the staged commit and ratify it;
// resend, conflict, skip ahead, cap and bad requests; the service
// publishes every ratified commit to _delta_log/<v>.json itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/serve_process.h"
#include "deltacommit/log_path.h"
#include "doc_table.h"
#include "local_files.h"
#include "service/config/auth.h"
#include "service/http/http_test_util.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kToken[] = "uc-commits-admin-token-0123456789";
constexpr char kReaderToken[] = "uc-commits-reader-token-0123456789";
constexpr char kBase[] = "/api/2.1/unity-catalog";

class ServeUnityCommitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("dc-uc-commits-" + NewUuid());
    root_ = base_ / "root";
    fs::create_directories(root_);
    auto serve = ServeProcess::Start(
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = \"sqlite\"\npath = \"s.sqlite\"\n"
        "[local]\nroots = [\"" +
        root_.string() +
        "\"]\n"
        "[[token]]\nname = \"admin\"\nsha256 = \"" +
        service::HashToken(kToken) +
        "\"\n"
        "tables = [\"file://" +
        root_.string() +
        "\"]\ncatalogs = [\"*\"]\n"
        "actions = [\"manage\", \"commit\", \"read\"]\n"
        "[[token]]\nname = \"reader\"\nsha256 = \"" +
        service::HashToken(kReaderToken) +
        "\"\n"
        "tables = [\"file://" +
        root_.string() +
        "\"]\ncatalogs = [\"main\"]\n"
        "actions = [\"read\"]\n");
    ASSERT_TRUE(serve.ok()) << serve.status().ToString();
    serve_ = std::move(serve).value();
    ASSERT_EQ(Uc("POST", "/catalogs",
                 json{{"name", "main"}, {"storage_root", "file://" + root_.string()}})
                  .status,
              200);
    ASSERT_EQ(Uc("POST", "/schemas", json{{"name", "sales"}, {"catalog_name", "main"}}).status,
              200);
    CreateManagedTable();
  }
  void TearDown() override {
    serve_.reset();
    fs::remove_all(base_);
  }

  // One request on its own connection, as UC's clients send it: JSON in,
  // also on a GET (the raw connection sends what curl would not).
  http::testing::RawResponse Uc(const std::string& method, const std::string& path,
                                const json& body, const std::string& token = kToken) {
    return UcRaw(method, path, body.is_null() ? "" : body.dump(), token);
  }
  http::testing::RawResponse UcRaw(const std::string& method, const std::string& path,
                                   const std::string& text, const std::string& token) {
    http::testing::RawConnection connection(serve_->port());
    EXPECT_TRUE(connection.connected());
    EXPECT_TRUE(connection.Send(http::testing::RawRequest(
        method, kBase + path,
        "Authorization: Bearer " + token + "\r\nContent-Type: application/json\r\n", text)));
    std::optional<http::testing::RawResponse> response = connection.ReadResponse();
    EXPECT_TRUE(response.has_value()) << method << " " << path;
    return response.value_or(http::testing::RawResponse{});
  }
  static json Body(const http::testing::RawResponse& response) {
    return json::parse(response.body, nullptr, false);
  }

  // Stage, write version 0 at the staging location, create: the legacy
  // sequence of Delta's UC catalog client.
  void CreateManagedTable() {
    http::testing::RawResponse staged =
        Uc("POST", "/staging-tables",
           json{{"name", "orders"}, {"catalog_name", "main"}, {"schema_name", "sales"}});
    ASSERT_EQ(staged.status, 200) << staged.body;
    table_id_ = Body(staged)["id"];
    location_ = Body(staged)["staging_location"];
    ASSERT_TRUE(location_.starts_with("file://")) << location_;
    path_ = location_.substr(7);
    const std::string schema =
        R"({\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]})";
    WriteFile(
        path_ / "_delta_log" / "00000000000000000000.json",
        R"({"commitInfo":{"timestamp":1700000000000,"inCommitTimestamp":1700000000000,"operation":"CREATE TABLE"}})"
        "\n"
        R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["catalogManaged"],"writerFeatures":["catalogManaged","inCommitTimestamp"]}})"
        "\n"
        R"({"metaData":{"id":")" +
            table_id_ + R"(","format":{"provider":"parquet","options":{}},"schemaString":")" +
            schema + R"(","partitionColumns":[],"configuration":{"io.unitycatalog.tableId":")" +
            table_id_ +
            R"(","delta.enableInCommitTimestamps":"true"},"createdTime":1700000000000}})"
            "\n");
    json column = {{"name", "id"},
                   {"type_text", "bigint"},
                   {"type_json", R"({"name":"id","type":"long","nullable":true,"metadata":{}})"},
                   {"type_name", "LONG"},
                   {"position", 0},
                   {"nullable", true}};
    http::testing::RawResponse created =
        Uc("POST", "/tables",
           json{{"name", "orders"},
                {"catalog_name", "main"},
                {"schema_name", "sales"},
                {"table_type", "MANAGED"},
                {"data_source_format", "DELTA"},
                {"columns", json::array({column})},
                {"storage_location", location_},
                {"properties",
                 {{"io.unitycatalog.tableId", table_id_},
                  {"delta.feature.catalogManaged", "supported"}}}});
    ASSERT_EQ(created.status, 200) << created.body;
  }

  // Puts version `v`'s staged commit (adding `file`) and returns its name.
  std::string PutStaged(Version v, const std::string& file) {
    const std::string name = FormatVersion(v) + "." + NewUuid() + ".json";
    const int64_t ict = 1'700'000'000'000 + v * 1000;
    WriteFile(path_ / "_delta_log" / "_staged_commits" / name,
              R"({"commitInfo":{"timestamp":)" + std::to_string(ict) + R"(,"inCommitTimestamp":)" +
                  std::to_string(ict) +
                  R"(,"operation":"WRITE"}})"
                  "\n"
                  R"({"add":{"path":")" +
                  file +
                  R"(","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true}})"
                  "\n");
    return name;
  }

  json CommitBody(Version v, const std::string& file_name) {
    const fs::path staged = path_ / "_delta_log" / "_staged_commits" / file_name;
    const int64_t size = fs::exists(staged) ? static_cast<int64_t>(fs::file_size(staged)) : 1;
    return {{"table_id", table_id_},
            // Hadoop's spelling of a local path, as Delta Spark sends it.
            {"table_uri", "file:" + path_.string()},
            {"commit_info",
             {{"version", v},
              {"timestamp", 1'700'000'000'000 + v * 1000},
              {"file_name", file_name},
              {"file_size", size},
              {"file_modification_timestamp", 1'700'000'000'000 + v * 1000}}},
            {"latest_backfilled_version", v - 1}};
  }

  json GetBody(Version start) {
    return {{"table_id", table_id_}, {"table_uri", location_}, {"start_version", start}};
  }

  // Polls until the service has published `v`.
  bool Published(Version v) {
    const fs::path file = path_ / "_delta_log" / (FormatVersion(v) + ".json");
    return http::testing::Eventually([&] { return fs::exists(file); });
  }

  void ExpectError(const http::testing::RawResponse& response, int status, const std::string& code,
                   const std::string& message) {
    EXPECT_EQ(response.status, status) << response.body;
    json body = Body(response);
    EXPECT_EQ(body.value("error_code", ""), code) << response.body;
    EXPECT_THAT(body.value("message", ""), HasSubstr(message));
  }

  fs::path base_, root_, path_;
  std::string table_id_, location_;
  std::unique_ptr<ServeProcess> serve_;
};

TEST_F(ServeUnityCommitsTest, CommitsAreRatifiedOnceInOrderAndPublished) {
  // Nothing ratified yet: the latest version is 0, as UC answers.
  http::testing::RawResponse none = Uc("GET", "/delta/preview/commits", GetBody(0));
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(Body(none), json::parse(R"({"commits":[],"latest_table_version":0})"));

  const std::string first = PutStaged(1, "a.parquet");
  http::testing::RawResponse committed = Uc("POST", "/delta/preview/commits", CommitBody(1, first));
  ASSERT_EQ(committed.status, 200) << committed.body;
  // A resend (the reply was lost; UC's SDK retries) is the same commit.
  EXPECT_EQ(Uc("POST", "/delta/preview/commits", CommitBody(1, first)).status, 200);
  // Another writer's version 1 lost the race: 409, which Delta rebases on.
  ExpectError(Uc("POST", "/delta/preview/commits", CommitBody(1, PutStaged(1, "b.parquet"))), 409,
              "COMMIT_VERSION_CONFLICT", "version 1 of " + location_ + " is taken");
  // A version that skips one: 400.
  ExpectError(Uc("POST", "/delta/preview/commits", CommitBody(3, PutStaged(3, "c.parquet"))), 400,
              "INVALID_ARGUMENT", "is ahead: the latest version is 1");

  ASSERT_TRUE(Published(1));
  EXPECT_EQ(ReadFile(path_ / "_delta_log" / "00000000000000000001.json"),
            ReadFile(path_ / "_delta_log" / "_staged_commits" / first));
  http::testing::RawResponse listed = Uc("GET", "/delta/preview/commits", GetBody(0), kReaderToken);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(Body(listed)["latest_table_version"], 1);

  // A resend after publishing is still the same commit.
  EXPECT_EQ(Uc("POST", "/delta/preview/commits", CommitBody(1, first)).status, 200);
  // The writer's own backfill report: a version it cannot have published
  // is refused, one it may have is taken as a hint.
  json backfill = {
      {"table_id", table_id_}, {"table_uri", location_}, {"latest_backfilled_version", 5}};
  ExpectError(Uc("POST", "/delta/preview/commits", backfill), 400, "INVALID_ARGUMENT",
              "Should not backfill version 5 while the last version committed is 1");
  backfill["latest_backfilled_version"] = 1;
  EXPECT_EQ(Uc("POST", "/delta/preview/commits", backfill).status, 200);

  // Version 2 sets the table's properties in the catalog too.
  json with_metadata = CommitBody(2, PutStaged(2, "d.parquet"));
  with_metadata["metadata"] = {
      {"description", "orders, by day"},
      {"properties",
       {{"properties", {{"io.unitycatalog.tableId", table_id_}, {"team", "sales"}}}}}};
  ASSERT_EQ(Uc("POST", "/delta/preview/commits", with_metadata).status, 200);
  ASSERT_TRUE(Published(2));
  json table = Body(Uc("GET", "/tables/main.sales.orders", nullptr));
  EXPECT_EQ(table["properties"]["team"], "sales") << table.dump();
  EXPECT_EQ(table["comment"], "orders, by day");

  // The log is versions 0, 1, 2 and nothing else.
  std::vector<std::string> commits;
  for (const auto& entry : fs::directory_iterator(path_ / "_delta_log")) {
    if (entry.is_regular_file()) commits.push_back(entry.path().filename().string());
  }
  std::sort(commits.begin(), commits.end());
  EXPECT_EQ(commits,
            (std::vector<std::string>{"00000000000000000000.json", "00000000000000000001.json",
                                      "00000000000000000002.json"}));
}

// docs/bad-inputs.md "The Unity Catalog commits API": each row's status,
// code and message, and none ratifies or publishes anything.
TEST_F(ServeUnityCommitsTest, EveryBadInputRowGetsItsStatusCodeAndErrorAndRatifiesNothing) {
  const std::string staged = PutStaged(1, "a.parquet");
  const std::string size =
      std::to_string(fs::file_size(path_ / "_delta_log" / "_staged_commits" / staged));
  auto fill = [&](std::string text) {
    for (const auto& [name, value] : {std::pair<std::string, std::string>{"$TABLE_ID", table_id_},
                                      {"$LOCATION", location_},
                                      {"$HADOOP_URI", "file:" + path_.string()},
                                      {"$STAGED", staged},
                                      {"$SIZE", size},
                                      {"$ROOT", root_.string()}}) {
      text = ReplaceAll(text, name, value);
    }
    return text;
  };
  const auto rows = DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC,
                                   "The Unity Catalog commits API "
                                   "(`/api/2.1/unity-catalog/delta/preview/commits`)",
                                   fill);
  ASSERT_GE(rows.size(), 20u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "a row needs 7 cells and \"METHOD /path\"";
    const std::string token = row.token == "admin"    ? kToken
                              : row.token == "reader" ? kReaderToken
                                                      : "not-a-token-" + NewUuid();
    ExpectError(UcRaw(row.method, row.path, row.body, token), row.status, row.code, row.says);
  }
  // None of it ratified or published anything; the staged commit is fine.
  EXPECT_EQ(Body(Uc("GET", "/delta/preview/commits", GetBody(0)))["latest_table_version"], 0);
  EXPECT_FALSE(fs::exists(path_ / "_delta_log" / "00000000000000000001.json"));
  EXPECT_EQ(Uc("POST", "/delta/preview/commits", CommitBody(1, staged)).status, 200);
}

}  // namespace
}  // namespace deltacommit::testing
