// The Delta REST API's update-table request as the spec's shape rules read
// it, its metadata updates on a catalog entry, and the values of
// delta_rest_json.h: protocol, domain metadata, commits and the loaded
// table's derived properties and etag.
#include "service/unity/delta_table_update.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/unity/delta_rest_json.h"

namespace deltacommit::service::unity {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kTableId[] = "8f1c0e2a-3b4d-4c5e-9f60-718293a4b5c6";

json Request(const json& updates) {
  return {{"requirements", json::array({{{"type", "assert-table-uuid"}, {"uuid", kTableId}}})},
          {"updates", updates}};
}

json Commit() {
  return {{"version", 3},
          {"timestamp", 1700000000000},
          {"file-name", "00000000000000000003.0b6b3a3e-7c1f-4c5e-9f60-718293a4b5c6.json"},
          {"file-size", 120},
          {"file-modification-timestamp", 1700000000001}};
}

TableEntry Table() {
  TableEntry table;
  table.table_id = kTableId;
  table.columns_json =
      R"({"type":"struct","fields":[{"name":"Day","type":"date","nullable":true,"metadata":{}}]})";
  table.properties = {{"io.unitycatalog.tableId", kTableId}, {"team", "sales"}};
  table.updated_at_ms = 1700000000123;
  return table;
}

TEST(DeltaTableUpdateTest, EveryUpdateIsRead) {
  StatusOr<DeltaTableUpdate> update = ParseDeltaTableUpdate(Request(
      json::array({{{"action", "add-commit"}, {"commit", Commit()}},
                   {{"action", "set-latest-backfilled-version"}, {"latest-published-version", 2}},
                   {{"action", "set-table-comment"}, {"comment", "by day"}},
                   {{"action", "set-properties"}, {"updates", {{"k", "v"}}}},
                   {{"action", "remove-properties"}, {"removals", {"team"}}},
                   {{"action", "set-partition-columns"}, {"partition-columns", {"day"}}},
                   {{"action", "set-protocol"},
                    {"protocol",
                     {{"min-reader-version", 3},
                      {"min-writer-version", 7},
                      {"reader-features", {"catalogManaged"}},
                      {"writer-features", {"catalogManaged", "inCommitTimestamp"}}}}},
                   {{"action", "set-domain-metadata"},
                    {"updates", {{"delta.rowTracking", {{"rowIdHighWaterMark", 41}}}}}}})));
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->table_uuid, kTableId);
  ASSERT_TRUE(update->commit.has_value());
  EXPECT_EQ(update->commit->version, 3);
  EXPECT_EQ(update->commit->file_size, 120);
  EXPECT_EQ(update->latest_published_version, 2);
  EXPECT_TRUE(update->ChangesMetadata());

  TableEntry table = Table();
  ASSERT_TRUE(update->ApplyTo(table).ok());
  EXPECT_EQ(table.comment, "by day");
  EXPECT_EQ(table.properties, (PropertyMap{{"io.unitycatalog.tableId", kTableId}, {"k", "v"}}));
  // Partition columns match the schema without case, as the spec says.
  EXPECT_EQ(table.partition_columns, std::vector<std::string>{"day"});
  EXPECT_EQ(json::parse(table.domain_metadata_json),
            json::parse(R"({"delta.rowTracking":{"rowIdHighWaterMark":41}})"));

  StatusOr<nlohmann::ordered_json> loaded = DeltaLoadTableResponse(table, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const auto& properties = (*loaded)["metadata"]["properties"];
  EXPECT_EQ(properties["delta.minReaderVersion"], "3");
  EXPECT_EQ(properties["delta.feature.inCommitTimestamp"], "supported");
  EXPECT_EQ(properties["delta.rowTracking.rowIdHighWaterMark"], "41");
  EXPECT_EQ((*loaded)["metadata"]["etag"], "etag-1700000000123");
  EXPECT_EQ((*loaded)["metadata"]["columns"]["fields"][0]["name"], "Day");
  EXPECT_FALSE(loaded->contains("commits"));  // not a managed table's answer
}

TEST(DeltaTableUpdateTest, ShapeRulesAreRefusedNamingWhatIsWrong) {
  const std::pair<json, std::string> bad[] = {
      {json{{"updates", json::array({{{"action", "set-table-comment"}, {"comment", "x"}}})}},
       "\"requirements\" is required"},
      {Request(json::array()), "\"updates\" must be a non-empty list"},
      {Request(json::array({{{"comment", "x"}}})), "\"updates[0].action\" is required"},
      {Request(json::array({{{"action", "add-commit"}, {"commit", Commit()}},
                            {{"action", "add-commit"}, {"commit", Commit()}}})),
       "repeats update add-commit"},
      {Request(json::array({{{"action", "set-properties"}, {"updates", {{"a", "1"}}}},
                            {{"action", "remove-properties"}, {"removals", {"a"}}}})),
       "sets and removes property \"a\""},
      {Request(json::array(
           {{{"action", "set-domain-metadata"},
             {"updates", {{"delta.clustering", {{"clusteringColumns", {{"a"}}}}}}}},
            {{"action", "remove-domain-metadata"}, {"domains", {"delta.clustering"}}}})),
       "sets and removes domain \"delta.clustering\""},
      {Request(json::array(
           {{{"action", "set-properties"}, {"updates", {{"delta.lastUpdateVersion", "9"}}}}})),
       "derives"},
      {Request(json::array({{{"action", "set-protocol"},
                             {"protocol",
                              {{"min-reader-version", 2},
                               {"min-writer-version", 7},
                               {"reader-features", {"deletionVectors"}}}}}})),
       "need min-reader-version 3"},
      {Request(json::array({{{"action", "set-protocol"},
                             {"protocol",
                              {{"min-reader-version", 3},
                               {"min-writer-version", 7},
                               {"reader-features", {"deletionVectors"}},
                               {"writer-features", json::array()}}}}})),
       "must also name the reader feature deletionVectors"},
      {Request(json::array({{{"action", "set-protocol"},
                             {"protocol",
                              {{"min-reader-version", 3},
                               {"min-writer-version", 7},
                               {"reader-features", {"a b"}},
                               {"writer-features", {"a b"}}}}}})),
       "not a table feature name"},
      {Request(json::array({{{"action", "set-domain-metadata"},
                             {"updates", {{"delta.rowTracking", {{"rowIdHighWaterMark", -2}}}}}}})),
       "must be a whole number >= -1"},
      {Request(json::array({{{"action", "add-commit"}, {"commit", [] {
                               json c = Commit();
                               c["file-name"] = "a/b.json";
                               return c;
                             }()}}})),
       "must be one file name"},
      {Request(json::array({{{"action", "set-latest-backfilled-version"},
                             {"latest-published-version", -1}}})),
       "must be >= 0"},
  };
  for (const auto& [body, says] : bad) {
    SCOPED_TRACE(body.dump());
    StatusOr<DeltaTableUpdate> update = ParseDeltaTableUpdate(body);
    ASSERT_FALSE(update.ok());
    EXPECT_EQ(update.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(update.status().message(), HasSubstr(says));
  }
}

TEST(DeltaTableUpdateTest, ApplyRefusesAForeignTableIdAndUnknownPartitionColumns) {
  StatusOr<DeltaTableUpdate> foreign = ParseDeltaTableUpdate(Request(json::array(
      {{{"action", "set-properties"},
        {"updates", {{"io.unitycatalog.tableId", "00000000-0000-4000-8000-000000000000"}}}}})));
  ASSERT_TRUE(foreign.ok());
  TableEntry table = Table();
  EXPECT_THAT(foreign->ApplyTo(table).message(), HasSubstr("may not change"));
  StatusOr<DeltaTableUpdate> partition = ParseDeltaTableUpdate(Request(
      json::array({{{"action", "set-partition-columns"}, {"partition-columns", {"month"}}}})));
  ASSERT_TRUE(partition.ok());
  EXPECT_THAT(partition->ApplyTo(table).message(), HasSubstr("\"month\" is not a top-level"));
}

TEST(DeltaRestJsonTest, ManagedTablesNeedEveryRequiredFeatureAndProperty) {
  const nlohmann::ordered_json protocol = RequiredManagedProtocol();
  PropertyMap properties;
  for (const auto& [key, value] : RequiredManagedProperties(kTableId)) properties[key] = value;
  EXPECT_TRUE(CheckManagedTable(protocol, properties, kTableId).ok());
  nlohmann::ordered_json missing = protocol;
  missing["writer-features"].erase(2);  // inCommitTimestamp
  EXPECT_THAT(CheckManagedTable(missing, properties, kTableId).message(),
              HasSubstr("must name inCommitTimestamp"));
  properties["delta.checkpointPolicy"] = "classic";
  EXPECT_THAT(CheckManagedTable(protocol, properties, kTableId).message(),
              HasSubstr("must set delta.checkpointPolicy to \"v2\""));
}

TEST(DeltaRestJsonTest, CommitsAreWrittenInTheSpecsSpelling) {
  StatusOr<UcCommitInfo> commit = ParseDeltaCommit(Commit(), "commit");
  ASSERT_TRUE(commit.ok());
  EXPECT_EQ(json::parse(DeltaCommitJson(*commit).dump()), Commit());
}

}  // namespace
}  // namespace deltacommit::service::unity
