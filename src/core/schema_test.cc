#include "deltacommit/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/testing/golden_dir.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// PROTOCOL.md "Schema Serialization Format" example, with column metadata
// added at several depths.
constexpr const char* kNestedSchema = R"json({
  "type": "struct",
  "fields": [
    {"name": "a", "type": "integer", "nullable": false,
     "metadata": {"delta.generationExpression": "b.d + 1"}},
    {"name": "b", "type": {"type": "struct", "fields": [
       {"name": "d", "type": "integer", "nullable": false,
        "metadata": {"delta.invariants": "{\"expression\":{\"expression\":\"d > 0\"}}"}}]},
     "nullable": true, "metadata": {}},
    {"name": "c", "type": {"type": "array", "elementType": "timestamp_ntz", "containsNull": false},
     "nullable": true, "metadata": {}},
    {"name": "e", "type": {"type": "array", "elementType": {"type": "struct", "fields": [
       {"name": "d", "type": "long", "nullable": false,
        "metadata": {"delta.identity.start": 1, "delta.identity.step": 1}}]},
       "containsNull": true},
     "nullable": true, "metadata": {}},
    {"name": "f", "type": {"type": "map", "keyType": "string", "valueType": {"type": "struct",
       "fields": [{"name": "x", "type": "decimal(10, 4)", "nullable": true,
                   "metadata": {"delta.columnMapping.id": 7}}]},
       "valueContainsNull": true},
     "nullable": true, "metadata": {}}
  ]
})json";

StatusOr<std::string> FieldType(std::string_view arg, size_t index) {
  DC_ASSIGN_OR_RETURN(std::string json, SchemaStringFromArgument(arg));
  DC_ASSIGN_OR_RETURN(Schema schema, ParseSchema(json));
  if (index >= schema.fields.size())
    return InvalidArgumentError("no such field");
  return schema.fields[index].type;
}

TEST(SchemaStringFromArgumentTest, CompactListGivesSparkJson) {
  StatusOr<std::string> json = SchemaStringFromArgument("id:long,name:string");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(
      *json,
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"name","type":"string","nullable":true,"metadata":{}}]})");
}

TEST(SchemaStringFromArgumentTest, EveryPrimitiveTypeAndAliasIsCanonicalised) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"string", "string"},
      {"long", "long"},
      {"bigint", "long"},
      {"integer", "integer"},
      {"int", "integer"},
      {"INT", "integer"},
      {"short", "short"},
      {"smallint", "short"},
      {"byte", "byte"},
      {"tinyint", "byte"},
      {"float", "float"},
      {"double", "double"},
      {"boolean", "boolean"},
      {"binary", "binary"},
      {"date", "date"},
      {"timestamp", "timestamp"},
      {"Timestamp_NTZ", "timestamp_ntz"},
      {"decimal(10,2)", "decimal(10,2)"},
      {"DECIMAL( 38 , 38 )", "decimal(38,38)"},
      {"decimal", "decimal(10,0)"},
      {"decimal(5)", "decimal(5,0)"},
      {"decimal(1,0)", "decimal(1,0)"}};
  for (const auto& [in, want] : cases) {
    StatusOr<std::string> type = FieldType("x:" + in, 0);
    ASSERT_TRUE(type.ok()) << in << ": " << type.status().ToString();
    EXPECT_EQ(*type, want) << in;
  }
}

TEST(SchemaStringFromArgumentTest, NotNullSuffixMakesFieldNonNullable) {
  StatusOr<std::string> json = SchemaStringFromArgument(
      " id:long not null , price:decimal(10,2)  NOT   NULL,name:string ");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  StatusOr<Schema> schema = ParseSchema(*json);
  ASSERT_TRUE(schema.ok());
  ASSERT_EQ(schema->fields.size(), 3u);
  EXPECT_EQ(schema->fields[0].name, "id");
  EXPECT_FALSE(schema->fields[0].nullable);
  EXPECT_EQ(schema->fields[1].type, "decimal(10,2)");
  EXPECT_FALSE(schema->fields[1].nullable);
  EXPECT_TRUE(schema->fields[2].nullable);
}

TEST(SchemaStringFromArgumentTest, UnknownTypeNamesFieldAndType) {
  StatusOr<std::string> json = SchemaStringFromArgument("id:long,price:money");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(json.status().message(),
            R"(--schema: field "price": unknown type "money")");
}

TEST(SchemaStringFromArgumentTest, DecimalOutOfRangeIsRejected) {
  for (const char* bad :
       {"decimal(0,0)", "decimal(39,0)", "decimal(5,6)", "decimal(10,-1)",
        "decimal(a,b)", "decimal()", "decimal10"}) {
    StatusOr<std::string> json =
        SchemaStringFromArgument(std::string("p:") + bad);
    ASSERT_FALSE(json.ok()) << bad;
    EXPECT_THAT(json.status().message(), HasSubstr("field \"p\"")) << bad;
  }
}

TEST(SchemaStringFromArgumentTest, DuplicateNamesIgnoringCaseAreRejected) {
  StatusOr<std::string> json =
      SchemaStringFromArgument("id:long,name:string,ID:int");
  ASSERT_FALSE(json.ok());
  EXPECT_THAT(json.status().message(),
              HasSubstr("--schema: field \"ID\": duplicate"));
}

TEST(SchemaStringFromArgumentTest, MalformedListsAreRejectedWithContext) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty schema"},
      {"   ", "empty schema"},
      {"id", "\"id\" is not name:type"},
      {":long", "empty name"},
      {"a:long,", "field 2 is empty"},
      {"a:long,,b:int", "field 2 is empty"},
      {"a b:long", "name contains"},
      {"a=b:long", "name contains"},
      {"arr:array<int>", "nested types need the JSON schema form"},
      {"x:long!", "not null"},
      {"v:variant", "unknown type \"variant\""},
      {"x:decimal(10,2))", "unbalanced parentheses"},
      {"x:decimal(10,2", "unbalanced parentheses"},
  };
  for (const auto& [arg, want] : cases) {
    StatusOr<std::string> json = SchemaStringFromArgument(arg);
    ASSERT_FALSE(json.ok()) << arg;
    EXPECT_THAT(json.status().message(), HasSubstr("--schema: ")) << arg;
    EXPECT_THAT(json.status().message(), HasSubstr(want)) << arg;
  }
}

TEST(SchemaStringFromArgumentTest, JsonFormIsValidatedAndCompacted) {
  StatusOr<std::string> json = SchemaStringFromArgument(
      "\n{ \"type\" : \"struct\", \"fields\" : [ {\n \"name\" : \"z\", "
      "\"type\" : \"long\","
      " \"nullable\" : false, \"metadata\" : { } }, "
      "{\"name\":\"a\",\"type\":\"string\","
      "\"nullable\":true,\"metadata\":{\"comment\":\"x\"}} ] }\n");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(
      *json,
      R"({"type":"struct","fields":[{"name":"z","type":"long","nullable":false,)"
      R"("metadata":{}},{"name":"a","type":"string","nullable":true,)"
      R"("metadata":{"comment":"x"}}]})");
}

TEST(SchemaStringFromArgumentTest, NestedJsonSchemaRoundTrips) {
  StatusOr<std::string> json = SchemaStringFromArgument(kNestedSchema);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(nlohmann::json::parse(*json), nlohmann::json::parse(kNestedSchema));
  EXPECT_EQ(json->find('\n'), std::string::npos);
}

TEST(SchemaStringFromArgumentTest, BadJsonFormIsRejectedWithContext) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"type\":\"struct\"", "not valid JSON"},
      {R"({"type":"array","elementType":"long"})", "expected"},
      {R"({"type":"struct","fields":[{"name":"a","type":"money"}]})",
       "field \"a\": unknown type \"money\""},
      {R"({"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"int"}}]})",
       "field \"a.element\": unknown type \"int\""},
      {R"({"type":"struct","fields":[{"name":"s","type":{"type":"struct","fields":[)"
       R"({"name":"x","type":"long"},{"name":"X","type":"long"}]}}]})",
       "field \"s.X\": duplicate"},
  };
  for (const auto& [arg, want] : cases) {
    StatusOr<std::string> json = SchemaStringFromArgument(arg);
    ASSERT_FALSE(json.ok()) << arg;
    EXPECT_THAT(json.status().message(), HasSubstr("--schema: ")) << arg;
    EXPECT_THAT(json.status().message(), HasSubstr(want)) << arg;
  }
}

TEST(ParseSchemaTest, TopLevelFieldsKeepTypesNullabilityAndMetadata) {
  StatusOr<Schema> schema = ParseSchema(kNestedSchema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_EQ(schema->fields.size(), 5u);
  EXPECT_EQ(schema->fields[0].name, "a");
  EXPECT_EQ(schema->fields[0].type, "integer");
  EXPECT_FALSE(schema->fields[0].nullable);
  EXPECT_EQ(schema->fields[0].metadata,
            R"({"delta.generationExpression":"b.d + 1"})");
  EXPECT_TRUE(schema->fields[0].IsPrimitive());
  EXPECT_FALSE(schema->fields[1].IsPrimitive());
  EXPECT_EQ(
      schema->fields[2].type,
      R"({"type":"array","elementType":"timestamp_ntz","containsNull":false})");
  EXPECT_EQ(schema->fields[4].metadata, "{}");
}

TEST(ParseSchemaTest, MetadataKeysAreFoundAtEveryDepth) {
  StatusOr<Schema> schema = ParseSchema(kNestedSchema);
  ASSERT_TRUE(schema.ok());
  EXPECT_THAT(FieldsWithMetadataKey(*schema, "delta.invariants"),
              ElementsAre("b.d"));
  EXPECT_THAT(FieldsWithMetadataKey(*schema, "delta.generationExpression"),
              ElementsAre("a"));
  EXPECT_THAT(FieldsWithMetadataKey(*schema, "delta.identity."),
              ElementsAre("e.element.d"));
  EXPECT_THAT(FieldsWithMetadataKey(*schema, "delta.columnMapping.id"),
              ElementsAre("f.value.x"));
  EXPECT_THAT(FieldsWithMetadataKey(*schema, "delta."),
              ElementsAre("a", "b.d", "e.element.d", "f.value.x"));
  EXPECT_TRUE(FieldsWithMetadataKey(*schema, "CURRENT_DEFAULT").empty());
}

TEST(ParseSchemaTest, TypesAreFoundAtEveryDepth) {
  StatusOr<Schema> schema = ParseSchema(kNestedSchema);
  ASSERT_TRUE(schema.ok());
  EXPECT_TRUE(SchemaUsesType(*schema, "timestamp_ntz"));
  EXPECT_TRUE(SchemaUsesType(*schema, "decimal"));
  EXPECT_TRUE(SchemaUsesType(*schema, "decimal(10,4)"));
  EXPECT_TRUE(SchemaUsesType(*schema, "long"));
  EXPECT_FALSE(SchemaUsesType(*schema, "variant"));
  EXPECT_FALSE(SchemaUsesType(*schema, "timestamp"));
}

TEST(ParseSchemaTest, VariantAsNameOrObjectIsAccepted) {
  StatusOr<Schema> schema = ParseSchema(
      R"({"type":"struct","fields":[{"name":"v","type":"variant","nullable":true,"metadata":{}},)"
      R"({"name":"va","type":{"type":"array","elementType":{"type":"variant"},)"
      R"("containsNull":false},"nullable":false,"metadata":{}}]})");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_TRUE(SchemaUsesType(*schema, "variant"));
  EXPECT_EQ(schema->fields[0].type, "variant");
}

TEST(ParseSchemaTest, MissingNullableAndMetadataTakeDefaults) {
  StatusOr<Schema> schema =
      ParseSchema(R"({"type":"struct","fields":[{"name":"a","type":"void"}]})");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_EQ(schema->fields[0], (StructField{"a", "void", true, "{}"}));
}

TEST(ParseSchemaTest, EmptyStructIsValid) {
  StatusOr<Schema> schema = ParseSchema(R"({"type":"struct","fields":[]})");
  ASSERT_TRUE(schema.ok());
  EXPECT_TRUE(schema->fields.empty());
}

TEST(ParseSchemaTest, MalformedFieldsAreRejectedNamingThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "schema: not valid JSON"},
      {"[]", "schema: expected"},
      {R"({"type":"struct"})", "\"fields\" array"},
      {R"({"type":"struct","fields":[{"type":"long"}]})", "no string \"name\""},
      {R"({"type":"struct","fields":[{"name":"a"}]})",
       "field \"a\": missing \"type\""},
      {R"({"type":"struct","fields":[{"name":"a","type":"long","nullable":"yes"}]})",
       "field \"a\": \"nullable\" must be a boolean"},
      {R"({"type":"struct","fields":[{"name":"a","type":"long","metadata":[]}]})",
       "field \"a\": \"metadata\" must be an object"},
      {R"({"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string"}}]})",
       "field \"m.value\": missing \"valueType\""},
      {R"({"type":"struct","fields":[{"name":"m","type":{"type":"udt"}}]})",
       "field \"m\": unknown type \"udt\""},
      {R"({"type":"struct","fields":[{"name":"a","type":"LONG"}]})",
       "unknown type \"LONG\""},
  };
  for (const auto& [text, want] : cases) {
    StatusOr<Schema> schema = ParseSchema(text);
    ASSERT_FALSE(schema.ok()) << text;
    EXPECT_EQ(schema.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(schema.status().message(), HasSubstr(want)) << text;
  }
}

Schema PartitionTestSchema() {
  StatusOr<std::string> json = SchemaStringFromArgument(
      "id:long,Region:string,day:date,amount:decimal(10,2)");
  StatusOr<Schema> schema = ParseSchema(*json);
  Schema s = *schema;
  s.fields.push_back(StructField{
      "tags", R"({"type":"array","elementType":"string"})", true, "{}"});
  s.fields.push_back(StructField{"v", "variant", true, "{}"});
  return s;
}

TEST(ValidatePartitionColumnsTest, PrimitiveTopLevelColumnsAreAccepted) {
  EXPECT_TRUE(ValidatePartitionColumns(PartitionTestSchema(), {}).ok());
  EXPECT_TRUE(
      ValidatePartitionColumns(PartitionTestSchema(), {"Region", "day"}).ok());
}

TEST(ValidatePartitionColumnsTest, BadColumnsAreRejectedNamingThem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"nope"}, "\"nope\" is not a top-level column"},
      {{"region"}, "did you mean \"Region\"?"},
      {{"tags"}, "\"tags\" has type struct/array/map"},
      {{"v"}, "\"v\" has type variant"},
      {{"day", "day"}, "\"day\" is listed twice"},
  };
  for (const auto& [columns, want] : cases) {
    Status s = ValidatePartitionColumns(PartitionTestSchema(), columns);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr(want));
  }
}

TEST(ValidatePartitionColumnsTest, AllColumnsAsPartitionsIsRejected) {
  StatusOr<Schema> schema =
      ParseSchema(*SchemaStringFromArgument("a:int,b:string"));
  ASSERT_TRUE(schema.ok());
  Status s = ValidatePartitionColumns(*schema, {"a", "b"});
  EXPECT_THAT(s.message(), HasSubstr("at least one data column"));
}

// Every schema Spark wrote into the golden tables parses, and its partition
// columns validate.
TEST(ParseSchemaGoldenTest, EveryGoldenTableSchemaParses) {
  const std::filesystem::path root = GoldenTablesDir().value_or("/nonexistent-golden-tables");
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is absent";
  int checked = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root)) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() != ".json" ||
        path.parent_path().filename() != "_delta_log")
      continue;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      nlohmann::json action =
          nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!action.is_object() || !action.contains("metaData")) continue;
      const nlohmann::json& m = action["metaData"];
      if (!m.contains("schemaString")) continue;
      StatusOr<Schema> schema =
          ParseSchema(m["schemaString"].get<std::string>());
      ASSERT_TRUE(schema.ok()) << path << ": " << schema.status().ToString();
      auto partitions = m.value("partitionColumns", std::vector<std::string>{});
      EXPECT_TRUE(ValidatePartitionColumns(*schema, partitions).ok()) << path;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace deltacommit
