// Variant values built byte by byte from Parquet's VariantEncoding.md, as
// JSON text; every malformation named; and the SQL function on DuckDB.
#include "deltacommit/parquet/variant_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/parquet/data_sql.h"

namespace deltacommit::data_internal {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out += static_cast<char>(b);
  return out;
}

// Metadata: version 1, 1-byte offsets, the dictionary `keys`.
std::string Metadata(const std::vector<std::string>& keys) {
  std::string out = Bytes({0x01, static_cast<int>(keys.size()), 0});
  std::string strings;
  for (const std::string& k : keys) {
    strings += k;
    out += static_cast<char>(strings.size());
  }
  return out + strings;
}

const std::string kNoKeys = Metadata({});

// A primitive value: header (type << 2), then its bytes.
std::string Primitive(int type, std::initializer_list<int> data = {}) {
  return Bytes({type << 2}) + Bytes(data);
}

std::string Json(const std::string& value, const std::string& metadata = kNoKeys) {
  auto json = VariantToJson(value, metadata);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  return json.ok() ? *json : "<error>";
}

std::string Error(const std::string& value, const std::string& metadata = kNoKeys) {
  auto json = VariantToJson(value, metadata);
  EXPECT_FALSE(json.ok()) << *json;
  return json.ok() ? "" : json.status().message();
}

TEST(VariantJsonTest, Primitives) {
  EXPECT_EQ(Json(Primitive(0)), "null");
  EXPECT_EQ(Json(Primitive(1)), "true");
  EXPECT_EQ(Json(Primitive(2)), "false");
  EXPECT_EQ(Json(Primitive(3, {0xff})), "-1");                   // int8
  EXPECT_EQ(Json(Primitive(4, {0x00, 0x80})), "-32768");         // int16
  EXPECT_EQ(Json(Primitive(5, {0x01, 0x00, 0x00, 0x00})), "1");  // int32
  EXPECT_EQ(Json(Primitive(6, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})),
            "9223372036854775807");                                      // int64
  EXPECT_EQ(Json(Primitive(7, {0, 0, 0, 0, 0, 0, 0xf8, 0x3f})), "1.5");  // double
  EXPECT_EQ(Json(Primitive(7, {0, 0, 0, 0, 0, 0, 0xf8, 0x7f})), "\"NaN\"");
  EXPECT_EQ(Json(Primitive(14, {0, 0, 0x20, 0x40})), "2.5");             // float
  EXPECT_EQ(Json(Primitive(11, {0x46, 0x4d, 0, 0})), "\"2024-02-29\"");  // 19782 days
  EXPECT_EQ(Json(Primitive(11, {0xff, 0xff, 0xff, 0xff})), "\"1969-12-31\"");
  // 2024-01-01 10:00:00.000001 UTC in microseconds: 1704103200000001.
  EXPECT_EQ(Json(Primitive(12, {0x01, 0x88, 0xe5, 0x71, 0xdf, 0x0d, 0x06, 0x00})),
            "\"2024-01-01 10:00:00.000001+00:00\"");
  EXPECT_EQ(Json(Primitive(13, {0x01, 0x88, 0xe5, 0x71, 0xdf, 0x0d, 0x06, 0x00})),
            "\"2024-01-01 10:00:00.000001\"");
  EXPECT_EQ(Json(Primitive(17, {0x40, 0x42, 0x0f, 0, 0, 0, 0, 0})), "\"00:00:01.000000\"");
  EXPECT_EQ(Json(Primitive(16, {3, 0, 0, 0, 'a', '"', 'c'})), "\"a\\\"c\"");  // long string
  EXPECT_EQ(Json(Bytes({(2 << 2) | 1, 'h', 'i'})), "\"hi\"");                 // short string
  EXPECT_EQ(Json(Primitive(15, {3, 0, 0, 0, 'a', 'b', 'c'})), "\"YWJj\"");    // base64
  EXPECT_EQ(Json(Primitive(20, {0xd2, 0xc6, 0x39, 0xaa, 0x88, 0x16, 0x43, 0x1a, 0xaa, 0xf6, 0xd3,
                                0xfe, 0x25, 0x12, 0xff, 0x61})),
            "\"d2c639aa-8816-431a-aaf6-d3fe2512ff61\"");
}

TEST(VariantJsonTest, DecimalsKeepEveryDigit) {
  EXPECT_EQ(Json(Primitive(8, {2, 0x39, 0x30, 0, 0})), "123.45");        // 12345, scale 2
  EXPECT_EQ(Json(Primitive(8, {3, 0xff, 0xff, 0xff, 0xff})), "-0.001");  // -1, scale 3
  EXPECT_EQ(Json(Primitive(9, {0, 0x15, 0xcd, 0x5b, 0x07, 0, 0, 0, 0})), "123456789");
  // decimal16: 2^64 (a value beyond 64 bits), scale 0; then -(2^127), scale 38.
  EXPECT_EQ(Json(Primitive(10, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})),
            "18446744073709551616");
  EXPECT_EQ(Json(Primitive(10, {38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80})),
            "-1.70141183460469231731687303715884105728");
}

TEST(VariantJsonTest, ObjectsAndArrays) {
  // {"a": 1, "b": [true, "x"]}: field ids 0, 1 (sorted), 1-byte offsets.
  const std::string array =
      Bytes({(0 << 2) | 3, 2, 0, 1, 3}) + Primitive(1) + Bytes({(1 << 2) | 1, 'x'});
  const std::string object =
      Bytes({(0 << 2) | 2, 2, 0, 1, 0, 2, static_cast<int>(2 + array.size())}) + Primitive(3, {1}) +
      array;
  EXPECT_EQ(Json(object, Metadata({"a", "b"})), "{\"a\":1,\"b\":[true,\"x\"]}");
  // Values may sit in another order than their fields.
  const std::string swapped =
      Bytes({(0 << 2) | 2, 2, 0, 1, 2, 0, 4}) + Primitive(3, {2}) + Primitive(3, {1});
  EXPECT_EQ(Json(swapped, Metadata({"a", "b"})), "{\"a\":1,\"b\":2}");
  // is_large counts in 4 bytes; 2-byte ids and offsets.
  const std::string large =
      Bytes({(0x15 << 2) | 2, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0}) + Primitive(3, {7});
  EXPECT_EQ(Json(large, Metadata({"a", "b"})), "{\"b\":7}");
  EXPECT_EQ(Json(Bytes({3, 0, 0})), "[]");
  EXPECT_EQ(Json(Bytes({2, 0, 0})), "{}");
  // The golden table's {"key": 0}, as Spark wrote it.
  EXPECT_EQ(
      Json(Bytes({0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x00}), Bytes({1, 1, 0, 3, 'k', 'e', 'y'})),
      "{\"key\":0}");
}

TEST(VariantJsonTest, MalformedValuesAreNamed) {
  EXPECT_NE(Error(Primitive(3)).find("runs past the end"), std::string::npos);
  EXPECT_NE(Error(Primitive(21)).find("unknown primitive type 21"), std::string::npos);
  EXPECT_NE(Error("").find("no header byte"), std::string::npos);
  EXPECT_NE(Error(Bytes({(5 << 2) | 1, 'a'})).find("short string"), std::string::npos);
  EXPECT_NE(Error(Primitive(16, {9, 0, 0, 0, 'a'})).find("runs past the end"), std::string::npos);
  EXPECT_NE(Error(Bytes({(1 << 2) | 1, 0xff})).find("not UTF-8"), std::string::npos);
  EXPECT_NE(Error(Bytes({2, 1, 5, 0, 2}) + Primitive(3, {1}), Metadata({"a"})).find("field id 5"),
            std::string::npos);
  EXPECT_NE(Error(Bytes({3, 200, 0})).find("200 elements"), std::string::npos);
  EXPECT_NE(Error(Bytes({3, 1, 0, 9}) + Primitive(1)).find("outside the values"),
            std::string::npos);
  EXPECT_NE(Error(Primitive(8, {39, 0, 0, 0, 0})).find("decimal scale 39"), std::string::npos);
  EXPECT_NE(Error(Primitive(1), Bytes({2, 0, 0})).find("metadata version 2"), std::string::npos);
  EXPECT_NE(Error(Primitive(1), "").find("empty metadata"), std::string::npos);
  EXPECT_NE(Error(Primitive(1), Bytes({1, 9, 0})).find("dictionary of 9"), std::string::npos);
  EXPECT_NE(Error(Primitive(1), Bytes({1, 1, 0})).find("dictionary offsets run past the end"),
            std::string::npos);
  // Arrays in arrays, deeper than the limit: refused, not a stack overflow.
  std::string deep = Primitive(0);
  for (int i = 0; i < 300; ++i) {
    // One element, 2-byte offsets 0 and the size of what it holds.
    const auto size = static_cast<int>(deep.size());
    deep = Bytes({(1 << 2) | 3, 1, 0, 0, size & 0xff, size >> 8}) + deep;
  }
  EXPECT_NE(Error(deep).find("nested deeper than 256"), std::string::npos);
  // Arrays of 200 elements that all point at the one array below (2-byte
  // offsets, all 0): 5 levels would decode to 200^5 nulls; refused once
  // past 64 MiB.
  std::string shared = Primitive(0);
  for (int level = 0; level < 5; ++level) {
    const auto size = static_cast<int>(shared.size());
    std::string array = Bytes({(1 << 2) | 3, 200});
    for (int i = 0; i < 200; ++i) array += Bytes({0, 0});
    array += Bytes({size & 0xff, size >> 8});
    shared = array + shared;
  }
  EXPECT_NE(Error(shared).find("more than 64 MiB of JSON"), std::string::npos);
}

TEST(VariantJsonTest, TheSqlFunctionDecodesAndFailsNamingTheFault) {
  auto db = Database::Open();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto connection = Connection::Open(**db);
  ASSERT_TRUE(connection.ok());
  auto rows = (*connection)
                  ->Query(
                      "SELECT __dc_variant_json('\\x02\\x01\\x00\\x00\\x02\\x0C\\x07'::BLOB, "
                      "'\\x01\\x01\\x00\\x03key'::BLOB) AS j, __dc_variant_json(NULL, NULL) AS n",
                      "test");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(rows->rows[0][0], "{\"key\":7}");
  EXPECT_EQ(rows->rows[0][1], std::nullopt);
  auto bad =
      (*connection)
          ->Query("SELECT __dc_variant_json('\\x54'::BLOB, '\\x01\\x00\\x00'::BLOB)", "test");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("malformed variant: unknown primitive type 21"),
            std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace deltacommit::data_internal
