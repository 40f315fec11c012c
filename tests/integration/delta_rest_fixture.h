// The fixture of the Delta REST API tests: a real `deltacommit serve` with a
// [local] root, an admin and a reader token, catalog "main" with schema
// "sales", and the requests Unity Catalog's clients send to create a managed
// table and stage its commits (serve_delta_rest_test, catalog_table_test).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/serve_process.h"
#include "deltacommit/log_path.h"
#include "local_files.h"
#include "service/config/auth.h"
#include "service/http/http_test_util.h"

namespace deltacommit::testing {

inline constexpr char kToken[] = "delta-rest-admin-token-0123456789";
inline constexpr char kReaderToken[] = "delta-rest-reader-token-0123456789";
inline constexpr char kUc[] = "/api/2.1/unity-catalog";
inline constexpr char kTable[] = "/delta/v1/catalogs/main/schemas/sales/tables/orders";

class ServeDeltaRestTest : public ::testing::Test {
 protected:
  using json = nlohmann::json;
  void SetUp() override {
    base_ = std::filesystem::temp_directory_path() / ("dc-delta-rest-" + NewUuid());
    root_ = base_ / "root";
    std::filesystem::create_directories(root_);
    const std::string tables = "tables = [\"file://" + root_.string() + "\"]\n";
    auto serve = ServeProcess::Start(
        ExtraConfig() +
        "[server]\nlisten = \"127.0.0.1:0\"\n[state]\nkind = \"sqlite\"\npath = \"s.sqlite\"\n"
        "[local]\nroots = [\"" +
        root_.string() + "\"]\n[[token]]\nname = \"admin\"\nsha256 = \"" +
        service::HashToken(kToken) + "\"\n" + tables +
        "catalogs = [\"*\"]\nactions = [\"manage\", \"commit\", \"read\"]\n"
        "[[token]]\nname = \"reader\"\nsha256 = \"" +
        service::HashToken(kReaderToken) + "\"\n" + tables +
        "catalogs = [\"main\"]\nactions = [\"read\"]\n");
    ASSERT_TRUE(serve.ok()) << serve.status().ToString();
    serve_ = std::move(serve).value();
    ASSERT_EQ(Call("POST", "/catalogs",
                   json{{"name", "main"}, {"storage_root", "file://" + root_.string()}})
                  .status,
              200);
    ASSERT_EQ(Call("POST", "/schemas", json{{"name", "sales"}, {"catalog_name", "main"}}).status,
              200);
  }
  // Settings before the test's own (top-level tables such as [commits]).
  virtual std::string ExtraConfig() const { return ""; }

  void TearDown() override {
    serve_.reset();
    std::filesystem::remove_all(base_);
  }

  // One request on its own connection, JSON in, as UC's clients send it.
  http::testing::RawResponse Call(const std::string& method, const std::string& path,
                                  const json& body, const std::string& token = kToken) {
    http::testing::RawConnection connection(serve_->port());
    EXPECT_TRUE(connection.connected());
    EXPECT_TRUE(connection.Send(http::testing::RawRequest(
        method, kUc + path,
        "Authorization: Bearer " + token + "\r\nContent-Type: application/json\r\n",
        body.is_null() ? "" : body.dump())));
    // A HEAD's answer has no body: the service sends Content-Length 0.
    std::optional<http::testing::RawResponse> response = connection.ReadResponse();
    EXPECT_TRUE(response.has_value()) << method << " " << path;
    return response.value_or(http::testing::RawResponse{});
  }
  static json Body(const http::testing::RawResponse& response) {
    return json::parse(response.body, nullptr, false);
  }
  static void ExpectError(const http::testing::RawResponse& response, int status,
                          const std::string& type, const std::string& message) {
    EXPECT_EQ(response.status, status) << response.body;
    json error = Body(response).value("error", json::object());
    EXPECT_EQ(error.value("type", ""), type) << response.body;
    EXPECT_EQ(error.value("code", 0), status) << response.body;
    EXPECT_THAT(error.value("message", ""), ::testing::HasSubstr(message)) << response.body;
  }

  // Staging table, version 0 with the required protocol and properties,
  // create: the v1 sequence.
  json CreateManagedTable() {
    http::testing::RawResponse staged =
        Call("POST", "/delta/v1/catalogs/main/schemas/sales/staging-tables", {{"name", "orders"}});
    EXPECT_EQ(staged.status, 200) << staged.body;
    const json staging = Body(staged);
    table_id_ = staging.value("table-id", "");
    location_ = staging.value("location", "");
    EXPECT_TRUE(location_.starts_with("file://")) << location_;
    path_ = location_.substr(7);
    const json& protocol = staging["required-protocol"];
    const json& required = staging["required-properties"];
    json configuration = required;
    json metadata = {{"id", table_id_},
                     {"format", {{"provider", "parquet"}, {"options", json::object()}}},
                     {"schemaString", R"({"type":"struct","fields":[{"name":"id","type":"long",)"
                                      R"("nullable":true,"metadata":{}}]})"},
                     {"partitionColumns", json::array()},
                     {"configuration", configuration},
                     {"createdTime", 1700000000000}};
    const json log_protocol = {{"minReaderVersion", protocol["min-reader-version"]},
                               {"minWriterVersion", protocol["min-writer-version"]},
                               {"readerFeatures", protocol["reader-features"]},
                               {"writerFeatures", protocol["writer-features"]}};
    WriteFile(path_ / "_delta_log" / "00000000000000000000.json",
              json{{"commitInfo",
                    {{"timestamp", 1700000000000},
                     {"inCommitTimestamp", 1700000000000},
                     {"operation", "CREATE TABLE"}}}}
                      .dump() +
                  "\n" + json{{"protocol", log_protocol}}.dump() + "\n" +
                  json{{"metaData", metadata}}.dump() + "\n");
    // Hadoop's spelling of a local path, as Kernel's committer sends it.
    json create = {{"name", "orders"},
                   {"location", "file:" + path_.string()},
                   {"table-type", "MANAGED"},
                   {"columns",
                    {{"type", "struct"},
                     {"fields",
                      {{{"name", "id"},
                        {"type", "long"},
                        {"nullable", true},
                        {"metadata", json::object()}}}}}},
                   {"partition-columns", json::array()},
                   {"protocol", protocol},
                   {"properties", configuration},
                   {"last-commit-timestamp-ms", 1700000000000}};
    http::testing::RawResponse created =
        Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create);
    EXPECT_EQ(created.status, 200) << created.body;
    return Body(created);
  }

  // Puts version `v`'s staged commit (adding `file`) and returns its
  // DeltaCommit.
  json PutStaged(Version v, const std::string& file) {
    const std::string name = FormatVersion(v) + "." + NewUuid() + ".json";
    const int64_t ict = 1'700'000'000'000 + v * 1000;
    const std::string text =
        json{{"commitInfo",
              {{"timestamp", ict}, {"inCommitTimestamp", ict}, {"operation", "WRITE"}}}}
            .dump() +
        "\n" +
        json{{"add",
              {{"path", file},
               {"partitionValues", json::object()},
               {"size", 10},
               {"modificationTime", 1},
               {"dataChange", true}}}}
            .dump() +
        "\n";
    WriteFile(path_ / "_delta_log" / "_staged_commits" / name, text);
    return {{"version", v},
            {"timestamp", ict},
            {"file-name", name},
            {"file-size", text.size()},
            {"file-modification-timestamp", ict}};
  }

  json Update(const json& updates, std::optional<std::string> etag = std::nullopt) {
    json requirements = json::array({{{"type", "assert-table-uuid"}, {"uuid", table_id_}}});
    if (etag) requirements.push_back({{"type", "assert-etag"}, {"etag", *etag}});
    return {{"requirements", requirements}, {"updates", updates}};
  }
  static json AddCommit(const json& commit) {
    return {{"action", "add-commit"}, {"commit", commit}};
  }

  bool Published(Version v) {
    const std::filesystem::path file = path_ / "_delta_log" / (FormatVersion(v) + ".json");
    return http::testing::Eventually([&] { return std::filesystem::exists(file); });
  }

  std::filesystem::path base_, root_, path_;
  std::string table_id_, location_;
  std::unique_ptr<ServeProcess> serve_;
};

}  // namespace deltacommit::testing
