// AttributeValue: construction, equality and DynamoDB's JSON form, both ways.
#include "deltacommit/dynamodb/attribute_value.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::dynamodb {
namespace {

using ::testing::HasSubstr;

Item Sample() {
  return {{"s", AttributeValue::String("x\"y")},
          {"n", AttributeValue::Number("1.50")},
          {"b", AttributeValue::Bool(false)},
          {"z", AttributeValue::Null()},
          {"l", AttributeValue::List({AttributeValue::Number(1), AttributeValue::String("a")})},
          {"m", AttributeValue::Map({{"k", AttributeValue::Bool(true)}})}};
}

TEST(AttributeValueTest, EncodesEachTypeAsDynamoDbJson) {
  EXPECT_EQ(ToJson(Sample()),
            R"({"b":{"BOOL":false},"l":{"L":[{"N":"1"},{"S":"a"}]},"m":{"M":{"k":{"BOOL":true}}},)"
            R"("n":{"N":"1.50"},"s":{"S":"x\"y"},"z":{"NULL":true}})");
  EXPECT_EQ(ToJson(AttributeValue::Number(int64_t{-7})), R"({"N":"-7"})");
}

TEST(AttributeValueTest, RoundTripsThroughJson) {
  auto decoded = ItemFromJson(ToJson(Sample()));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, Sample());
  // Numbers keep their text: "1.50" is not rewritten as 1.5.
  EXPECT_EQ(decoded->at("n").number_text(), "1.50");
}

TEST(AttributeValueTest, EqualityComparesTypeAndValue) {
  EXPECT_EQ(AttributeValue::String("1"), AttributeValue::String("1"));
  EXPECT_FALSE(AttributeValue::String("1") == AttributeValue::Number("1"));
  EXPECT_FALSE(AttributeValue::Map({{"a", AttributeValue::Null()}}) == AttributeValue::Map({}));
  EXPECT_EQ(AttributeValue(), AttributeValue::Null());
}

TEST(AttributeValueTest, AsInt64OnlyForIntegralNumbersThatFit) {
  EXPECT_EQ(AttributeValue::Number("1700086400").AsInt64(), 1700086400);
  EXPECT_EQ(AttributeValue::Number("-3").AsInt64(), -3);
  EXPECT_EQ(AttributeValue::Number("1.5").AsInt64(), std::nullopt);
  EXPECT_EQ(AttributeValue::Number("99999999999999999999").AsInt64(), std::nullopt);
  EXPECT_EQ(AttributeValue::String("7").AsInt64(), std::nullopt);
}

TEST(AttributeValueTest, GetStringOnlyForStringAttributes) {
  Item item = Sample();
  EXPECT_EQ(GetString(item, "s"), "x\"y");
  EXPECT_EQ(GetString(item, "n"), std::nullopt);
  EXPECT_EQ(GetString(item, "missing"), std::nullopt);
}

TEST(AttributeValueTest, MalformedJsonIsInvalidArgumentNamingThePlace) {
  struct Case {
    std::string json;
    std::string needle;
  } cases[] = {
      {"not json", "not valid JSON"},
      {R"({"a":{"S":"x","N":"1"}})", "item.a"},
      {R"({"a":{"S":1}})", "S must be a string"},
      {R"({"a":{"NULL":false}})", "NULL must be true"},
      {R"({"a":{"BOOL":"true"}})", "BOOL must be true or false"},
      {R"({"a":{"L":{}}})", "L must be an array"},
      {R"({"a":{"L":[{"X":1}]}})", "item.a[0]"},
      {R"({"a":{"M":{"b":{"Q":"1"}}}})", "item.a.b: unknown attribute type"},
      {R"([1])", "an item is a JSON object"},
  };
  for (const Case& c : cases) {
    auto item = ItemFromJson(c.json);
    EXPECT_EQ(item.status().code(), StatusCode::kInvalidArgument) << c.json;
    EXPECT_THAT(item.status().message(), HasSubstr(c.needle)) << c.json;
  }
}

TEST(AttributeValueTest, BinaryAndSetTypesAreUnimplemented) {
  for (const char* json :
       {R"({"B":"AAE="})", R"({"SS":["a"]})", R"({"NS":["1"]})", R"({"BS":["AAE="]})"}) {
    EXPECT_EQ(AttributeValueFromJson(json).status().code(), StatusCode::kUnimplemented) << json;
  }
}

TEST(AttributeValueTest, NestingDeeperThanDynamoDbAllowsIsRefused) {
  std::string deep = R"({"S":"x"})";
  for (int i = 0; i < 40; ++i) deep = R"({"L":[)" + deep + "]}";
  auto v = AttributeValueFromJson(deep);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(v.status().message(), HasSubstr("nested deeper than 32"));
  std::string ok = R"({"S":"x"})";
  for (int i = 0; i < 31; ++i) ok = R"({"L":[)" + ok + "]}";
  EXPECT_TRUE(AttributeValueFromJson(ok).ok());
}

}  // namespace
}  // namespace deltacommit::dynamodb
