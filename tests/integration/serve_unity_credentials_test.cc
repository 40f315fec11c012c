// Unity Catalog's credential vending on a real `deltacommit serve` (RGW
// with STS, SQLite state): temporary-table-credentials and
// temporary-path-credentials answer sessions of the role the config names
// (scripts/test-servers makes it), and RGW itself holds each session to the
// table's prefix and operation; commits through the Unity Catalog API to
// an S3 table are read and published with such a session, and our own
// client creates, commits and reads such a table by name. A bucket that passes each writer's own
// credentials through hands them back unchanged and publishes with them (our library and CLI
// with --catalog-send-credentials). Then the refusals: tokens without the name, the action or the
// location; unknown tables; bad bodies; missing, partial, expired or tampered passed-through
// credentials; a bucket that vends nothing; a role that does not exist; and no secret in the log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/cli_runner.h"
#include "deltacommit/metering.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/service_wire/sent_credentials.h"
#include "deltacommit/table.h"
#include "deltacommit/table/table_adapters.h"
#include "doc_table.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBase[] = "/api/2.1/unity-catalog";

class ServeUnityCredentialsTest : public ServeApiTest {
 protected:
  bool StartInSetUp() const override { return false; }

  void SetUp() override {
    ServeApiTest::SetUp();
    if (IsSkipped()) return;
    DC_REQUIRE_STS();
    if (Env("DELTACOMMIT_TEST_VEND_ROLE_ARN").empty()) {
      GTEST_FAIL() << "DELTACOMMIT_TEST_VEND_ROLE_ARN is not set: restart the test servers "
                      "(scripts/test-servers down, then up) so that they make the role";
    }
    StartWithVending(Env("DELTACOMMIT_TEST_VEND_ROLE_ARN"));
  }

  // serve with vending of `role_arn` ("" : none) in [s3], and the tokens:
  // admin (everything), reader (read, catalog main), outsider (all actions,
  // catalog main, but storage elsewhere), nameless (no catalog).
  void StartWithVending(const std::string& role_arn, int duration_seconds = 900) {
    StartWith(role_arn.empty() ? ""
                               : "vend_credentials = \"assume_role\"\nvend_role_arn = \"" +
                                     role_arn + "\"\nvend_sts_endpoint = \"" +
                                     Env("AWS_ENDPOINT_URL_STS") +
                                     "\"\nvend_duration_seconds = " +
                                     std::to_string(duration_seconds) + "\n");
  }

  // serve with the writers' own credentials passed through for every bucket.
  void StartPassingThrough() { StartWith("vend_credentials = \"pass_through\"\n"); }

  // serve with `vend` (vend_* keys, "" for none) in [s3].
  void StartWith(const std::string& vend) {
    std::string config =
        Config("[[token]]\nname = \"admin\"\nsha256 = \"" + service::HashToken(admin_token_) +
               "\"\ntables = [\"" + table_ +
               "\"]\ncatalogs = [\"*\"]\n"
               "actions = [\"manage\", \"commit\", \"read\"]\n"
               "[[token]]\nname = \"reader\"\nsha256 = \"" +
               service::HashToken(reader_token_) + "\"\ntables = [\"" + table_ +
               "\"]\ncatalogs = [\"main\"]\nactions = [\"read\"]\n"
               "[[token]]\nname = \"outsider\"\nsha256 = \"" +
               service::HashToken(outsider_token_) + "\"\ntables = [\"" + other_prefix_ +
               "\"]\ncatalogs = [\"main\"]\n"
               "actions = [\"commit\", \"read\"]\n"
               "[[token]]\nname = \"nameless\"\nsha256 = \"" +
               service::HashToken(nameless_token_) + "\"\ntables = [\"" + table_ +
               "\"]\nactions = [\"commit\", \"read\"]\n");
    if (!vend.empty()) {
      const size_t at = config.find("[[s3.allowed_endpoint]]");
      ASSERT_NE(at, std::string::npos);
      config.insert(at, vend);
    }
    serve_.reset();
    auto started = ServeProcess::Start(config);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    serve_ = std::move(started).value();
    // Each process has its own state: the catalog is made anew.
    ASSERT_EQ(Uc("POST", "/catalogs", json{{"name", "main"}, {"storage_root", table_}}).status,
              200);
    ASSERT_EQ(Uc("POST", "/schemas", json{{"name", "sales"}, {"catalog_name", "main"}}).status,
              200);
    table_id_ = CreateTable("orders");
  }

  aws::HttpResponse Uc(const std::string& method, const std::string& path, const json& body,
                       const std::string& token = "") {
    return Send(method, kBase + path, body.is_null() ? "" : body.dump(),
                token.empty() ? admin_token_ : token);
  }

  // A managed table made as Spark's connector makes one: staging, then create.
  std::string CreateTable(const std::string& name) {
    aws::HttpResponse staged =
        Uc("POST", "/staging-tables",
           json{{"name", name}, {"catalog_name", "main"}, {"schema_name", "sales"}});
    EXPECT_EQ(staged.status, 200) << staged.body;
    const json staging = json::parse(staged.body, nullptr, false);
    const std::string id = staging.value("id", "");
    location_ = staging.value("staging_location", "");
    aws::HttpResponse created = Uc("POST", "/tables",
                                   json{{"name", name},
                                        {"catalog_name", "main"},
                                        {"schema_name", "sales"},
                                        {"table_type", "MANAGED"},
                                        {"data_source_format", "DELTA"},
                                        {"storage_location", location_},
                                        {"columns", json::array()},
                                        {"properties", {{"io.unitycatalog.tableId", id}}}});
    EXPECT_EQ(created.status, 200) << created.body;
    return id;
  }

  aws::HttpResponse TableCredentials(const std::string& operation, const std::string& token = "") {
    return Uc("POST", "/temporary-table-credentials",
              json{{"table_id", table_id_}, {"operation", operation}}, token);
  }

  // An S3 store on `prefix` (s3://bucket/key) signed with the vended
  // credentials of `answer`.
  struct VendedStore {
    std::unique_ptr<aws::HttpClient> http = aws::NewCurlHttpClient();
    std::unique_ptr<aws::CredentialsProvider> credentials;
    std::unique_ptr<S3ObjectStore> store;
  };
  static VendedStore StoreWith(const json& answer, const std::string& uri) {
    VendedStore v;
    const json& c = answer["aws_temp_credentials"];
    v.credentials = aws::StaticCredentialsProvider(
        {c.value("access_key_id", ""), c.value("secret_access_key", ""),
         c.value("session_token", ""), answer.value("expiration_time", int64_t{0}), "vended"});
    StatusOr<aws::S3Location> location = aws::ParseS3Uri(uri);
    EXPECT_TRUE(location.ok());
    S3StoreConfig config;
    config.bucket = location->bucket;
    config.key_prefix = location->key_prefix;
    config.service = *aws::ResolveServiceConfig("s3", {});
    config.retry.max_attempts = 1;
    v.store = std::make_unique<S3ObjectStore>(std::move(config), *v.http, *v.credentials);
    return v;
  }

  // A doc row's placeholders filled in ($STAGING_ID: `staging_id`).
  std::string Fill(std::string text, const std::string& staging_id = "") const {
    for (const auto& [name, value] :
         {std::pair<std::string, std::string>{"$TABLE_ID", table_id_},
          {"$STAGING_ID", staging_id},
          {"$LOCATION_ENCODED", aws::UriEncode(location_, /*encode_slash=*/true)},
          {"$LOCATION", location_},
          {"$ROOT", table_},
          {"$OTHER_ENCODED", aws::UriEncode(other_prefix_, /*encode_slash=*/true)},
          {"$OTHER", other_prefix_}}) {
      text = ReplaceAll(text, name, value);
    }
    return text;
  }

  // A doc row's token: admin, reader, outsider, nameless, none, or else an
  // unknown one.
  std::string TokenFor(const std::string& name) const {
    if (name == "admin") return admin_token_;
    if (name == "reader") return reader_token_;
    if (name == "outsider") return outsider_token_;
    if (name == "nameless") return nameless_token_;
    if (name == "none") return "";
    return "not-a-token-" + NewUuid();
  }

  // _delta_log/<v>.json once the service has published it (polling for up
  // to 10 s); empty if it never does.
  static std::string Published(S3ObjectStore& store, Version v) {
    for (int i = 0; i < 200; ++i) {
      StatusOr<std::string> got = store.Get("_delta_log/" + FormatVersion(v) + ".json");
      if (got.ok()) return *got;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "";
  }

  static std::string UcCode(const aws::HttpResponse& r) {
    return json::parse(r.body, nullptr, false).value("error_code", "");
  }
  static std::string UcMessage(const aws::HttpResponse& r) {
    return json::parse(r.body, nullptr, false).value("message", "");
  }

  // Our client's options for this serve, as admin.
  TableOptions CatalogOptions() const {
    TableOptions options;
    options.catalog_url = "http://127.0.0.1:" + std::to_string(serve_->port());
    options.catalog_token = admin_token_;
    return options;
  }

  // Creates `table` (a uc:// name the catalog does not know) and commits
  // versions 1 and 2 to it, one file each.
  static void CreateAndCommitTwice(Table& table) {
    Metadata m;
    m.id = NewUuid();
    m.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
    StatusOr<CommitOutcome> created = table.Create(m);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    for (int v = 1; v <= 2; ++v) {
      AddFile add;
      add.path = "part-" + std::to_string(v) + ".parquet";
      add.size = 10;
      add.modification_time = 1;
      add.data_change = true;
      StatusOr<CommitOutcome> outcome = table.Commit({add});
      ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
      EXPECT_EQ(outcome->version, v);
    }
  }

  // A new reader with `options` finds uc://main.sales.clicks at version 2,
  // with both files, and its log sound.
  static void ExpectTwoCommitsThrough(const TableOptions& options) {
    StatusOr<Table> reader = OpenTable("uc://main.sales.clicks", options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto snapshot = reader->Snapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_EQ((*snapshot)->version(), 2);
    EXPECT_EQ((*snapshot)->active_files().size(), 2u);
    StatusOr<LogCheckReport> check = reader->Check();
    ASSERT_TRUE(check.ok()) << check.status().ToString();
    EXPECT_TRUE(check->sound()) << check->problems.front();
  }

  const std::string admin_token_ = "admin-" + NewUuid();
  const std::string reader_token_ = "reader-" + NewUuid();
  const std::string outsider_token_ = "outsider-" + NewUuid();
  const std::string nameless_token_ = "nameless-" + NewUuid();
  std::string table_id_;
  std::string location_;
};

TEST_F(ServeUnityCredentialsTest, ReadWriteCredentialsWorkOnTheTablesPrefixOnly) {
  const int64_t asked_at = SystemClock().NowMillis();
  aws::HttpResponse r = TableCredentials("READ_WRITE");
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = json::parse(r.body);
  EXPECT_EQ(answer["url"], location_);
  for (const char* field : {"access_key_id", "secret_access_key", "session_token"}) {
    EXPECT_FALSE(answer["aws_temp_credentials"].value(field, "").empty()) << field;
  }
  EXPECT_NE(answer["aws_temp_credentials"]["access_key_id"], Env("AWS_ACCESS_KEY_ID"));
  // Expiry as configured (900 s), as RGW stated it.
  const int64_t expires = answer.value("expiration_time", int64_t{0});
  EXPECT_GT(expires, asked_at + 840'000);
  EXPECT_LE(expires, asked_at + 960'000);
  std::string cache_control;
  for (const auto& [name, value] : r.headers) {
    if (name == "cache-control" || name == "Cache-Control") cache_control = value;
  }
  EXPECT_EQ(cache_control, "no-store");

  VendedStore table = StoreWith(answer, location_);
  ASSERT_TRUE(table.store->Put("_delta_log/00000000000000000000.json", "{}\n").ok());
  EXPECT_EQ(*table.store->Get("_delta_log/00000000000000000000.json"), "{}\n");
  StatusOr<std::vector<ObjectMeta>> listed = table.store->List("_delta_log/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_TRUE(table.store->Delete("_delta_log/00000000000000000000.json").ok());

  // RGW refuses the session everywhere else: a sibling prefix that shares
  // the table's name as a prefix, another table, the catalog's root.
  for (const std::string& elsewhere : {location_ + "-sibling", other_prefix_, table_}) {
    VendedStore other = StoreWith(answer, elsewhere);
    Status put = other.store->Put("x.json", "{}");
    EXPECT_EQ(put.code(), StatusCode::kPermissionDenied) << elsewhere << ": " << put.ToString();
    EXPECT_EQ(other.store->List("").status().code(), StatusCode::kPermissionDenied) << elsewhere;
  }
  // Nor does it list the bare prefix (which would show the sibling's keys)
  // or write the key named like the table's root, its parent's.
  StatusOr<aws::S3Location> root = aws::ParseS3Uri(location_);
  ASSERT_TRUE(root.ok());
  const std::string parent = location_.substr(0, location_.rfind('/'));
  const std::string name = location_.substr(location_.rfind('/') + 1);
  VendedStore above = StoreWith(answer, parent);
  EXPECT_EQ(above.store->List(name).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(above.store->Put(name, "x").code(), StatusCode::kPermissionDenied);
}

TEST_F(ServeUnityCredentialsTest, ReadCredentialsReadButDoNotWrite) {
  {
    aws::HttpResponse w = TableCredentials("READ_WRITE");
    ASSERT_EQ(w.status, 200) << w.body;
    ASSERT_TRUE(StoreWith(json::parse(w.body), location_).store->Put("data.parquet", "x").ok());
  }
  aws::HttpResponse r = TableCredentials("READ", reader_token_);
  ASSERT_EQ(r.status, 200) << r.body;
  VendedStore table = StoreWith(json::parse(r.body), location_);
  EXPECT_EQ(*table.store->Get("data.parquet"), "x");
  EXPECT_TRUE(table.store->List("").ok());
  EXPECT_EQ(table.store->Put("data.parquet", "y").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(table.store->Delete("data.parquet").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(*table.store->Get("data.parquet"), "x");
}

TEST_F(ServeUnityCredentialsTest, PathCredentialsCoverTheirPath) {
  const std::string path = table_ + "/external/events";
  aws::HttpResponse r = Uc("POST", "/temporary-path-credentials",
                           json{{"url", path + "/"}, {"operation", "PATH_CREATE_TABLE"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = json::parse(r.body);
  EXPECT_EQ(answer["url"], path);  // normalised
  EXPECT_TRUE(StoreWith(answer, path).store->Put("_delta_log/x.json", "{}").ok());
  EXPECT_EQ(StoreWith(answer, location_).store->Put("x.json", "{}").code(),
            StatusCode::kPermissionDenied);
  aws::HttpResponse read = Uc("POST", "/temporary-path-credentials",
                              json{{"url", path}, {"operation", "PATH_READ"}}, reader_token_);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(StoreWith(json::parse(read.body), path).store->Put("y.json", "{}").code(),
            StatusCode::kPermissionDenied);
}

// docs/bad-inputs.md, row by row.
TEST_F(ServeUnityCredentialsTest, EveryBadInputRowIsRefusedAsDocumented) {
  const auto rows = DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC,
                                   "The Unity Catalog credentials API "
                                   "(`/api/2.1/unity-catalog/temporary-*-credentials`)",
                                   [&](const std::string& text) { return Fill(text); });
  ASSERT_GE(rows.size(), 15u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "not a row of 7 cells with \"METHOD /path\"";
    const std::string token = TokenFor(row.token);
    aws::HttpResponse r = Send(row.method, kBase + row.path, row.body, token);
    EXPECT_EQ(r.status, row.status) << r.body;
    EXPECT_EQ(UcCode(r), row.code) << r.body;
    EXPECT_THAT(UcMessage(r), HasSubstr(row.says));
    EXPECT_THAT(r.body, Not(HasSubstr("secret_access_key")));
  }
}

// The Delta REST API's credentials: DeltaCredentialsResponse, the same
// sessions.
TEST_F(ServeUnityCredentialsTest, DeltaApiCredentialsAreTheSameSessionsInItsShape) {
  aws::HttpResponse r = Send("GET",
                             std::string(kBase) +
                                 "/delta/v1/catalogs/main/schemas/sales/tables/orders/"
                                 "credentials?operation=READ_WRITE",
                             "", admin_token_);
  ASSERT_EQ(r.status, 200) << r.body;
  const json credentials = json::parse(r.body)["storage-credentials"];
  ASSERT_EQ(credentials.size(), 1u) << r.body;
  const json& c = credentials[0];
  EXPECT_EQ(c["prefix"], location_ + "/");
  EXPECT_EQ(c["operation"], "READ_WRITE");
  EXPECT_GT(c.value("expiration-time-ms", int64_t{0}), SystemClock().NowMillis() + 840'000);
  const json as_uc = {{"aws_temp_credentials",
                       {{"access_key_id", c["config"]["s3.access-key-id"]},
                        {"secret_access_key", c["config"]["s3.secret-access-key"]},
                        {"session_token", c["config"]["s3.session-token"]}}},
                      {"expiration_time", c["expiration-time-ms"]}};
  EXPECT_TRUE(StoreWith(as_uc, location_).store->Put("x.json", "{}").ok());
  EXPECT_EQ(StoreWith(as_uc, other_prefix_).store->Put("x.json", "{}").code(),
            StatusCode::kPermissionDenied);

  // A staging table's: READ_WRITE, for its creator, until it is created.
  aws::HttpResponse staged =
      Uc("POST", "/staging-tables",
         json{{"name", "events"}, {"catalog_name", "main"}, {"schema_name", "sales"}});
  ASSERT_EQ(staged.status, 200) << staged.body;
  const json staging = json::parse(staged.body);
  const std::string staging_path = std::string(kBase) + "/delta/v1/staging-tables/" +
                                   staging["id"].get<std::string>() + "/credentials";
  aws::HttpResponse mine = Send("GET", staging_path, "", admin_token_);
  ASSERT_EQ(mine.status, 200) << mine.body;
  const json s = json::parse(mine.body)["storage-credentials"][0];
  EXPECT_EQ(s["prefix"], staging["staging_location"].get<std::string>() + "/");
  EXPECT_EQ(s["operation"], "READ_WRITE");
  const json staging_uc = {{"aws_temp_credentials",
                            {{"access_key_id", s["config"]["s3.access-key-id"]},
                             {"secret_access_key", s["config"]["s3.secret-access-key"]},
                             {"session_token", s["config"]["s3.session-token"]}}},
                           {"expiration_time", s["expiration-time-ms"]}};
  EXPECT_TRUE(StoreWith(staging_uc, staging["staging_location"])
                  .store->Put("_delta_log/00000000000000000000.json", "{}")
                  .ok());
  // A created table is no longer a staging table.
  aws::HttpResponse created =
      Send("GET", std::string(kBase) + "/delta/v1/staging-tables/" + table_id_ + "/credentials", "",
           admin_token_);
  EXPECT_EQ(created.status, 404) << created.body;
  EXPECT_EQ(json::parse(created.body)["error"]["type"], "NoSuchTableException");

  aws::HttpResponse path =
      Send("GET",
           std::string(kBase) + "/delta/v1/temporary-path-credentials?operation=READ&location=" +
               aws::UriEncode(location_, /*encode_slash=*/true),
           "", reader_token_);
  ASSERT_EQ(path.status, 200) << path.body;
  EXPECT_EQ(json::parse(path.body)["storage-credentials"][0]["operation"], "READ");
}

// The Delta API's rows of docs/bad-inputs.md: its error shape.
TEST_F(ServeUnityCredentialsTest, EveryDeltaApiBadInputRowIsRefusedInItsShape) {
  aws::HttpResponse staged =
      Uc("POST", "/staging-tables",
         json{{"name", "events"}, {"catalog_name", "main"}, {"schema_name", "sales"}});
  ASSERT_EQ(staged.status, 200) << staged.body;
  const std::string staging_id = json::parse(staged.body)["id"];
  const auto rows = DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC,
                                   "The Delta REST API's credentials "
                                   "(`/api/2.1/unity-catalog/delta/v1/.../credentials`)",
                                   [&](const std::string& text) { return Fill(text, staging_id); });
  ASSERT_GE(rows.size(), 10u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "not a row of 7 cells with \"METHOD /path\"";
    const std::string token = TokenFor(row.token);
    aws::HttpResponse r = Send(row.method, kBase + row.path, row.body, token);
    EXPECT_EQ(r.status, row.status) << r.body;
    const json error = json::parse(r.body, nullptr, false).value("error", json::object());
    EXPECT_EQ(error.value("type", ""), row.code) << r.body;
    EXPECT_EQ(error.value("code", 0), row.status) << r.body;
    EXPECT_THAT(error.value("message", ""), HasSubstr(row.says));
    EXPECT_THAT(r.body, Not(HasSubstr("s3.secret-access-key")));
  }
}

// Delta Spark's order for a commit to a catalog-managed table on S3: vended
// credentials, version 0 written, the staged commit put, then ratified
// through the commits API. The request carries no storage credentials:
// the service reads the staged commit and publishes it as a session it
// vends itself.
TEST_F(ServeUnityCredentialsTest, CommitsToAnS3TableArePublishedWithTheServicesOwnSession) {
  aws::HttpResponse vended = TableCredentials("READ_WRITE");
  ASSERT_EQ(vended.status, 200) << vended.body;
  VendedStore table = StoreWith(json::parse(vended.body), location_);
  ASSERT_TRUE(table.store->Put("_delta_log/00000000000000000000.json", FirstActions("v0")).ok());
  auto stage = [&](const std::string& tag) {
    const std::string name = "00000000000000000001." + NewUuid() + ".json";
    EXPECT_TRUE(table.store->Put("_delta_log/_staged_commits/" + name, Actions(tag)).ok());
    return name;
  };
  auto commit = [&](const std::string& name) {
    return Uc("POST", "/delta/preview/commits",
              json{{"table_id", table_id_},
                   {"table_uri", location_},
                   {"commit_info",
                    {{"version", 1},
                     {"timestamp", 1'700'000'001'000},
                     {"file_name", name},
                     {"file_size", static_cast<int64_t>(Actions("v1").size())},
                     {"file_modification_timestamp", 1'700'000'001'000}}},
                   {"latest_backfilled_version", 0}});
  };
  const std::string first = stage("v1");
  aws::HttpResponse ratified = commit(first);
  ASSERT_EQ(ratified.status, 200) << ratified.body;
  EXPECT_EQ(commit(first).status, 200);          // a resend is the same commit
  aws::HttpResponse lost = commit(stage("v1"));  // another writer's version 1
  EXPECT_EQ(lost.status, 409) << lost.body;
  EXPECT_EQ(UcCode(lost), "COMMIT_VERSION_CONFLICT");
  EXPECT_EQ(Published(*table.store, 1), Actions("v1"));
  EXPECT_EQ(*table.store->Get("_delta_log/_staged_commits/" + first), Actions("v1"));
}

// The Delta REST API's sequence on S3: a staging table with vended
// credentials, version 0 written with them, create, then update-table's
// add-commit, read and published by the service with its own session.
TEST_F(ServeUnityCredentialsTest, TheDeltaApiCreatesAndCommitsToAnS3Table) {
  const std::string delta = std::string(kBase) + "/delta/v1/catalogs/main/schemas/sales";
  aws::HttpResponse staged =
      Send("POST", delta + "/staging-tables", json{{"name", "events"}}.dump(), admin_token_);
  ASSERT_EQ(staged.status, 200) << staged.body;
  const json staging = json::parse(staged.body);
  const std::string id = staging["table-id"], location = staging["location"];
  EXPECT_EQ(staged.Header("Cache-Control"), "no-store");
  ASSERT_EQ(staging["storage-credentials"].size(), 1u);
  const json& c = staging["storage-credentials"][0];
  EXPECT_EQ(c["prefix"], location + "/");
  const json as_uc = {{"aws_temp_credentials",
                       {{"access_key_id", c["config"]["s3.access-key-id"]},
                        {"secret_access_key", c["config"]["s3.secret-access-key"]},
                        {"session_token", c["config"]["s3.session-token"]}}},
                      {"expiration_time", c["expiration-time-ms"]}};
  VendedStore table = StoreWith(as_uc, location);
  const json& protocol = staging["required-protocol"];
  const std::string version0 =
      json{{"commitInfo",
            {{"timestamp", 1'700'000'000'000}, {"inCommitTimestamp", 1'700'000'000'000}}}}
          .dump() +
      "\n" +
      json{{"protocol",
            {{"minReaderVersion", 3},
             {"minWriterVersion", 7},
             {"readerFeatures", protocol["reader-features"]},
             {"writerFeatures", protocol["writer-features"]}}}}
          .dump() +
      "\n" +
      json{{"metaData",
            {{"id", id},
             {"format", {{"provider", "parquet"}, {"options", json::object()}}},
             {"schemaString", R"({"type":"struct","fields":[]})"},
             {"partitionColumns", json::array()},
             {"configuration", staging["required-properties"]}}}}
          .dump() +
      "\n";
  ASSERT_TRUE(table.store->Put("_delta_log/00000000000000000000.json", version0).ok());
  aws::HttpResponse created =
      Send("POST", delta + "/tables",
           json{{"name", "events"},
                {"location", location},
                {"table-type", "MANAGED"},
                {"columns", {{"type", "struct"}, {"fields", json::array()}}},
                {"protocol", protocol},
                {"properties", staging["required-properties"]},
                {"last-commit-timestamp-ms", 1'700'000'000'000}}
               .dump(),
           admin_token_);
  ASSERT_EQ(created.status, 200) << created.body;
  const std::string etag = json::parse(created.body)["metadata"]["etag"];

  const std::string name = "00000000000000000001." + NewUuid() + ".json";
  ASSERT_TRUE(table.store->Put("_delta_log/_staged_commits/" + name, Actions("v1")).ok());
  const json update = {
      {"requirements",
       {{{"type", "assert-table-uuid"}, {"uuid", id}}, {{"type", "assert-etag"}, {"etag", etag}}}},
      {"updates", json::array({{{"action", "add-commit"},
                                {"commit",
                                 {{"version", 1},
                                  {"timestamp", 1'700'000'001'000},
                                  {"file-name", name},
                                  {"file-size", static_cast<int64_t>(Actions("v1").size())},
                                  {"file-modification-timestamp", 1'700'000'001'000}}}}})}};
  aws::HttpResponse committed = Send("POST", delta + "/tables/events", update.dump(), admin_token_);
  ASSERT_EQ(committed.status, 200) << committed.body;
  EXPECT_EQ(json::parse(committed.body)["latest-table-version"], 1);
  EXPECT_EQ(Send("POST", delta + "/tables/events", update.dump(), admin_token_).status, 200);
  EXPECT_EQ(Published(*table.store, 1), Actions("v1"));
}

// Our own client on the same API: create by name, commit and read back,
// with only the credentials the catalog vends (RGW's STS sessions).
TEST_F(ServeUnityCredentialsTest, OurClientCreatesCommitsAndReadsAnS3TableByName) {
  CallMeter meter;
  TableOptions options = CatalogOptions();
  options.meter = &meter;
  StatusOr<Table> table = OpenTable("uc://main.sales.clicks", options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_NO_FATAL_FAILURE(CreateAndCommitTwice(*table));
  EXPECT_TRUE(table->uri().starts_with(table_ + "/tables/")) << table->uri();
  StatusOr<aws::Credentials> used = table->adapters().credentials->GetCredentials();
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_THAT(used->source, HasSubstr("vended by catalog http://127.0.0.1"));
  EXPECT_FALSE(used->session_token.empty()) << "an STS session, not the test user's keys";
  // The catalog calls, metered: staging and create, then one update-table
  // per commit after version 0 (which registers the table).
  EXPECT_EQ(meter.Count(CallKind::kCatalogCreate), 2);
  EXPECT_EQ(meter.Count(CallKind::kCatalogCommit), 2);
  EXPECT_GE(meter.Count(CallKind::kCatalogLoad), 1);
  EXPECT_GE(meter.Count(CallKind::kCatalogCredentials), 1);
  EXPECT_GT(meter.Count(CallKind::kS3Put), 0);

  ExpectTwoCommitsThrough(options);
}

// A store without STS for the service to vend from: each writer sends its
// own temporary credentials, and the catalog hands them back and publishes
// with them. Our client creates, commits and reads by name that way.
TEST_F(ServeUnityCredentialsTest, OurClientPassesItsOwnCredentialsThroughABucketWithoutVending) {
  StartPassingThrough();
  TableOptions options = CatalogOptions();
  options.catalog_send_credentials = true;
  StatusOr<Table> table = OpenTable("uc://main.sales.clicks", options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_NO_FATAL_FAILURE(CreateAndCommitTwice(*table));
  // What the store saw is the writer's own session (from the test user's
  // keys by GetSessionToken), handed back by the catalog unchanged.
  StatusOr<aws::Credentials> used = table->adapters().credentials->GetCredentials();
  StatusOr<aws::Credentials> own = table->adapters().service_credentials->GetCredentials();
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(used->access_key_id, own->access_key_id);
  EXPECT_NE(own->access_key_id, Env("AWS_ACCESS_KEY_ID")) << "a session, never the long-term key";
  EXPECT_FALSE(own->session_token.empty());
  // The service published both commits with it.
  EXPECT_FALSE(Published(dynamic_cast<S3ObjectStore&>(*table->adapters().store), 2).empty());

  ExpectTwoCommitsThrough(options);

  // The CLI the same way: the flag, then the environment variable.
  const std::string url = options.catalog_url;
  ASSERT_EQ(setenv("DELTACOMMIT_CATALOG_TOKEN", admin_token_.c_str(), 1), 0);
  CliResult committed = RunCli({"commit", "uc://main.sales.clicks", "--catalog-url", url,
                                "--catalog-send-credentials", "--actions", "-"},
                               R"({"add":{"path":"part-3.parquet","partitionValues":{},"size":10,)"
                               R"("modificationTime":1,"dataChange":true}})"
                               "\n");
  EXPECT_EQ(committed.exit_code, 0) << committed.err;
  ASSERT_EQ(setenv("DELTACOMMIT_CATALOG_SEND_CREDENTIALS", "true", 1), 0);
  CliResult shown = RunCli({"snapshot", "uc://main.sales.clicks", "--catalog-url", url, "--json"});
  unsetenv("DELTACOMMIT_CATALOG_SEND_CREDENTIALS");
  unsetenv("DELTACOMMIT_CATALOG_TOKEN");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out, nullptr, false).value("version", -1), 3) << shown.out;
  EXPECT_THAT(serve_->Logs(), Not(HasSubstr(own->secret_access_key)));
  EXPECT_THAT(serve_->Logs(), Not(HasSubstr(own->session_token)));
}

TEST_F(ServeUnityCredentialsTest, WithoutItsCredentialsAWriterIsToldToSendThem) {
  StartPassingThrough();
  TableOptions options = CatalogOptions();
  StatusOr<Table> table = OpenTable("uc://main.sales.orders", options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto snapshot = table->Snapshot();
  ASSERT_FALSE(snapshot.ok());
  EXPECT_THAT(snapshot.status().message(),
              AllOf(HasSubstr("vend_credentials = \"pass_through\""),
                    HasSubstr("--catalog-send-credentials")));
}

// The credentials endpoints of both APIs hand back exactly what was sent.
TEST_F(ServeUnityCredentialsTest, PassedThroughCredentialsComeBackUnchangedInBothShapes) {
  StartPassingThrough();
  StatusOr<aws::Credentials> own = TestSessionCredentials();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  StatusOr<aws::HttpHeaders> headers = service_wire::SentCredentialHeaders(*own);
  ASSERT_TRUE(headers.ok()) << headers.status().ToString();
  aws::HttpResponse uc = Send("POST", std::string(kBase) + "/temporary-table-credentials",
                              json{{"table_id", table_id_}, {"operation", "READ"}}.dump(),
                              admin_token_, *headers);
  ASSERT_EQ(uc.status, 200) << uc.body;
  const json answer = json::parse(uc.body);
  EXPECT_EQ(answer["aws_temp_credentials"]["access_key_id"], own->access_key_id);
  EXPECT_EQ(answer["aws_temp_credentials"]["session_token"], own->session_token);
  EXPECT_EQ(answer["expiration_time"], *own->expiration_ms / 1000 * 1000);
  EXPECT_EQ(answer["url"], location_);
  aws::HttpResponse delta =
      Send("GET",
           std::string(kBase) +
               "/delta/v1/catalogs/main/schemas/sales/tables/orders/credentials?operation=READ",
           "", admin_token_, *headers);
  ASSERT_EQ(delta.status, 200) << delta.body;
  const json credential = json::parse(delta.body)["storage-credentials"][0];
  EXPECT_EQ(credential["config"]["s3.secret-access-key"], own->secret_access_key);
  EXPECT_EQ(credential["prefix"], location_ + "/");
  // A READ token still gets nothing for READ_WRITE, whatever it sends.
  aws::HttpResponse refused = Send(
      "POST", std::string(kBase) + "/temporary-table-credentials",
      json{{"table_id", table_id_}, {"operation", "READ_WRITE"}}.dump(), reader_token_, *headers);
  EXPECT_EQ(refused.status, 403) << refused.body;
}

// docs/bad-inputs.md, row by row: the refusals of a pass-through bucket.
TEST_F(ServeUnityCredentialsTest, EveryPassThroughBadInputRowIsRefusedAsDocumented) {
  StartPassingThrough();
  StatusOr<aws::Credentials> own = TestSessionCredentials();
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  const auto rows = DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC,
                                   "Passed-through credentials (`vend_credentials = "
                                   "\"pass_through\"`)",
                                   [&](const std::string& text) { return Fill(text); });
  ASSERT_GE(rows.size(), 6u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "not a row of 7 cells with \"METHOD /path\"";
    // The second cell names what is sent in place of a token (admin's).
    aws::Credentials sent = *own;
    aws::HttpHeaders headers;
    if (row.token != "none") {
      if (row.token == "expired") sent.expiration_ms = SystemClock().NowMillis() - 60'000;
      if (row.token == "tampered secret") sent.secret_access_key = "WRONG" + sent.secret_access_key;
      headers = *service_wire::SentCredentialHeaders(sent);
      auto named = [&](std::string_view name) {
        return std::find_if(headers.begin(), headers.end(),
                            [&](const auto& header) { return header.first == name; });
      };
      if (row.token == "no session token") {
        headers.erase(named(service_wire::kSentSessionTokenHeader));
      }
      if (row.token == "expiry not a time") {
        named(service_wire::kSentExpirationHeader)->second = "tomorrow";
      }
    }
    aws::HttpResponse r = Send(row.method, kBase + row.path, row.body, admin_token_, headers);
    EXPECT_EQ(r.status, row.status) << r.body;
    const json body = json::parse(r.body, nullptr, false);
    const std::string code = body.contains("error") ? body["error"].value("type", "")
                                                    : body.value("error_code", "");
    const std::string message = body.contains("error") ? body["error"].value("message", "")
                                                       : body.value("message", "");
    EXPECT_EQ(code, row.code) << r.body;
    EXPECT_THAT(message, HasSubstr(row.says));
    EXPECT_THAT(r.body, Not(HasSubstr(own->secret_access_key)));
    EXPECT_THAT(r.body, Not(HasSubstr(own->session_token)));
  }
}

TEST_F(ServeUnityCredentialsTest, ABucketThatVendsNothingSaysHowToConfigureIt) {
  StartWithVending("");
  aws::HttpResponse r = TableCredentials("READ");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(UcCode(r), "FAILED_PRECONDITION");
  EXPECT_THAT(UcMessage(r), AllOf(HasSubstr("vends no credentials for bucket"),
                                  HasSubstr("vend_credentials = \"assume_role\"")));
}

TEST_F(ServeUnityCredentialsTest, ARoleStsRefusesIsTheOperatorsErrorAndLeaksNothing) {
  StartWithVending("arn:aws:iam:::role/deltacommit-no-such-role");
  aws::HttpResponse r = TableCredentials("READ");
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(UcCode(r), "INTERNAL");
  // The client learns that the operator must act, not the service's set-up.
  EXPECT_THAT(UcMessage(r), AllOf(HasSubstr("could not be vended: STS refused this service"),
                                  HasSubstr("credential vending failed")));
  EXPECT_THAT(r.body, Not(HasSubstr("deltacommit-no-such-role")));
  EXPECT_THAT(r.body, Not(HasSubstr(Env("AWS_ACCESS_KEY_ID").substr(0, 8))));
  // The operator's log has it: the role and STS's refusal.
  std::string logs = serve_->Logs();
  for (int i = 0; i < 100 && logs.find("credential vending failed") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    logs = serve_->Logs();
  }
  EXPECT_THAT(logs, AllOf(HasSubstr("credential vending failed"),
                          HasSubstr("arn:aws:iam:::role/deltacommit-no-such-role"),
                          HasSubstr("STS AssumeRole")));
  EXPECT_THAT(logs, Not(HasSubstr(Env("AWS_SECRET_ACCESS_KEY"))));
}

TEST_F(ServeUnityCredentialsTest, VendedSecretsNeverReachTheLog) {
  aws::HttpResponse r = TableCredentials("READ_WRITE");
  ASSERT_EQ(r.status, 200) << r.body;
  const json c = json::parse(r.body)["aws_temp_credentials"];
  // The request's log line follows its answer.
  std::string logs = serve_->Logs();
  for (int i = 0; i < 100 && logs.find("temporary-table-credentials") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    logs = serve_->Logs();
  }
  EXPECT_THAT(logs, HasSubstr("temporary-table-credentials"));
  EXPECT_THAT(logs, Not(HasSubstr(c.value("secret_access_key", "?"))));
  EXPECT_THAT(logs, Not(HasSubstr(c.value("session_token", "?"))));
  EXPECT_THAT(logs, Not(HasSubstr(Env("AWS_SECRET_ACCESS_KEY"))));
}

}  // namespace
}  // namespace deltacommit::testing
