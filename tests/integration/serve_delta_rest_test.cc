// Unity Catalog's Delta REST API (/api/2.1/unity-catalog/delta/v1) on a
// real `deltacommit serve`, in the order the v1 spec and Delta Spark's
// UCDeltaTokenBasedRestClient call it for a managed table under a [local]
// root: config, staging table, version 0 written by the client, create,
// load, then update-table with add-commit for each version; the resend of
// a commit whose reply was lost, conflicts on the version, the uuid and
// the etag, metadata updates, exists, metrics, rename and delete. The
// service publishes every ratified commit to _delta_log/<v>.json itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "delta_rest_fixture.h"
#include "deltacommit/log_path.h"
#include "doc_table.h"
#include "local_files.h"
#include "service/config/auth.h"
#include "service/http/http_test_util.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST_F(ServeDeltaRestTest, ConfigAdvertisesEveryRouteOfVersionOne) {
  http::testing::RawResponse config =
      Call("GET", "/delta/v1/config?catalog=main&protocol-versions=1.3,2.0", nullptr);
  ASSERT_EQ(config.status, 200) << config.body;
  EXPECT_EQ(Body(config)["protocol-version"], "1.0");
  const json endpoints = Body(config)["endpoints"];
  for (const char* endpoint :
       {"POST /v1/catalogs/{catalog}/schemas/{schema}/staging-tables",
        "POST /v1/catalogs/{catalog}/schemas/{schema}/tables",
        "GET /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
        "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
        "GET /v1/staging-tables/{table_id}/credentials", "GET /v1/temporary-path-credentials"}) {
    EXPECT_THAT(endpoints, Contains(endpoint));
  }
  ExpectError(Call("GET", "/delta/v1/config?catalog=main&protocol-versions=2.1", nullptr), 400,
              "InvalidParameterValueException", "speaks version 1.0");
  ExpectError(Call("GET", "/delta/v1/config?catalog=main", nullptr), 400,
              "InvalidParameterValueException", "\"protocol-versions\" is required");
  ExpectError(Call("GET", "/delta/v1/config?catalog=nope&protocol-versions=1.0", nullptr), 404,
              "NoSuchCatalogException", "Catalog not found: nope");
  ExpectError(
      Call("GET", "/delta/v1/config?catalog=main&protocol-versions=1.0", nullptr, "not-a-token"),
      401, "NotAuthorizedException", "");
}

TEST_F(ServeDeltaRestTest, StagingAnswersTheManagedContractAndCreateChecksIt) {
  http::testing::RawResponse staged =
      Call("POST", "/delta/v1/catalogs/main/schemas/sales/staging-tables", {{"name", "orders"}});
  ASSERT_EQ(staged.status, 200) << staged.body;
  const json staging = Body(staged);
  EXPECT_EQ(staging["table-type"], "MANAGED");
  EXPECT_EQ(staging["location"],
            "file://" + root_.string() + "/tables/" + staging.value("table-id", ""));
  EXPECT_EQ(staging["required-properties"]["io.unitycatalog.tableId"], staging["table-id"]);
  EXPECT_THAT(staging["required-protocol"]["reader-features"], Contains("catalogManaged"));
  EXPECT_THAT(staging["required-protocol"]["writer-features"], Contains("inCommitTimestamp"));
  // A local location's credential: its prefix, READ_WRITE, nothing to hold.
  ASSERT_EQ(staging["storage-credentials"].size(), 1u);
  EXPECT_EQ(staging["storage-credentials"][0]["prefix"],
            staging["location"].get<std::string>() + "/");
  EXPECT_EQ(staging["storage-credentials"][0]["operation"], "READ_WRITE");
  EXPECT_EQ(staged.Header("Cache-Control"), "no-store");

  // A create without the required protocol or properties is refused.
  json create = {{"name", "orders"},
                 {"location", staging["location"]},
                 {"table-type", "MANAGED"},
                 {"columns", {{"type", "struct"}, {"fields", json::array()}}},
                 {"protocol", {{"min-reader-version", 3}, {"min-writer-version", 7}}},
                 {"properties", staging["required-properties"]},
                 {"last-commit-timestamp-ms", 1700000000000}};
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create), 400,
              "InvalidParameterValueException", "must name catalogManaged");
  create["protocol"] = staging["required-protocol"];
  create["properties"].erase("delta.enableDeletionVectors");
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create), 400,
              "InvalidParameterValueException", "must set delta.enableDeletionVectors");
  create["properties"] = staging["required-properties"];
  create["properties"]["delta.feature.rowTracking"] = "supported";
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create), 400,
              "InvalidParameterValueException", "derives");
  create["properties"] = staging["required-properties"];
  create["name"] = "other";
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create), 400,
              "InvalidParameterValueException", "was staged as main.sales.orders");
  create["name"] = "orders";
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create, kReaderToken),
              403, "PermissionDeniedException", "");
  ASSERT_EQ(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create).status, 200);
  ExpectError(Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables", create), 409,
              "AlreadyExistsException", "");
}

TEST_F(ServeDeltaRestTest, CommitsAreRatifiedOnceInOrderAndLoadedNewestFirst) {
  const json created = CreateManagedTable();
  ASSERT_FALSE(table_id_.empty());
  EXPECT_EQ(created["metadata"]["table-uuid"], table_id_);
  EXPECT_EQ(created["metadata"]["location"], location_);
  EXPECT_EQ(created["metadata"]["properties"]["delta.feature.catalogManaged"], "supported");
  EXPECT_EQ(created["metadata"]["properties"]["delta.minReaderVersion"], "3");
  EXPECT_EQ(created["metadata"]["last-commit-version"], 0);
  EXPECT_EQ(created["commits"], json::array());
  EXPECT_EQ(created["latest-table-version"], 0);
  const std::string etag = created["metadata"].value("etag", "");
  ASSERT_TRUE(etag.starts_with("etag-")) << etag;

  const json first = PutStaged(1, "a.parquet");
  http::testing::RawResponse committed =
      Call("POST", kTable, Update(json::array({AddCommit(first)}), etag));
  ASSERT_EQ(committed.status, 200) << committed.body;
  EXPECT_EQ(Body(committed)["latest-table-version"], 1);
  // A resend (the reply was lost; UC's SDK retries) is the same commit.
  EXPECT_EQ(Call("POST", kTable, Update(json::array({AddCommit(first)}), etag)).status, 200);
  // Another writer's version 1 lost the race: 409, which Delta rebases on.
  ExpectError(Call("POST", kTable, Update(json::array({AddCommit(PutStaged(1, "b.parquet"))}))),
              409, "CommitVersionConflictException", "is taken");
  // A version that skips one: 400.
  ExpectError(Call("POST", kTable, Update(json::array({AddCommit(PutStaged(3, "c.parquet"))}))),
              400, "InvalidParameterValueException", "is ahead");
  ASSERT_TRUE(Published(1));
  EXPECT_EQ(
      ReadFile(path_ / "_delta_log" / "00000000000000000001.json"),
      ReadFile(path_ / "_delta_log" / "_staged_commits" / first["file-name"].get<std::string>()));

  // Version 2 carries metadata: the catalog's entry changes, and so does
  // its etag; a resend of version 2 with the etag it was sent with is still
  // a replay, while a new commit with a stale etag is a conflict.
  const json second = PutStaged(2, "d.parquet");
  const json with_metadata =
      Update({AddCommit(second),
              {{"action", "set-properties"}, {"updates", {{"team", "sales"}}}},
              {{"action", "set-table-comment"}, {"comment", "orders, by day"}}},
             etag);
  http::testing::RawResponse two = Call("POST", kTable, with_metadata);
  ASSERT_EQ(two.status, 200) << two.body;
  const json loaded = Body(Call("GET", kTable, nullptr, kReaderToken));
  EXPECT_EQ(loaded["metadata"]["properties"]["team"], "sales") << loaded.dump();
  EXPECT_EQ(loaded["metadata"]["comment"], "orders, by day");
  EXPECT_EQ(loaded["metadata"]["last-commit-version"], 2);
  EXPECT_EQ(loaded["metadata"]["last-commit-timestamp-ms"], second["timestamp"]);
  const std::string etag2 = loaded["metadata"].value("etag", "");
  EXPECT_NE(etag2, etag);
  EXPECT_EQ(loaded["latest-table-version"], 2);
  for (size_t i = 1; i < loaded["commits"].size(); ++i) {
    EXPECT_GT(loaded["commits"][i - 1]["version"], loaded["commits"][i]["version"]);
  }
  EXPECT_EQ(Call("POST", kTable, with_metadata).status, 200);
  ExpectError(
      Call("POST", kTable, Update(json::array({AddCommit(PutStaged(3, "e.parquet"))}), etag)), 409,
      "UpdateRequirementConflictException", "assert-etag");
  ASSERT_TRUE(Published(2));

  // The backfill report: beyond the latest version is refused, else a hint.
  ExpectError(
      Call(
          "POST", kTable,
          Update({{{"action", "set-latest-backfilled-version"}, {"latest-published-version", 9}}})),
      400, "InvalidParameterValueException", "Should not backfill version 9");
  EXPECT_EQ(
      Call("POST", kTable,
           Update({{{"action", "set-latest-backfilled-version"}, {"latest-published-version", 2}}}))
          .status,
      200);
  const json after = Body(Call("GET", kTable, nullptr));
  EXPECT_EQ(after["commits"], json::array()) << after.dump();
  EXPECT_EQ(after["latest-table-version"], 2);
}

TEST_F(ServeDeltaRestTest, RequirementsAndMetadataUpdatesAreChecked) {
  const json created = CreateManagedTable();
  const std::string etag = created["metadata"].value("etag", "");
  // The uuid of another table: 409, nothing changes.
  json wrong = Update({{{"action", "set-table-comment"}, {"comment", "x"}}});
  wrong["requirements"][0]["uuid"] = NewUuid();
  ExpectError(Call("POST", kTable, wrong), 409, "UpdateRequirementConflictException",
              "assert-table-uuid");
  // Metadata alone, over the etag it names.
  http::testing::RawResponse set =
      Call("POST", kTable,
           Update({{{"action", "set-properties"}, {"updates", {{"owner.team", "sales"}}}},
                   {{"action", "set-domain-metadata"},
                    {"updates", {{"delta.clustering", {{"clusteringColumns", {{"id"}}}}}}}}},
                  etag));
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(Body(set)["metadata"]["properties"]["owner.team"], "sales");
  EXPECT_EQ(Body(set)["metadata"]["properties"]["delta.clusteringColumns"], R"([["id"]])");
  ExpectError(
      Call("POST", kTable, Update({{{"action", "set-table-comment"}, {"comment", "stale"}}}, etag)),
      409, "UpdateRequirementConflictException", "assert-etag");
  // Shape rules, each 400 naming what is wrong.
  const std::pair<json, std::string> bad[] = {
      {Update(json::array()), "\"updates\" must be a non-empty list"},
      {json{{"updates", {{{"action", "set-table-comment"}, {"comment", "x"}}}},
            {"requirements", {{{"type", "assert-etag"}, {"etag", etag}}}}},
       "must hold an assert-table-uuid"},
      {Update({{{"action", "set-table-comment"}, {"comment", "a"}},
               {{"action", "set-table-comment"}, {"comment", "b"}}}),
       "repeats update set-table-comment"},
      {Update({{{"action", "drop-everything"}}}), "not an update of the Delta REST API"},
      {Update({{{"action", "set-properties"}, {"updates", {{"delta.minReaderVersion", "1"}}}}}),
       "derives"},
      {Update({{{"action", "remove-properties"}, {"removals", {"io.unitycatalog.tableId"}}}}),
       "the table's id"},
      {Update({{{"action", "set-properties"}, {"updates", {{"k", "v"}}}},
               {{"action", "remove-properties"}, {"removals", {"k"}}}}),
       "sets and removes property"},
      {Update({{{"action", "set-partition-columns"}, {"partition-columns", {"nope"}}}}),
       "not a top-level column"},
      {Update({{{"action", "set-protocol"},
                {"protocol", {{"min-reader-version", 9}, {"min-writer-version", 7}}}}}),
       "min-reader-version\" must be a whole number from 1 to 3"},
      {Update({{{"action", "set-domain-metadata"}, {"updates", {{"my.domain", json::object()}}}}}),
       "not a domain this API carries"},
      {Update({{{"action", "update-metadata-snapshot-version"},
                {"last-commit-version", 3},
                {"last-commit-timestamp-ms", 1}}}),
       "for external tables"},
  };
  for (const auto& [body, says] : bad) {
    SCOPED_TRACE(body.dump());
    ExpectError(Call("POST", kTable, body), 400, "InvalidParameterValueException", says);
  }
  // A reader may load but not update.
  ExpectError(Call("POST", kTable, Update({{{"action", "set-table-comment"}, {"comment", "x"}}}),
                   kReaderToken),
              403, "PermissionDeniedException", "");
  EXPECT_EQ(Body(Call("GET", kTable, nullptr))["metadata"].value("comment", ""), "");
}

TEST_F(ServeDeltaRestTest, ExistsMetricsRenameAndDelete) {
  CreateManagedTable();
  EXPECT_EQ(Call("HEAD", kTable, nullptr).status, 204);
  http::testing::RawResponse missing =
      Call("HEAD", "/delta/v1/catalogs/main/schemas/sales/tables/nope", nullptr);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "");
  EXPECT_EQ(
      Call("POST", std::string(kTable) + "/metrics",
           {{"table-id", table_id_}, {"report", {{"commit-report", {{"num-files-added", 1}}}}}})
          .status,
      204);
  ExpectError(Call("POST", std::string(kTable) + "/metrics", {{"table-id", NewUuid()}}), 400,
              "InvalidParameterValueException", "table-id");
  EXPECT_EQ(Call("POST", std::string(kTable) + "/rename", {{"new-name", "orders2"}}).status, 204);
  ExpectError(Call("GET", kTable, nullptr), 404, "NoSuchTableException",
              "Table not found: main.sales.orders");
  const std::string renamed = "/delta/v1/catalogs/main/schemas/sales/tables/orders2";
  ASSERT_EQ(Body(Call("GET", renamed, nullptr))["metadata"]["table-uuid"], table_id_);
  ExpectError(Call("DELETE", renamed, nullptr, kReaderToken), 403, "PermissionDeniedException", "");
  EXPECT_EQ(Call("DELETE", renamed, nullptr).status, 204);
  ExpectError(Call("GET", renamed, nullptr), 404, "NoSuchTableException", "");
  ExpectError(Call("GET", "/delta/v1/catalogs/main/schemas/none/tables/t", nullptr), 404,
              "NoSuchSchemaException", "");
  // The files and the commit history stay.
  EXPECT_TRUE(fs::exists(path_ / "_delta_log" / "00000000000000000000.json"));
}

// docs/bad-inputs.md "The Delta REST API": each row's status, type and
// message, and none ratifies, publishes or changes anything.
TEST_F(ServeDeltaRestTest, EveryBadInputRowGetsItsStatusTypeAndErrorAndChangesNothing) {
  const json created = CreateManagedTable();
  const std::string etag = created["metadata"].value("etag", "");
  const json staged = PutStaged(1, "a.parquet");
  const json protocol = Body(Call("POST", "/delta/v1/catalogs/main/schemas/sales/staging-tables",
                                  {{"name", "x"}}))["required-protocol"];
  auto fill = [&](std::string text) {
    for (const auto& [name, value] : {std::pair<std::string, std::string>{"$TABLE_ID", table_id_},
                                      {"$ETAG", etag},
                                      {"$PROTOCOL", protocol.dump()},
                                      {"$STAGED", staged["file-name"].get<std::string>()},
                                      {"$SIZE", std::to_string(staged["file-size"].get<int64_t>())},
                                      {"$ROOT", root_.string()}}) {
      text = ReplaceAll(text, name, value);
    }
    return text;
  };
  const auto rows = DocRequestRows(DELTACOMMIT_BAD_INPUTS_DOC,
                                   "The Delta REST API (`/api/2.1/unity-catalog/delta/v1`)", fill);
  ASSERT_GE(rows.size(), 40u);
  for (const RequestRow& row : rows) {
    SCOPED_TRACE(row.what);
    ASSERT_NE(row.status, 0) << "a row needs 7 cells and \"METHOD /path\"";
    const std::string token = row.token == "admin"    ? kToken
                              : row.token == "reader" ? kReaderToken
                                                      : "not-a-token-" + NewUuid();
    http::testing::RawConnection connection(serve_->port());
    ASSERT_TRUE(connection.Send(http::testing::RawRequest(
        row.method, kUc + row.path,
        "Authorization: Bearer " + token + "\r\nContent-Type: application/json\r\n", row.body)));
    std::optional<http::testing::RawResponse> response = connection.ReadResponse();
    ASSERT_TRUE(response.has_value());
    ExpectError(*response, row.status, row.code, row.says);
  }
  // Nothing ratified, published or changed; the staged commit is fine.
  const json loaded = Body(Call("GET", kTable, nullptr));
  EXPECT_EQ(loaded["latest-table-version"], 0);
  EXPECT_EQ(loaded["metadata"]["etag"], etag);
  EXPECT_FALSE(fs::exists(path_ / "_delta_log" / "00000000000000000001.json"));
  EXPECT_EQ(Call("POST", kTable, Update(json::array({AddCommit(staged)}), etag)).status, 200);
}

TEST_F(ServeDeltaRestTest, ExternalTablesKeepTheirOwnHistory) {
  const std::string location = "file://" + (root_ / "ext").string();
  http::testing::RawResponse created =
      Call("POST", "/delta/v1/catalogs/main/schemas/sales/tables",
           {{"name", "ext"},
            {"location", location},
            {"table-type", "EXTERNAL"},
            // No columns and no properties, as Delta's client sends a table
            // without either.
            {"protocol", {{"min-reader-version", 1}, {"min-writer-version", 2}}},
            {"last-commit-timestamp-ms", 1700000000000}});
  ASSERT_EQ(created.status, 200) << created.body;
  const json table = Body(created);
  table_id_ = table["metadata"]["table-uuid"];
  EXPECT_EQ(table["metadata"]["table-type"], "EXTERNAL");
  EXPECT_FALSE(table.contains("commits"));
  EXPECT_FALSE(table["metadata"].contains("last-commit-version"));
  const std::string path = "/delta/v1/catalogs/main/schemas/sales/tables/ext";
  ExpectError(Call("POST", path,
                   Update(json::array({{{"action", "set-latest-backfilled-version"},
                                        {"latest-published-version", 0}}}))),
              400, "InvalidParameterValueException", "are for managed tables");
  http::testing::RawResponse updated =
      Call("POST", path,
           Update(json::array({{{"action", "update-metadata-snapshot-version"},
                                {"last-commit-version", 7},
                                {"last-commit-timestamp-ms", 1700000007000}}})));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(Body(updated)["metadata"]["last-commit-version"], 7);
  EXPECT_EQ(Body(updated)["metadata"]["properties"]["delta.lastUpdateVersion"], "7");
}

// A table whose cap of unpublished commits is 1, and whose version 1
// cannot be published while a directory stands where _delta_log/<1>.json
// goes: the next commit is 429, and lands once publishing can go on.
class ServeDeltaRestCapTest : public ServeDeltaRestTest {
 protected:
  std::string ExtraConfig() const override {
    return "[commits]\nmax_unpublished_commits = 1\n"
           "[publish]\nfirst_retry_ms = 20\nmax_retry_ms = 100\n";
  }
};

TEST_F(ServeDeltaRestCapTest, TheCapOfUnpublishedCommitsAnswers429UntilPublished) {
  const json created = CreateManagedTable();
  const fs::path blocker = path_ / "_delta_log" / "00000000000000000001.json";
  fs::create_directories(blocker);
  ASSERT_EQ(
      Call("POST", kTable, Update(json::array({AddCommit(PutStaged(1, "a.parquet"))}))).status,
      200);
  const json second = PutStaged(2, "b.parquet");
  ExpectError(Call("POST", kTable, Update(json::array({AddCommit(second)}))), 429,
              "ResourceExhaustedException",
              "has 1 ratified commits waiting to be published (the most it may have)");
  EXPECT_EQ(Body(Call("GET", kTable, nullptr))["latest-table-version"], 1);
  fs::remove(blocker);
  ASSERT_TRUE(Published(1));
  EXPECT_TRUE(http::testing::Eventually([&] {
    return Call("POST", kTable, Update(json::array({AddCommit(second)}))).status == 200;
  }));
  ASSERT_TRUE(Published(2));
}

}  // namespace
}  // namespace deltacommit::testing
