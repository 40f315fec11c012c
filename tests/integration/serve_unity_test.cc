// Unity Catalog's REST names on a real `deltacommit serve` (RGW, SQLite
// state), over HTTP as a Unity Catalog client sends them: a catalog, a
// schema, a staged managed table and an external one made, resolved,
// listed and dropped; then every row of docs/bad-inputs.md "The Unity
// Catalog API", each answered with its status, code and message and
// leaving the catalog and the bucket as they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doc_table.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kBase[] = "/api/2.1/unity-catalog";

class ServeUnityTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  void SetUp() override {
    ServeApiTest::SetUp();
    if (IsSkipped()) return;
    const std::string tokens = "[[token]]\nname = \"admin\"\nsha256 = \"" +
                               service::HashToken(admin_token_) + "\"\ntables = [\"" + table_ +
                               "\"]\ncatalogs = [\"*\"]\n"
                               "actions = [\"manage\", \"commit\", \"read\"]\n"
                               "[[token]]\nname = \"reader\"\nsha256 = \"" +
                               service::HashToken(reader_token_) + "\"\ntables = [\"" + table_ +
                               "\"]\ncatalogs = [\"main\"]\nactions = [\"read\"]\n";
    Start(tokens);
    ASSERT_EQ(
        Uc("POST", "/catalogs", json{{"name", "main"}, {"storage_root", table_}}.dump()).status,
        200);
    ASSERT_EQ(
        Uc("POST", "/schemas", json{{"name", "sales"}, {"catalog_name", "main"}}.dump()).status,
        200);
  }

  void TearDown() override {
    serve_.reset();
    std::filesystem::remove_all(state_dir_);
  }

  // serve with `tokens` and its state in state_dir_, which outlives the
  // process (ServeProcess's own directory does not).
  void Start(const std::string& tokens) {
    std::string config = Config(tokens);
    const std::string relative = "path = \"state.sqlite\"";
    const size_t at = config.find(relative);
    ASSERT_NE(at, std::string::npos) << config;
    config.replace(at, relative.size(), "path = \"" + state_dir_ + "/state.sqlite\"");
    auto started = ServeProcess::Start(config);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    serve_ = std::move(started).value();
  }

  std::string TokenFor(const std::string& name) const {
    if (name == "admin") return admin_token_;
    if (name == "reader") return reader_token_;
    if (name == "writer") return writer_token_;
    if (name == "unknown") return "not-a-token-" + NewUuid();
    EXPECT_EQ(name, "none") << "tokens: none, unknown, writer, reader, admin";
    return "";
  }

  aws::HttpResponse Uc(const std::string& method, const std::string& path,
                       const std::string& body = "", const std::string& token = "") {
    return Send(method, kBase + path, body, token.empty() ? admin_token_ : token);
  }

  static json Body(const aws::HttpResponse& response) {
    return json::parse(response.body, nullptr, false);
  }

  const std::string admin_token_ = "admin-" + NewUuid();
  const std::string reader_token_ = "reader-" + NewUuid();
  const std::string state_dir_ = [] {
    const std::string dir =
        (std::filesystem::temp_directory_path() / ("serve-unity-" + NewUuid())).string();
    std::filesystem::create_directories(dir);
    return dir;
  }();
};

// As Spark's UC connector and Delta's catalog client do it (legacy path):
// stage, write version 0 (here: nothing; the catalog does not read it),
// create at the staging location with the staging id as a property.
TEST_F(ServeUnityTest, TablesAreMadeResolvedListedAndDroppedOverHttp) {
  aws::HttpResponse staged =
      Uc("POST", "/staging-tables",
         json{{"name", "orders"}, {"catalog_name", "main"}, {"schema_name", "sales"}}.dump());
  ASSERT_EQ(staged.status, 200) << staged.body;
  const json staging = Body(staged);
  const std::string id = staging["id"];
  EXPECT_EQ(staging["staging_location"], table_ + "/tables/" + id);

  const json columns =
      json::array({{{"name", "id"},
                    {"type_text", "bigint"},
                    {"type_json", R"({"name":"id","type":"long","nullable":false,"metadata":{}})"},
                    {"type_name", "LONG"},
                    {"position", 0},
                    {"nullable", false}}});
  aws::HttpResponse created =
      Uc("POST", "/tables",
         json{{"name", "orders"},
              {"catalog_name", "main"},
              {"schema_name", "sales"},
              {"table_type", "MANAGED"},
              {"data_source_format", "DELTA"},
              {"columns", columns},
              {"storage_location", staging["staging_location"]},
              {"properties",
               {{"io.unitycatalog.tableId", id}, {"delta.feature.catalogManaged", "supported"}}}}
             .dump());
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(Body(created)["table_id"], id);

  // The reader resolves it by name. Clients encode path segments their own
  // way (kernel-rs escapes every character but letters and digits): each is
  // decoded before the name is split, so an encoded '.' separates names as
  // a plain one does (a name itself never holds one).
  aws::HttpResponse got = Uc("GET", "/tables/main.sales.orders", "", reader_token_);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Body(got), Body(created));
  EXPECT_EQ(Body(Uc("GET", "/tables/main%2Esales%2Eorders", "", reader_token_)), Body(created));
  EXPECT_EQ(Body(Uc("GET", "/tables/%6Dain.sales.orders", "", reader_token_)), Body(created));
  EXPECT_EQ(Body(got)["columns"][0]["type_text"], "bigint");
  EXPECT_EQ(Body(got)["properties"]["delta.feature.catalogManaged"], "supported");

  aws::HttpResponse external = Uc("POST", "/tables",
                                  json{{"name", "events"},
                                       {"catalog_name", "main"},
                                       {"schema_name", "sales"},
                                       {"table_type", "EXTERNAL"},
                                       {"columns", columns},
                                       {"storage_location", table_ + "/external/events"}}
                                      .dump());
  ASSERT_EQ(external.status, 200) << external.body;

  aws::HttpResponse listed = Uc("GET", "/tables?catalog_name=main&schema_name=sales");
  ASSERT_EQ(listed.status, 200) << listed.body;
  std::vector<std::string> names;
  const json listed_body = Body(listed);  // a range-for would not extend a temporary's life
  for (const json& table : listed_body["tables"]) names.push_back(table["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"events", "orders"})) << listed.body;

  EXPECT_EQ(Uc("DELETE", "/tables/main.sales.events").status, 200);
  EXPECT_EQ(Uc("GET", "/tables/main.sales.events").status, 404);
  // The catalog writes nothing to storage.
  EXPECT_THAT(Keys(), IsEmpty());
}

// The catalog outlives the process: a restarted serve on the same state
// file answers the same names.
TEST_F(ServeUnityTest, TheCatalogAndItsMetastoreIdSurviveARestart) {
  const json before = Body(Uc("GET", "/schemas/main.sales"));
  const json summary = Body(Uc("GET", "/metastore_summary", "", reader_token_));
  ASSERT_TRUE(summary.contains("metastore_id")) << summary.dump();
  EXPECT_EQ(summary["metastore_id"].get<std::string>().size(), 36u);
  EXPECT_EQ(Body(Uc("GET", "/metastore_summary")), summary) << "asked again";
  ASSERT_EQ(before["full_name"], "main.sales");
  ASSERT_EQ(serve_->Terminate(), 0);
  serve_.reset();
  Start("[[token]]\nname = \"admin\"\nsha256 = \"" + service::HashToken(admin_token_) +
        "\"\ntables = [\"" + table_ + "\"]\ncatalogs = [\"*\"]\nactions = [\"read\"]\n");
  EXPECT_EQ(Body(Uc("GET", "/schemas/main.sales")), before);
  EXPECT_EQ(Body(Uc("GET", "/metastore_summary")), summary) << "after the restart";
}

TEST_F(ServeUnityTest, EveryBadInputRowGetsItsStatusCodeAndErrorAndWritesNothing) {
  const auto rows =
      DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC, "The Unity Catalog API (`/api/2.1/unity-catalog`)",
                     [&](const std::string& text) { return ReplaceAll(text, "$ROOT", table_); });
  ASSERT_GE(rows.size(), 20u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "a Unity Catalog row needs 7 cells and \"METHOD /path\"";
    aws::HttpResponse answer = Send(row.method, kBase + row.path, row.body, TokenFor(row.token));
    EXPECT_EQ(answer.status, row.status) << answer.body;
    const json error = Body(answer);
    EXPECT_EQ(error.value("error_code", ""), row.code) << answer.body;
    EXPECT_THAT(error.value("message", ""), HasSubstr(row.says));
  }
  const json catalogs = Body(Uc("GET", "/catalogs"));
  ASSERT_EQ(catalogs["catalogs"].size(), 1u) << catalogs.dump();
  EXPECT_EQ(catalogs["catalogs"][0]["name"], "main");
  EXPECT_EQ(Body(Uc("GET", "/schemas?catalog_name=main"))["schemas"].size(), 1u);
  EXPECT_EQ(Body(Uc("GET", "/tables?catalog_name=main&schema_name=sales"))["tables"],
            json::array());
  EXPECT_THAT(Keys(), IsEmpty()) << "a bad request wrote to the bucket";
}

}  // namespace
}  // namespace deltacommit::testing
