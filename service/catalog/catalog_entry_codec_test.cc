// The catalog's stored form: every field of every entry survives a round
// trip, and what the store did not write is kDataLoss naming where and why.
#include "service/catalog/catalog_entry_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

constexpr char kId[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

TableEntry FullTable() {
  TableEntry table;
  table.name = {"main", "sales", "orders"};
  table.table_id = kId;
  table.type = TableType::kExternal;
  table.data_source_format = "DELTA";
  table.storage_location = "s3://bucket/warehouse/orders";
  table.comment = "line one\nline \"two\"";
  table.columns_json = R"({"type":"struct","fields":[{"name":"id","type":"long"}]})";
  table.partition_columns = {"day", "region"};
  table.properties = {{"delta.enableInCommitTimestamps", "true"}, {"owner.team", "ü"}};
  table.protocol_json = R"({"min-reader-version":3,"min-writer-version":7})";
  table.domain_metadata_json = R"({"delta.rowTracking":{"rowIdHighWaterMark":9}})";
  table.owner = "etl";
  table.created_at_ms = 1'700'000'000'000;
  table.updated_at_ms = 1'700'000'000'123;
  table.last_commit_timestamp_ms = 1'699'999'999'999;
  table.metadata_version = 7;
  return table;
}

TEST(CatalogEntryCodecTest, EveryEntryRoundTrips) {
  const CatalogEntry catalog{"main", kId, "c", {{"k", "v"}}, "s3://b/root", "admin", 1, 2};
  EXPECT_EQ(DecodeCatalogEntry(EncodeEntry(catalog), "here").value(), catalog);
  const SchemaEntry schema{{"sales", kId, "s", {{"a", "b"}}, "", "admin", 3, 4}, "main"};
  EXPECT_EQ(DecodeSchemaEntry(EncodeEntry(schema), "here").value(), schema);
  const TableEntry table = FullTable();
  EXPECT_EQ(DecodeTableEntry(EncodeEntry(table), "here").value(), table);
  const StagingTableEntry staging{kId, "main", "sales", "orders", "s3://b/t", "etl", 5, true};
  EXPECT_EQ(DecodeStagingTableEntry(EncodeEntry(staging), "here").value(), staging);
}

// Tables stored before commits through the Unity Catalog API have no
// metadata_version: none applied yet.
TEST(CatalogEntryCodecTest, ATableStoredWithoutMetadataVersionHasNone) {
  nlohmann::json stored = nlohmann::json::parse(EncodeEntry(FullTable()));
  stored.erase("metadata_version");
  StatusOr<TableEntry> decoded = DecodeTableEntry(stored.dump(), "here");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->metadata_version, -1);
  stored["metadata_version"] = "7";
  EXPECT_EQ(DecodeTableEntry(stored.dump(), "here").status().code(), StatusCode::kDataLoss);
}

TEST(CatalogEntryCodecTest, WhatTheStoreDidNotWriteIsDataLossNamingWhereAndWhy) {
  struct Case {
    std::string json;
    std::string names;
  };
  const Case cases[] = {
      {"not json", "is not a JSON object"},
      {"[1]", "is not a JSON object"},
      {R"({"name":"main"})", "has no field id"},
      {R"({"name":7})", "field name is not a string"},
  };
  for (const Case& c : cases) {
    Status s = DecodeCatalogEntry(c.json, "SQLite file f table uc_catalogs row 'main'").status();
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << c.json;
    EXPECT_THAT(s.message(), HasSubstr("SQLite file f table uc_catalogs row 'main'")) << c.json;
    EXPECT_THAT(s.message(), HasSubstr(c.names)) << c.json;
  }
  std::string table = EncodeEntry(FullTable());
  table.replace(table.find("EXTERNAL"), 8, "VIEW");
  Status s = DecodeTableEntry(table, "row").status();
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_THAT(s.message(),
              HasSubstr("the stored entry's table type \"VIEW\" is not one of MANAGED, EXTERNAL"));
  std::string partitions = EncodeEntry(FullTable());
  partitions.replace(partitions.find("\"day\""), 5, "5");
  EXPECT_THAT(DecodeTableEntry(partitions, "row").status().message(),
              HasSubstr("field partition_columns holds a value that is not a string"));
}

// A newer build may store more; this one keeps what it knows.
TEST(CatalogEntryCodecTest, UnknownFieldsAreIgnored) {
  const StagingTableEntry staging{kId, "main", "sales", "orders", "s3://b/t", "etl", 5, false};
  std::string json = EncodeEntry(staging);
  json.insert(1, R"("added_later":{"x":[1,2]},)");
  EXPECT_EQ(DecodeStagingTableEntry(json, "row").value(), staging);
}

}  // namespace
}  // namespace deltacommit::service
