// AppendActions on rows built in DuckDB with SQL: whatever the rows, the
// actions equal what ActionParser makes of AppendActionLines' lines for
// the same query, and a row the parser refuses fails with the parser's
// error. Typed reading of adds and removes is an optimisation only.
#include "adapters/parquet/checkpoint_actions.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "adapters/parquet/checkpoint_rows.h"
#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/action_json.h"

namespace deltacommit::parquet_internal {
namespace {

// An in-memory DuckDB whose queries' rows are read both ways.
class Db {
 public:
  Db() {
    EXPECT_EQ(duckdb_open(nullptr, &db_), DuckDBSuccess);
    EXPECT_EQ(duckdb_connect(db_, &connection_), DuckDBSuccess);
  }
  ~Db() {
    duckdb_disconnect(&connection_);
    duckdb_close(&db_);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // The actions read typed.
  StatusOr<std::vector<Action>> Typed(const std::string& sql) {
    std::vector<Action> actions;
    Status status = Query(sql, [&](duckdb_result& r) { return AppendActions(r, actions); });
    if (!status.ok()) return status;
    return actions;
  }

  // The actions the parser makes of the JSON lines.
  StatusOr<std::vector<Action>> ThroughJson(const std::string& sql) {
    std::vector<std::string> lines;
    DC_RETURN_IF_ERROR(Query(sql, [&](duckdb_result& r) { return AppendActionLines(r, lines); }));
    ActionParser parser;
    std::vector<Action> actions;
    for (const std::string& line : lines) {
      DC_ASSIGN_OR_RETURN(Action action, parser.ParseLine(line));
      actions.push_back(std::move(action));
    }
    return actions;
  }

 private:
  template <typename Read>
  Status Query(const std::string& sql, Read read) {
    duckdb_result result;
    if (duckdb_query(connection_, sql.c_str(), &result) != DuckDBSuccess) {
      std::string error = duckdb_result_error(&result);
      duckdb_destroy_result(&result);
      return InvalidArgumentError("query failed: " + error);
    }
    Status status = read(result);
    duckdb_destroy_result(&result);
    return status;
  }

  duckdb_database db_ = nullptr;
  duckdb_connection connection_ = nullptr;
};

// Both ways agree on `sql`; returns the actions.
std::vector<Action> Same(const std::string& sql) {
  Db db;
  StatusOr<std::vector<Action>> typed = db.Typed(sql);
  StatusOr<std::vector<Action>> json = db.ThroughJson(sql);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_TRUE(typed.ok()) << typed.status().ToString();
  if (!typed.ok() || !json.ok()) return {};
  EXPECT_EQ(*typed, *json) << sql;
  return *typed;
}

// The Delta checkpoint types of add and remove, as Delta Spark and our
// writer give them.
const std::string kDv =
    "STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, \"offset\" INTEGER, "
    "sizeInBytes INTEGER, cardinality BIGINT, maxRowIndex BIGINT)";
const std::string kAdd =
    "STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, "
    "modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags MAP(VARCHAR, VARCHAR), "
    "deletionVector " +
    kDv +
    ", baseRowId BIGINT, defaultRowCommitVersion BIGINT, "
    "clusteringProvider VARCHAR)";
const std::string kRemove =
    "STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, "
    "extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, "
    "stats VARCHAR, tags MAP(VARCHAR, VARCHAR), deletionVector " +
    kDv + ", baseRowId BIGINT, defaultRowCommitVersion BIGINT)";

TEST(CheckpointActionsTest, EveryFieldOfAddsAndRemovesReadsAsTheParserReadsIt) {
  const std::vector<Action> actions = Same(
      "SELECT {'path': 'p=1/a%20b.parquet', 'partitionValues': MAP {'p': '1', 'q': NULL}, "
      "'size': 10, 'modificationTime': -5, 'dataChange': false, "
      "'stats': '{\"numRecords\":3,\"s\":\"\\u00e9\\n\"}', 'tags': MAP {'t': 'v', 'n': NULL}, "
      "'deletionVector': {'storageType': 'u', 'pathOrInlineDv': 'ab^-aqEH.-t@S}K{vb[*k^', "
      "'offset': 4, 'sizeInBytes': 40, 'cardinality': 6, 'maxRowIndex': NULL}, "
      "'baseRowId': 7, 'defaultRowCommitVersion': 8, 'clusteringProvider': 'liquid'}::" +
      kAdd + " AS add, NULL::" + kRemove +
      " AS remove "
      "UNION ALL SELECT NULL, {'path': 'gone.parquet', 'deletionTimestamp': 99, "
      "'dataChange': true, 'extendedFileMetadata': true, 'partitionValues': MAP {}, "
      "'size': 3, 'stats': NULL, 'tags': NULL, 'deletionVector': NULL, 'baseRowId': NULL, "
      "'defaultRowCommitVersion': 2}::" +
      kRemove);
  ASSERT_EQ(actions.size(), 2u);
  const auto* add = std::get_if<AddFile>(&actions[0]);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->path, "p=1/a%20b.parquet");
  EXPECT_EQ(add->partition_values.at("q"), std::nullopt);
  ASSERT_TRUE(add->deletion_vector.has_value());
  EXPECT_EQ(add->deletion_vector->offset, 4);
  EXPECT_TRUE(add->unknown_fields.empty());
  const auto* remove = std::get_if<RemoveFile>(&actions[1]);
  ASSERT_NE(remove, nullptr);
  EXPECT_EQ(remove->deletion_timestamp, 99);
  EXPECT_FALSE(remove->stats.has_value());
}

TEST(CheckpointActionsTest, OtherActionsAndAnUnknownFieldWithAValueGoThroughTheParser) {
  const std::vector<Action> actions = Same(
      "SELECT {'path': 'a', 'partitionValues': MAP {}::MAP(VARCHAR, VARCHAR), 'size': 1, "
      "'modificationTime': 2, "
      "'dataChange': true, 'futureField': 5} AS add, "
      "{'appId': 'w', 'version': 3, 'lastUpdated': NULL::BIGINT} AS txn "
      "UNION ALL SELECT {'path': 'b', 'partitionValues': MAP {}::MAP(VARCHAR, VARCHAR), 'size': 1, "
      "'modificationTime': 2, 'dataChange': true, 'futureField': NULL}, NULL");
  ASSERT_EQ(actions.size(), 3u);
  const auto* kept = std::get_if<AddFile>(&actions[0]);
  ASSERT_NE(kept, nullptr);
  EXPECT_FALSE(kept->unknown_fields.empty()) << "the parser keeps what it does not know";
  EXPECT_TRUE(std::holds_alternative<SetTransaction>(actions[1]));
}

TEST(CheckpointActionsTest, ADeletionVectorsUnknownFieldWithAValueIsKept) {
  Same(
      "SELECT {'path': 'a', 'partitionValues': MAP {}, 'size': 1, 'modificationTime': 2, "
      "'dataChange': true, 'deletionVector': {'storageType': 'i', 'pathOrInlineDv': 'x', "
      "'offset': NULL, 'sizeInBytes': 1, 'cardinality': 1, 'maxRowIndex': 9}}::" +
      kAdd + " AS add");
}

TEST(CheckpointActionsTest, OtherIntegerTypesReadAsTheParserReadsThem) {
  // A writer that stored size and modificationTime as INT32: the column is
  // read through JSON, and comes out the same.
  Same(
      "SELECT {'path': 'a', 'partitionValues': MAP {}::MAP(VARCHAR, VARCHAR), 'size': 1::INTEGER, "
      "'modificationTime': 2::INTEGER, 'dataChange': true} AS add");
}

// An add of the Delta type whose field `nulled` is NULL.
std::string AddWithNull(const std::string& nulled) {
  std::vector<std::pair<std::string, std::string>> fields = {{"path", "'a'"},
                                                             {"partitionValues", "MAP {'p': '1'}"},
                                                             {"size", "1"},
                                                             {"modificationTime", "2"},
                                                             {"dataChange", "true"}};
  std::string sql = "SELECT {";
  for (const auto& [name, value] : fields) {
    if (sql.size() > 8) sql += ", ";
    sql += "'" + name + "': " + (name == nulled ? "NULL" : value);
  }
  return sql + "}::" + kAdd + " AS add";
}

void ExpectSameError(const std::string& sql) {
  Db db;
  StatusOr<std::vector<Action>> typed = db.Typed(sql);
  StatusOr<std::vector<Action>> json = db.ThroughJson(sql);
  ASSERT_FALSE(json.ok()) << sql;
  ASSERT_FALSE(typed.ok()) << sql;
  EXPECT_EQ(typed.status().code(), json.status().code());
  EXPECT_EQ(typed.status().message(), json.status().message());
}

TEST(CheckpointActionsTest, ANullRequiredFieldFailsWithTheParsersError) {
  for (const char* nulled : {"path", "size", "modificationTime", "dataChange", "partitionValues"}) {
    SCOPED_TRACE(nulled);
    ExpectSameError(AddWithNull(nulled));
  }
  Same(AddWithNull("none"));  // and without a null, both read it
}

TEST(CheckpointActionsTest, ADeletionVectorWithoutARequiredFieldFailsWithTheParsersError) {
  const std::string sql =
      "SELECT {'path': 'a', 'partitionValues': MAP {}, 'size': 1, 'modificationTime': 2, "
      "'dataChange': true, 'deletionVector': {'storageType': 'u', 'pathOrInlineDv': NULL, "
      "'offset': 1, 'sizeInBytes': 1, 'cardinality': 1, 'maxRowIndex': NULL}}::" +
      kAdd + " AS add";
  ExpectSameError(sql);
}

TEST(CheckpointActionsTest, ManyChunksKeepTheirOrderAcrossColumns) {
  // Several of DuckDB's 2048-row vectors, adds and removes interleaved,
  // long strings (not inlined) and short ones.
  const std::vector<Action> actions = Same(
      "SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE {'path': 'f-' || i || repeat('x', i % 30), "
      "'partitionValues': MAP {'i': i::VARCHAR}, 'size': i, 'modificationTime': i, "
      "'dataChange': false, 'stats': NULL, 'tags': NULL, 'deletionVector': NULL, "
      "'baseRowId': NULL, 'defaultRowCommitVersion': NULL, 'clusteringProvider': NULL}::" +
      kAdd +
      " END AS add, CASE WHEN i % 3 = 0 THEN {'path': 'r-' || i, "
      "'deletionTimestamp': i, 'dataChange': false, 'extendedFileMetadata': NULL, "
      "'partitionValues': NULL, 'size': NULL, 'stats': NULL, 'tags': NULL, "
      "'deletionVector': NULL, 'baseRowId': NULL, 'defaultRowCommitVersion': NULL}::" +
      kRemove + " END AS remove FROM range(7000) t(i)");
  ASSERT_EQ(actions.size(), 7000u);
  EXPECT_TRUE(std::holds_alternative<RemoveFile>(actions[6999]));
  EXPECT_TRUE(std::holds_alternative<AddFile>(actions[6998]));
}

TEST(CheckpointActionsTest, ARepeatedMapKeyIsLeftToTheParser) {
  Db db;
  const std::string sql =
      "SELECT {'path': 'a', 'partitionValues': map_from_entries([('p', '1'), ('p', '2')]), "
      "'size': 1, 'modificationTime': 2, 'dataChange': true} AS add";
  StatusOr<std::vector<Action>> json = db.ThroughJson(sql);
  StatusOr<std::vector<Action>> typed = db.Typed(sql);
  if (!json.ok()) {
    // DuckDB itself may refuse a map with a repeated key.
    EXPECT_EQ(typed.status().code(), json.status().code());
    return;
  }
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(*typed, *json);
}

}  // namespace
}  // namespace deltacommit::parquet_internal
