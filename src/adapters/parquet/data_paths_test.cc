#include "adapters/parquet/data_paths.h"

#include <gtest/gtest.h>

#include "adapters/parquet/data_types.h"
#include "deltacommit/core/percent_encoding.h"

namespace deltacommit::data_internal {
namespace {

TEST(DataPaths, EscapesWhatHiveEscapesAndKeepsSpaces) {
  EXPECT_EQ(EscapePartitionPathPart("a b"), "a b");
  EXPECT_EQ(EscapePartitionPathPart("US/East"), "US%2FEast");
  EXPECT_EQ(EscapePartitionPathPart("k=v"), "k%3Dv");
  EXPECT_EQ(EscapePartitionPathPart("50%"), "50%25");
  EXPECT_EQ(EscapePartitionPathPart("a:b#c?d"), "a%3Ab%23c%3Fd");
  EXPECT_EQ(EscapePartitionPathPart("\x01"), "%01");
  EXPECT_EQ(EscapePartitionPathPart("naïve"), "naïve");
}

TEST(DataPaths, PartitionDirectoryInColumnOrderWithHiveDefaultForNull) {
  NullableStringMap values{{"b", std::nullopt}, {"a", "x/y"}};
  EXPECT_EQ(PartitionDirectory({"a", "b"}, values), "a=x%2Fy/b=__HIVE_DEFAULT_PARTITION__/");
  EXPECT_EQ(PartitionDirectory({}, values), "");
}

TEST(DataPaths, UriEncodingRoundTripsThroughPercentDecode) {
  const std::string key = "p=US%2FEast a/part-1.parquet";
  const std::string encoded = UriEncodePath(key);
  EXPECT_EQ(encoded, "p=US%252FEast%20a/part-1.parquet");
  EXPECT_EQ(PercentDecode(encoded).value(), key);
  EXPECT_EQ(UriEncodePath("a#b?c"), "a%23b%3Fc");
}

TEST(DataTypes, DeltaToDuckDb) {
  EXPECT_EQ(DuckDbType("long", "c").value(), "BIGINT");
  EXPECT_EQ(DuckDbType("timestamp", "c").value(), "TIMESTAMPTZ");
  EXPECT_EQ(DuckDbType("decimal(10,2)", "c").value(), "DECIMAL(10,2)");
  EXPECT_EQ(DuckDbType(R"({"type":"array","elementType":"integer","containsNull":true})", "c").value(),
            "INTEGER[]");
  EXPECT_EQ(DuckDbType(R"({"type":"struct","fields":[{"name":"x","type":"string","nullable":true,"metadata":{}}]})",
                       "c")
                .value(),
            "STRUCT(\"x\" VARCHAR)");
  // A variant reads as JSON text; files hold its two binaries.
  EXPECT_EQ(DuckDbType("variant", "v").value(), "JSON");
  EXPECT_EQ(DuckDbType("variant", "v", false, /*stored=*/true).value(),
            "STRUCT(\"value\" BLOB, metadata BLOB)");
  EXPECT_EQ(DuckDbType(R"({"type":"array","elementType":"variant","containsNull":true})", "c",
                       false, /*stored=*/true)
                .value(),
            "STRUCT(\"value\" BLOB, metadata BLOB)[]");
  EXPECT_TRUE(HoldsVariant(R"({"type":"array","elementType":"variant","containsNull":true})"));
  EXPECT_FALSE(HoldsVariant("string"));
  auto unknown = DuckDbType("void", "v");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("\"v\""), std::string::npos);
}

TEST(DataTypes, DuckDbToDeltaNamesUnsupportedColumns) {
  EXPECT_EQ(DeltaTypeFromDuckDb("BIGINT", "c").value(), "long");
  EXPECT_EQ(DeltaTypeFromDuckDb("DECIMAL(18,3)", "c").value(), "decimal(18,3)");
  EXPECT_EQ(DeltaTypeFromDuckDb("TIMESTAMP", "c").value(), "timestamp_ntz");
  auto huge = DeltaTypeFromDuckDb("HUGEINT", "big");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("\"big\""), std::string::npos);
  EXPECT_NE(huge.status().message().find("HUGEINT"), std::string::npos);
  EXPECT_FALSE(DeltaTypeFromDuckDb("BIGINT[]", "l").ok());
}

TEST(DataTypes, BinaryAndNestedPartitionColumnsRefused) {
  EXPECT_FALSE(PartitionValueSql("x", "binary", "b").ok());
  EXPECT_TRUE(PartitionValueSql("x", "date", "d").ok());
}

}  // namespace
}  // namespace deltacommit::data_internal
