// The commit request's parts as UC's server reads them: commit_info's
// fields and file name, and metadata's one-level nesting and table id.
#include "service/unity/uc_commits_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit::service::unity {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kTableId[] = "8f1c0e2a-3b4d-4c5e-9f60-718293a4b5c6";

json Info() {
  return {{"version", 3},
          {"timestamp", 1700000000000},
          {"file_name", "00000000000000000003.0b6b3a3e-7c1f-4c5e-9f60-718293a4b5c6.json"},
          {"file_size", 120},
          {"file_modification_timestamp", 1700000000001}};
}

TEST(UcCommitInfoTest, EveryFieldIsReadAndChecked) {
  StatusOr<UcCommitInfo> info = ParseUcCommitInfo(Info());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->version, 3);
  EXPECT_EQ(info->timestamp, 1700000000000);
  EXPECT_EQ(info->file_size, 120);
  EXPECT_EQ(info->file_modification_timestamp, 1700000000001);

  for (const char* field :
       {"version", "timestamp", "file_name", "file_size", "file_modification_timestamp"}) {
    json missing = Info();
    missing.erase(field);
    EXPECT_THAT(ParseUcCommitInfo(missing).status().message(), HasSubstr(field));
  }
  for (const char* field : {"version", "timestamp", "file_size", "file_modification_timestamp"}) {
    json zero = Info();
    zero[field] = 0;
    EXPECT_THAT(ParseUcCommitInfo(zero).status().message(),
                HasSubstr("\"commit_info." + std::string(field) + "\" is 0: it must be above 0"));
  }
  for (const char* name :
       {"", ".", "..", "a/b.json", "a\\b.json", "../00000000000000000003.json"}) {
    json bad = Info();
    bad["file_name"] = name;
    EXPECT_THAT(ParseUcCommitInfo(bad).status().message(), HasSubstr("must be one file name"))
        << name;
  }
  EXPECT_EQ(ParseUcCommitInfo(json::array()).status().code(), StatusCode::kInvalidArgument);
}

TEST(UcCommitMetadataTest, PropertiesNestOnceAndMustNameTheTable) {
  StatusOr<UcCommitMetadata> metadata = ParseUcCommitMetadata(
      {{"description", "d"},
       {"properties", {{"properties", {{"io.unitycatalog.tableId", kTableId}, {"k", "v"}}}}}},
      kTableId);
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  EXPECT_EQ(metadata->description, "d");
  ASSERT_TRUE(metadata->properties.has_value());
  EXPECT_EQ(metadata->properties->at("k"), "v");
  EXPECT_FALSE(metadata->schema_string.has_value());

  EXPECT_THAT(ParseUcCommitMetadata(json::object(), kTableId).status().message(),
              HasSubstr("At least one of description, properties, or schema"));
  EXPECT_THAT(ParseUcCommitMetadata({{"properties", {{"properties", {{"k", "v"}}}}}}, kTableId)
                  .status()
                  .message(),
              HasSubstr("Properties does not contain io.unitycatalog.tableId."));
  EXPECT_THAT(
      ParseUcCommitMetadata(
          {{"properties", {{"properties", {{"io.unitycatalog.tableId", "other"}}}}}}, kTableId)
          .status()
          .message(),
      HasSubstr("does not match the properties io.unitycatalog.tableId"));
  EXPECT_THAT(ParseUcCommitMetadata({{"properties", {{"properties", {{"k", 1}}}}}}, kTableId)
                  .status()
                  .message(),
              HasSubstr("properties"));
}

TEST(UcCommitMetadataTest, ASchemaOfColumnInfosBecomesTheSchemaString) {
  json column = {{"name", "id"},
                 {"type_text", "bigint"},
                 {"type_json", R"({"name":"id","type":"long","nullable":true,"metadata":{}})"},
                 {"type_name", "LONG"},
                 {"position", 0},
                 {"nullable", true}};
  StatusOr<UcCommitMetadata> metadata =
      ParseUcCommitMetadata({{"schema", {{"columns", json::array({column})}}}}, kTableId);
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  ASSERT_TRUE(metadata->schema_string.has_value());
  EXPECT_EQ(
      *metadata->schema_string,
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})");
  EXPECT_THAT(
      ParseUcCommitMetadata({{"schema", {{"columns", json::array({{{"name", "x"}}})}}}}, kTableId)
          .status()
          .message(),
      HasSubstr("metadata.schema"));
}

}  // namespace
}  // namespace deltacommit::service::unity
