// UcRestApi's handlers called through a real Router (so names are decoded
// as the server decodes them) over a SQLite catalog: each call's status and
// body in UC REST 2.1's shapes (api/all.yaml), and the token rules of
// uc_rest_api.h.
#include "service/unity/uc_rest_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "contract/temp_dir.h"
#include "deltacommit/testing/fake_clock.h"
#include "service/catalog/sqlite_catalog_store.h"

namespace deltacommit::service::unity {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kAdminToken[] = "admin-token-0123456789";
constexpr char kWriterToken[] = "writer-token-0123456789";
constexpr char kReaderToken[] = "reader-token-0123456789";
constexpr char kOutsiderToken[] = "outsider-token-0123456789";

std::string Config() {
  return R"([s3]
endpoint = "https://s3.example.internal"
[[token]]
name = "admin"
sha256 = ")" +
         HashToken(kAdminToken) + R"("
tables = ["s3://lake"]
catalogs = ["*"]
actions = ["manage", "commit", "read"]
[[token]]
name = "writer"
sha256 = ")" +
         HashToken(kWriterToken) + R"("
tables = ["s3://lake/main"]
catalogs = ["main.sales"]
actions = ["commit", "read"]
[[token]]
name = "reader"
sha256 = ")" +
         HashToken(kReaderToken) + R"("
tables = ["s3://lake"]
catalogs = ["main"]
actions = ["read"]
[[token]]
name = "outsider"
sha256 = ")" +
         HashToken(kOutsiderToken) + R"("
tables = ["s3://lake"]
actions = ["commit", "read"]
)";
}

struct Reply {
  int status = 0;
  json body;
};

// One column, `id bigint`, as Spark's UC connector sends it.
json Columns() {
  return json::array(
      {{{"name", "id"},
        {"type_text", "bigint"},
        {"type_json", R"({"name":"id","type":"long","nullable":true,"metadata":{}})"},
        {"type_name", "LONG"},
        {"position", 0},
        {"nullable", true}},
       {{"name", "day"},
        {"type_text", "date"},
        {"type_json", R"({"name":"day","type":"date","nullable":true,"metadata":{}})"},
        {"type_name", "DATE"},
        {"position", 1},
        {"partition_index", 0}}});
}

class UcRestApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = ParseServiceConfig(Config(), "test.toml");
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = *config;
    auto catalog = SqliteCatalogStore::Open(dir_.path() + "/state.db");
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    authenticator_ = std::make_unique<Authenticator>(config_.tokens);
    api_ = std::make_unique<UcRestApi>(
        UnityApiDeps{&config_, authenticator_.get(), catalog_.get(), &clock_});
    ASSERT_TRUE(api_->AddRoutes(router_).ok());
  }

  // `target` is below /api/2.1/unity-catalog, with an optional query of
  // plain name=value pairs.
  Reply Call(const std::string& method, const std::string& target, const json& body = nullptr,
             const std::string& token = kAdminToken) {
    http::Request request;
    request.method = method;
    request.target = kUcRestBase + target;
    const size_t query = request.target.find('?');
    request.path = request.target.substr(0, query);
    if (query != std::string::npos) {
      std::string rest = request.target.substr(query + 1);
      while (!rest.empty()) {
        const size_t amp = rest.find('&');
        const std::string pair = rest.substr(0, amp);
        const size_t eq = pair.find('=');
        request.query.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
        rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
      }
    }
    if (!token.empty()) request.headers.emplace_back("authorization", "Bearer " + token);
    if (!body.is_null()) request.body = body.dump();
    http::Router::Match match = router_.Find(method, request.path);
    EXPECT_EQ(match.kind, http::Router::MatchKind::kFound) << method << " " << target;
    if (match.kind != http::Router::MatchKind::kFound) return {};
    request.route = match.route;
    request.path_params = match.params;
    http::Response response = (*match.handler)(request);
    return {response.status, json::parse(response.body, nullptr, false)};
  }

  // Catalog "main" at s3://lake/main with schema "sales".
  void MakeSalesSchema() {
    ASSERT_EQ(
        Call("POST", "/catalogs", {{"name", "main"}, {"storage_root", "s3://lake/main/"}}).status,
        200);
    ASSERT_EQ(Call("POST", "/schemas", {{"name", "sales"}, {"catalog_name", "main"}}).status, 200);
  }

  // A managed table made as a client makes one: stage, then create.
  Reply MakeManagedTable(const std::string& name, const std::string& token = kWriterToken) {
    Reply staged =
        Call("POST", "/staging-tables",
             {{"name", name}, {"catalog_name", "main"}, {"schema_name", "sales"}}, token);
    EXPECT_EQ(staged.status, 200) << staged.body.dump();
    if (staged.status != 200) return staged;
    return Call("POST", "/tables",
                {{"name", name},
                 {"catalog_name", "main"},
                 {"schema_name", "sales"},
                 {"table_type", "MANAGED"},
                 {"data_source_format", "DELTA"},
                 {"columns", Columns()},
                 {"storage_location", staged.body["staging_location"]},
                 {"properties",
                  {{"io.unitycatalog.tableId", staged.body["id"]},
                   {"delta.feature.catalogManaged", "supported"}}}},
                token);
  }

  static void ExpectError(const Reply& reply, int status, const std::string& code,
                          const std::string& message_part) {
    EXPECT_EQ(reply.status, status) << reply.body.dump();
    EXPECT_EQ(reply.body.value("error_code", ""), code) << reply.body.dump();
    EXPECT_THAT(reply.body.value("message", ""), HasSubstr(message_part));
    ASSERT_TRUE(reply.body.contains("details")) << reply.body.dump();
    EXPECT_EQ(reply.body["details"][0]["reason"], code);
    EXPECT_EQ(reply.body["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  }

  TempDir dir_;
  ServiceConfig config_;
  std::unique_ptr<SqliteCatalogStore> catalog_;
  std::unique_ptr<Authenticator> authenticator_;
  FakeClock clock_{1'700'000'000'000};
  http::Router router_;
  std::unique_ptr<UcRestApi> api_;
};

TEST_F(UcRestApiTest, ACatalogIsCreatedReadListedAndDeleted) {
  Reply created = Call("POST", "/catalogs",
                       {{"name", "main"},
                        {"comment", "the lake"},
                        {"properties", {{"team", "data"}}},
                        {"storage_root", "s3://lake/main/"}});
  ASSERT_EQ(created.status, 200) << created.body.dump();
  EXPECT_EQ(created.body["name"], "main");
  EXPECT_EQ(created.body["comment"], "the lake");
  EXPECT_EQ(created.body["properties"], json({{"team", "data"}}));
  EXPECT_EQ(created.body["storage_root"], "s3://lake/main");  // normalised
  EXPECT_EQ(created.body["owner"], "admin");
  EXPECT_EQ(created.body["created_at"], 1'700'000'000'000);
  EXPECT_EQ(created.body["id"].get<std::string>().size(), 36u);

  EXPECT_EQ(Call("GET", "/catalogs/main").body, created.body);
  Reply listed = Call("GET", "/catalogs");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.body["catalogs"].size(), 1u);
  EXPECT_EQ(listed.body["catalogs"][0], created.body);

  ExpectError(Call("POST", "/catalogs", {{"name", "main"}}), 400, "CATALOG_ALREADY_EXISTS",
              "catalog \"main\" already exists");
  EXPECT_EQ(Call("DELETE", "/catalogs/main").status, 200);
  ExpectError(Call("GET", "/catalogs/main"), 404, "CATALOG_NOT_FOUND", "Catalog not found: main");
  ExpectError(Call("DELETE", "/catalogs/main"), 404, "CATALOG_NOT_FOUND", "does not exist");
}

TEST_F(UcRestApiTest, EveryCallNeedsAKnownTokenAndTheRightToTheName) {
  ExpectError(Call("GET", "/catalogs", nullptr, ""), 401, "UNAUTHENTICATED", "Authorization");
  ExpectError(Call("GET", "/catalogs", nullptr, "not-a-known-token"), 401, "UNAUTHENTICATED",
              "unknown bearer token");
  MakeSalesSchema();
  // No `catalogs` in the token's config: no name is its.
  ExpectError(Call("GET", "/catalogs/main", nullptr, kOutsiderToken), 403, "PERMISSION_DENIED",
              "not under any of the token's catalog prefixes");
  // Read only.
  ExpectError(Call("POST", "/schemas", {{"name", "x"}, {"catalog_name", "main"}}, kReaderToken),
              403, "PERMISSION_DENIED", "the token's actions do not include \"manage\"");
  // main.sales, not main.
  ExpectError(Call("POST", "/schemas", {{"name", "hr"}, {"catalog_name", "main"}}, kWriterToken),
              403, "PERMISSION_DENIED", "\"main.hr\"");
  // Listing shows what the token may read, nothing else.
  ASSERT_EQ(Call("POST", "/catalogs", {{"name", "finance"}}).status, 200);
  Reply listed = Call("GET", "/catalogs", nullptr, kReaderToken);
  ASSERT_EQ(listed.body["catalogs"].size(), 1u);
  EXPECT_EQ(listed.body["catalogs"][0]["name"], "main");
}

TEST_F(UcRestApiTest, BadNamesAndBodiesAreRefusedNamingWhatIsWrong) {
  ExpectError(Call("POST", "/catalogs", {{"name", "a.b"}}), 400, "INVALID_ARGUMENT", "'.'");
  ExpectError(Call("POST", "/catalogs", {{"name", 7}}), 400, "INVALID_ARGUMENT",
              "field \"name\" must be a string, not an integer");
  ExpectError(Call("POST", "/catalogs", json::object()), 400, "INVALID_ARGUMENT",
              "field \"name\" is required");
  // An encoded '.' is decoded before the check: it cannot smuggle a part.
  ExpectError(Call("GET", "/catalogs/ma%2Ein"), 400, "INVALID_ARGUMENT", "'.'");
  ExpectError(Call("GET", "/schemas/main"), 400, "INVALID_ARGUMENT", "give catalog.schema");
  ExpectError(Call("GET", "/tables/main.sales"), 400, "INVALID_ARGUMENT",
              "give catalog.schema.table");
  ExpectError(Call("POST", "/catalogs", {{"name", "x"}, {"storage_root", "s3://lake/a/../b"}}), 400,
              "INVALID_ARGUMENT", "field \"storage_root\"");
  // A root outside the token's `tables`.
  ExpectError(Call("POST", "/catalogs", {{"name", "x"}, {"storage_root", "s3://elsewhere/x"}}), 403,
              "PERMISSION_DENIED", "not under any of the token's table prefixes");
}

TEST_F(UcRestApiTest, SchemasLiveInTheirCatalog) {
  ExpectError(Call("POST", "/schemas", {{"name", "sales"}, {"catalog_name", "main"}}), 404,
              "CATALOG_NOT_FOUND", "Catalog not found: main");
  MakeSalesSchema();
  Reply schema = Call("GET", "/schemas/main.sales");
  ASSERT_EQ(schema.status, 200);
  EXPECT_EQ(schema.body["full_name"], "main.sales");
  EXPECT_EQ(schema.body["catalog_name"], "main");
  ExpectError(Call("POST", "/schemas", {{"name", "sales"}, {"catalog_name", "main"}}), 400,
              "SCHEMA_ALREADY_EXISTS", "already exists");
  Reply listed = Call("GET", "/schemas?catalog_name=main");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.body["schemas"].size(), 1u);
  ExpectError(Call("GET", "/schemas/main.hr"), 404, "SCHEMA_NOT_FOUND", "main.hr");
  ExpectError(Call("GET", "/schemas/other.hr"), 404, "CATALOG_NOT_FOUND", "other");
  ExpectError(Call("DELETE", "/catalogs/main"), 400, "FAILED_PRECONDITION",
              "still has schema \"sales\"");
  EXPECT_EQ(Call("DELETE", "/schemas/main.sales").status, 200);
  EXPECT_EQ(Call("DELETE", "/catalogs/main").status, 200);
}

TEST_F(UcRestApiTest, AManagedTableIsStagedThenCreatedAtItsStagingLocation) {
  MakeSalesSchema();
  Reply staged =
      Call("POST", "/staging-tables",
           {{"name", "orders"}, {"catalog_name", "main"}, {"schema_name", "sales"}}, kWriterToken);
  ASSERT_EQ(staged.status, 200) << staged.body.dump();
  const std::string id = staged.body["id"];
  EXPECT_EQ(staged.body["staging_location"], "s3://lake/main/tables/" + id);
  EXPECT_EQ(staged.body["name"], "orders");

  json create = {{"name", "orders"},
                 {"catalog_name", "main"},
                 {"schema_name", "sales"},
                 {"table_type", "MANAGED"},
                 {"data_source_format", "DELTA"},
                 {"columns", Columns()},
                 {"storage_location", staged.body["staging_location"]},
                 {"properties", {{"io.unitycatalog.tableId", id}}}};
  // Another token may not finish what this one staged.
  ExpectError(Call("POST", "/tables", create, kAdminToken), 403, "PERMISSION_DENIED",
              "created by another token");
  json wrong_id = create;
  wrong_id["properties"]["io.unitycatalog.tableId"] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  ExpectError(Call("POST", "/tables", wrong_id, kWriterToken), 400, "INVALID_ARGUMENT",
              "must be " + id);
  // The staging location is the staged name's, managed or external.
  json renamed = create;
  renamed["name"] = "returns";
  ExpectError(Call("POST", "/tables", renamed, kWriterToken), 400, "INVALID_ARGUMENT",
              "was staged as main.sales.orders, not main.sales.returns");
  json external = renamed;
  external["table_type"] = "EXTERNAL";
  external.erase("properties");
  ExpectError(Call("POST", "/tables", external, kAdminToken), 400, "TABLE_ALREADY_EXISTS",
              "is the location of staging table " + id);

  Reply table = Call("POST", "/tables", create, kWriterToken);
  ASSERT_EQ(table.status, 200) << table.body.dump();
  EXPECT_EQ(table.body["table_id"], id);
  EXPECT_EQ(table.body["table_type"], "MANAGED");
  EXPECT_EQ(table.body["data_source_format"], "DELTA");
  EXPECT_EQ(table.body["storage_location"], "s3://lake/main/tables/" + id);
  ASSERT_EQ(table.body["columns"].size(), 2u);
  EXPECT_EQ(table.body["columns"][0]["type_text"], "bigint");
  EXPECT_EQ(table.body["columns"][1]["partition_index"], 0);
  EXPECT_EQ(Call("GET", "/tables/main.sales.orders", nullptr, kReaderToken).body, table.body);

  ExpectError(Call("POST", "/tables", create, kWriterToken), 400, "TABLE_ALREADY_EXISTS",
              "main.sales.orders");
  ExpectError(
      Call("POST", "/staging-tables",
           {{"name", "orders"}, {"catalog_name", "main"}, {"schema_name", "sales"}}, kWriterToken),
      400, "TABLE_ALREADY_EXISTS", "main.sales.orders");
  // Only staged locations make managed tables.
  json unstaged = create;
  unstaged["name"] = "returns";
  unstaged["storage_location"] = "s3://lake/main/tables/elsewhere";
  ExpectError(Call("POST", "/tables", unstaged, kWriterToken), 404, "TABLE_NOT_FOUND",
              "Staging table not found");
}

TEST_F(UcRestApiTest, TablesAreListedInPagesAndDroppedByName) {
  MakeSalesSchema();
  for (const char* name : {"c", "a", "e", "b", "d"}) {
    ASSERT_EQ(MakeManagedTable(name).status, 200) << name;
  }
  std::vector<std::string> names;
  std::string token;
  for (int page = 0; page < 5; ++page) {
    Reply listed = Call("GET", "/tables?catalog_name=main&schema_name=sales&max_results=2" +
                                   (token.empty() ? "" : "&page_token=" + token));
    ASSERT_EQ(listed.status, 200) << listed.body.dump();
    for (const json& table : listed.body["tables"]) names.push_back(table["name"]);
    if (!listed.body.contains("next_page_token")) break;
    token = listed.body["next_page_token"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  ExpectError(Call("GET", "/tables?catalog_name=main&schema_name=sales&max_results=0"), 400,
              "INVALID_ARGUMENT", "max_results \"0\"");
  ExpectError(Call("GET", "/tables?catalog_name=main&schema_name=hr"), 404, "SCHEMA_NOT_FOUND",
              "main.hr");

  ExpectError(Call("DELETE", "/tables/main.sales.a", nullptr, kWriterToken), 403,
              "PERMISSION_DENIED", "\"manage\"");
  EXPECT_EQ(Call("DELETE", "/tables/main.sales.a").status, 200);
  ExpectError(Call("GET", "/tables/main.sales.a"), 404, "TABLE_NOT_FOUND",
              "Table not found: main.sales.a");
  ExpectError(Call("DELETE", "/tables/main.sales.a"), 404, "TABLE_NOT_FOUND", "main.sales.a");
}

TEST_F(UcRestApiTest, AnExternalTableNamesItsOwnLocation) {
  MakeSalesSchema();
  json create = {{"name", "events"},       {"catalog_name", "main"},
                 {"schema_name", "sales"}, {"table_type", "EXTERNAL"},
                 {"columns", Columns()},   {"storage_location", "s3://lake/main/external/events/"}};
  Reply table = Call("POST", "/tables", create, kWriterToken);
  ASSERT_EQ(table.status, 200) << table.body.dump();
  EXPECT_EQ(table.body["storage_location"], "s3://lake/main/external/events");
  EXPECT_EQ(table.body["table_type"], "EXTERNAL");
  json outside = create;
  outside["name"] = "other";
  outside["storage_location"] = "s3://lake/finance/other";
  ExpectError(Call("POST", "/tables", outside, kWriterToken), 403, "PERMISSION_DENIED",
              "s3://lake/finance/other");
  json parquet = create;
  parquet["name"] = "flat";
  parquet["data_source_format"] = "PARQUET";
  ExpectError(Call("POST", "/tables", parquet, kWriterToken), 400, "INVALID_ARGUMENT",
              "Delta tables only");
  json no_columns = create;
  no_columns["name"] = "bare";
  no_columns.erase("columns");
  ExpectError(Call("POST", "/tables", no_columns, kWriterToken), 400, "INVALID_ARGUMENT",
              "field \"columns\" is required");
}

}  // namespace
}  // namespace deltacommit::service::unity
