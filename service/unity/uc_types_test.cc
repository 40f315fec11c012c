// Schemas between the Delta log's schemaString and the two Unity Catalog
// API shapes. Expected values are written out by hand from the shapes the
// UC spec (api/all.yaml ColumnInfo, api/delta.yaml DeltaStructType) gives.
#include "service/unity/uc_types.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace deltacommit::service::unity {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

// Spark's schemaString of a table with a nested column of each kind.
constexpr char kSchema[] =
    R"j({"type":"struct","fields":[)j"
    R"j({"name":"id","type":"long","nullable":false,"metadata":{"comment":"key"}},)j"
    R"j({"name":"price","type":"decimal(10,2)","nullable":true,"metadata":{}},)j"
    R"j({"name":"tags","type":{"type":"array","elementType":"string","containsNull":true},)j"
    R"j("nullable":true,"metadata":{}},)j"
    R"j({"name":"attrs","type":{"type":"map","keyType":"string","valueType":)j"
    R"j({"type":"struct","fields":[{"name":"n","type":"integer","nullable":true,"metadata":{}}]},)j"
    R"j("valueContainsNull":false},"nullable":true,"metadata":{}},)j"
    R"j({"name":"day","type":"date","nullable":true,"metadata":{}}]})j";

TEST(UcTypesTest, DeltaApiColumnsAreTheSchemaInKebabCase) {
  Json columns = DeltaColumnsFromSchemaString(kSchema).value();
  EXPECT_EQ(columns["fields"][2]["type"],
            Json::parse(R"({"type":"array","element-type":"string","contains-null":true})"));
  EXPECT_EQ(columns["fields"][3]["type"]["key-type"], "string");
  EXPECT_EQ(columns["fields"][3]["type"]["value-contains-null"], false);
  EXPECT_EQ(columns["fields"][3]["type"]["value-type"]["fields"][0]["type"], "integer");
  // And back, byte for byte.
  EXPECT_EQ(SchemaStringFromDeltaColumns(columns).value(), kSchema);
}

TEST(UcTypesTest, DeltaApiColumnsInTheLogsSpellingAreRefused) {
  Json columns = Json::parse(
      R"({"type":"struct","fields":[{"name":"t","type":{"type":"array","elementType":"int",)"
      R"("containsNull":false},"nullable":true,"metadata":{}}]})");
  Status s = SchemaStringFromDeltaColumns(columns).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("at t: \"elementType\" is spelt \"element-type\" here"));
  EXPECT_THAT(SchemaStringFromDeltaColumns(Json::parse(R"({"type":"array"})")).status().message(),
              HasSubstr("is not a struct type"));
  Json unknown = Json::parse(
      R"({"type":"struct","fields":[{"name":"x","type":"money","nullable":true,"metadata":{}}]})");
  EXPECT_THAT(SchemaStringFromDeltaColumns(unknown).status().message(), HasSubstr("money"));
}

TEST(UcTypesTest, ColumnInfosCarryTheSparkCatalogStrings) {
  Json columns = ColumnInfosFromSchemaString(kSchema, {"day"}).value();
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[0]["name"], "id");
  EXPECT_EQ(columns[0]["type_text"], "bigint");
  EXPECT_EQ(columns[0]["type_name"], "LONG");
  EXPECT_EQ(columns[0]["nullable"], false);
  EXPECT_EQ(columns[0]["comment"], "key");
  EXPECT_EQ(columns[0]["position"], 0);
  EXPECT_EQ(Json::parse(columns[0]["type_json"].get<std::string>()),
            Json::parse(R"({"name":"id","type":"long","nullable":false,)"
                        R"("metadata":{"comment":"key"}})"));
  EXPECT_EQ(columns[1]["type_name"], "DECIMAL");
  EXPECT_EQ(columns[1]["type_precision"], 10);
  EXPECT_EQ(columns[1]["type_scale"], 2);
  EXPECT_EQ(columns[2]["type_text"], "array<string>");
  EXPECT_EQ(columns[2]["type_name"], "ARRAY");
  EXPECT_EQ(columns[3]["type_text"], "map<string,struct<n:int>>");
  EXPECT_FALSE(columns[3].contains("partition_index"));
  EXPECT_EQ(columns[4]["partition_index"], 0);
  EXPECT_EQ(columns[4]["type_name"], "DATE");
}

TEST(UcTypesTest, ColumnInfosGiveBackTheSchemaInPositionOrder) {
  Json columns = ColumnInfosFromSchemaString(kSchema, {}).value();
  std::reverse(columns.begin(), columns.end());
  EXPECT_EQ(SchemaStringFromColumnInfos(columns).value(), kSchema);
}

TEST(UcTypesTest, ColumnInfosThatDisagreeAreRefusedNamingTheColumn) {
  Json columns = ColumnInfosFromSchemaString(kSchema, {}).value();
  Json renamed = columns;
  renamed[1]["name"] = "cost";
  EXPECT_THAT(SchemaStringFromColumnInfos(renamed).status().message(),
              HasSubstr("at cost: \"type_json\" is not a struct field named \"cost\""));
  Json nullability = columns;
  nullability[0]["nullable"] = true;
  EXPECT_THAT(SchemaStringFromColumnInfos(nullability).status().message(),
              HasSubstr("at id: \"type_json\" and \"nullable\" disagree"));
  // A client's own JSON of another shape is a 400, not an exception.
  Json odd = columns;
  odd[0]["type_json"] = R"({"name":"id","type":"long","nullable":"yes","metadata":{}})";
  EXPECT_THAT(SchemaStringFromColumnInfos(odd).status().message(),
              HasSubstr("at id: \"type_json\" has a \"nullable\" that is not true or false"));
  Json twice = columns;
  twice[1]["position"] = 0;
  EXPECT_THAT(SchemaStringFromColumnInfos(twice).status().message(),
              HasSubstr("two columns have position 0"));
  Json missing = columns;
  missing[2].erase("type_json");
  EXPECT_THAT(SchemaStringFromColumnInfos(missing).status().message(),
              HasSubstr("at tags: needs \"type_json\""));
}

}  // namespace
}  // namespace deltacommit::service::unity
