// AppendActionLines on rows built in DuckDB with SQL: how each DuckDB type
// becomes JSON, and that the lines decode with ActionParser.
#include "adapters/parquet/checkpoint_rows.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/action_json.h"

namespace deltacommit::parquet_internal {
namespace {

// An in-memory DuckDB that runs one query and converts its rows.
class Rows {
 public:
  Rows() {
    EXPECT_EQ(duckdb_open(nullptr, &db_), DuckDBSuccess);
    EXPECT_EQ(duckdb_connect(db_, &connection_), DuckDBSuccess);
  }
  ~Rows() {
    duckdb_disconnect(&connection_);
    duckdb_close(&db_);
  }
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;

  StatusOr<std::vector<std::string>> Lines(const std::string& sql) {
    duckdb_result result;
    if (duckdb_query(connection_, sql.c_str(), &result) != DuckDBSuccess) {
      std::string error = duckdb_result_error(&result);
      duckdb_destroy_result(&result);
      return InvalidArgumentError("query failed: " + error);
    }
    std::vector<std::string> lines;
    Status status = AppendActionLines(result, lines);
    duckdb_destroy_result(&result);
    if (!status.ok()) return status;
    return lines;
  }

 private:
  duckdb_database db_ = nullptr;
  duckdb_connection connection_ = nullptr;
};

std::vector<std::string> MustLines(const std::string& sql) {
  Rows rows;
  auto lines = rows.Lines(sql);
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  return lines.ok() ? *lines : std::vector<std::string>{};
}

TEST(CheckpointRowsTest, MapBecomesObjectKeepingNullValues) {
  const auto lines = MustLines(
      "SELECT {'path': 'p=1/a.parquet', "
      "'partitionValues': MAP {'p': '1', 'q': NULL::VARCHAR}, "
      "'size': 10::BIGINT, 'modificationTime': 7::BIGINT, "
      "'dataChange': false, 'tags': MAP {}::MAP(VARCHAR, VARCHAR)} AS add");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            R"({"add":{"path":"p=1/a.parquet","partitionValues":{"p":"1",)"
            R"("q":null},"size":10,"modificationTime":7,"dataChange":false,)"
            R"("tags":{}}})");
  ActionParser parser;
  auto action = parser.ParseLine(lines[0]);
  ASSERT_TRUE(action.ok()) << action.status().ToString();
  const auto& add = std::get<AddFile>(*action);
  EXPECT_EQ(add.partition_values.at("p"), "1");
  EXPECT_FALSE(add.partition_values.at("q").has_value());
}

TEST(CheckpointRowsTest, NullFieldsAreOmittedAndNullActionsSkipped) {
  const auto lines = MustLines(
      "SELECT * FROM (VALUES "
      "({'appId': 'app', 'version': 3::BIGINT, 'lastUpdated': NULL::BIGINT}, "
      " NULL::STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)), "
      "(NULL, {'minReaderVersion': 1, 'minWriterVersion': 2})) "
      "AS t(txn, protocol)");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], R"({"txn":{"appId":"app","version":3}})");
  EXPECT_EQ(lines[1],
            R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})");
}

TEST(CheckpointRowsTest, NestedStructsAndListsKeepTheirShape) {
  const auto lines = MustLines(
      "SELECT {'minReaderVersion': 3, 'minWriterVersion': 7, "
      "'readerFeatures': ['deletionVectors'], "
      "'writerFeatures': ['deletionVectors', NULL]} AS protocol, "
      "{'path': 'a', 'deletionVector': {'storageType': 'u', "
      "'pathOrInlineDv': 'ab^-aqEH.-t@S}K{vb[*k^', 'offset': 1, "
      "'sizeInBytes': 36, 'cardinality': 2::BIGINT, "
      "'maxRowIndex': NULL::BIGINT}} AS remove");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)"
            R"("readerFeatures":["deletionVectors"],)"
            R"("writerFeatures":["deletionVectors",null]}})");
  EXPECT_EQ(lines[1],
            R"({"remove":{"path":"a","deletionVector":{"storageType":"u",)"
            R"("pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,)"
            R"("sizeInBytes":36,"cardinality":2}}})");
}

TEST(CheckpointRowsTest, ParsedCopiesAreDroppedAndStatsKeptAsText) {
  // stats_parsed holds a DATE, which has no JSON form: dropping it unread
  // is what lets this succeed.
  const auto lines = MustLines(
      "SELECT {'path': 'a', 'stats': '{\"numRecords\":1}', "
      "'stats_parsed': {'minValues': {'d': DATE '2020-01-01'}}, "
      "'partitionValues_parsed': {'p': 1}} AS add");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"add":{"path":"a","stats":"{\"numRecords\":1}"}})");
}

TEST(CheckpointRowsTest, ParsedNamesAreOnlyDroppedAtTheActionLevel) {
  const auto lines = MustLines(
      "SELECT {'domain': 'd', 'configuration': "
      "'{}', 'removed': false, 'x': {'stats_parsed': 1}} AS domainMetadata");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"domainMetadata":{"domain":"d","configuration":"{}",)"
                      R"("removed":false,"x":{"stats_parsed":1}}})");
}

TEST(CheckpointRowsTest, TimestampsBecomeEpochMilliseconds) {
  const auto lines = MustLines(
      "SELECT {'timestamp': TIMESTAMP '2020-01-01 00:00:00.123456', "
      "'old': TIMESTAMP '1969-12-31 23:59:59.9995', "
      "'ms': '2020-01-01 00:00:01'::TIMESTAMP_MS} AS commitInfo");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"commitInfo":{"timestamp":1577836800123,"old":-1,)"
                      R"("ms":1577836801000}})");
}

TEST(CheckpointRowsTest, IntegerAndFloatingTypesStayNumbers) {
  const auto lines = MustLines(
      "SELECT {'a': (-5)::TINYINT, 'b': 300::SMALLINT, 'c': 2::UINTEGER, "
      "'d': 9007199254740993::BIGINT, 'e': 18446744073709551615::UBIGINT, "
      "'f': 0.5::DOUBLE, 'g': 'nan'::DOUBLE, 'h': 0.1::FLOAT} AS x");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"x":{"a":-5,"b":300,"c":2,"d":9007199254740993,)"
                      R"("e":18446744073709551615,"f":0.5,"g":null,"h":0.1}})");
}

TEST(CheckpointRowsTest, StringsAreEscaped) {
  const auto lines = MustLines(
      "SELECT {'path': 'a \"b\" \\ ' || chr(10) || chr(1) || 'é'} AS add");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "{\"add\":{\"path\":\"a \\\"b\\\" \\\\ \\n\\u0001é\"}}");
}

TEST(CheckpointRowsTest, UnsupportedTypeFailsOnlyWhenAValueIsMet) {
  Rows rows;
  auto present = rows.Lines("SELECT {'path': 'a', 'blob': 'x'::BLOB} AS add");
  ASSERT_FALSE(present.ok());
  EXPECT_EQ(present.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(present.status().message().find("add.blob"), std::string::npos)
      << present.status().ToString();

  auto absent = rows.Lines("SELECT {'path': 'a', 'blob': NULL::BLOB} AS add");
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_EQ((*absent)[0], R"({"add":{"path":"a"}})");
}

TEST(CheckpointRowsTest, MapWithNonStringKeysIsUnimplemented) {
  Rows rows;
  auto lines = rows.Lines("SELECT {'m': MAP {1: 'x'}} AS add");
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(lines.status().message().find("add.m"), std::string::npos);
}

TEST(CheckpointRowsTest, NonStructColumnsAreIgnored) {
  const auto lines =
      MustLines("SELECT 1 AS n, 'x' AS s, {'appId': 'a', 'version': 1} AS txn");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"txn":{"appId":"a","version":1}})");
}

TEST(CheckpointRowsTest, ReadsEveryChunkOfALargeResult) {
  // Several of DuckDB's 2048-row vectors, and long strings (not inlined).
  const auto lines = MustLines(
      "SELECT {'path': 'file-' || i || '-' || repeat('x', 20), "
      "'partitionValues': MAP {'i': i::VARCHAR}} AS add FROM range(5000) t(i)");
  ASSERT_EQ(lines.size(), 5000u);
  EXPECT_EQ(lines[4999], R"({"add":{"path":"file-4999-xxxxxxxxxxxxxxxxxxxx",)"
                         R"("partitionValues":{"i":"4999"}}})");
}

}  // namespace
}  // namespace deltacommit::parquet_internal
