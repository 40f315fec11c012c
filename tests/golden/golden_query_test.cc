// `query` on the Delta project's golden tables against an independent
// reader: every row of `SELECT * FROM t` equals what hyparquet (plain
// JavaScript) reads from the same active files, under the logical names
// that tests/parquet/read_table_rows.mjs maps itself (column mapping), less
// the rows its own deletion-vector decoder removes. Rows are compared as
// multisets of {column: value as text}.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/table.h"
#include "deltacommit/testing/golden_dir.h"
#include "parquet/hyparquet.h"

namespace deltacommit {
namespace {

// The tables compared, and the columns compared (empty: all). `query`
// gives every column; the others' text forms differ between the readers
// (floats, dates, timestamps, binary), not their values. More tables join
// this list as `query` learns them (issue 21).
struct GoldenCase {
  std::string table;
  std::set<std::string> columns;
};
const std::set<std::string> kMappedColumns = {
    "ByteType", "ShortType", "IntegerType", "LongType", "BooleanType", "StringType",
    "nested_struct", "array_of_prims", "array_of_arrays", "array_of_structs"};
const std::vector<GoldenCase> kCases = {
    {"dv-partitioned-with-checkpoint", {}},
    {"log-replay-dv-key-cases", {}},
    {"basic-with-inserts-deletes-checkpoint", {}},
    {"snapshot-data3", {}},
    {"snapshot-repartitioned", {}},
    {"time-travel-start-start20-start40", {}},
    {"dv-with-columnmapping", {}},
    {"table-with-columnmapping-mode-name", kMappedColumns},
    {"table-with-columnmapping-mode-id", kMappedColumns},
    {"data-reader-timestamp_ntz-name-mode", {"id"}},
    {"data-reader-timestamp_ntz-id-mode", {"id"}},
};

// A value as text, whichever reader gave it: partition values come from
// the log as strings, data values as JSON numbers or strings.
std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Each row as "col=value;..." in column-name order (only `columns`, when
// given), sorted.
std::vector<std::string> Canonical(const nlohmann::json& rows, const std::set<std::string>& columns) {
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& [k, v] : row.items()) {
      if (columns.empty() || columns.contains(k)) cells.push_back(k + "=" + Text(v));
    }
    std::sort(cells.begin(), cells.end());
    std::string line;
    for (const auto& c : cells) line += c + ";";
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json DescriptorJson(const DeletionVectorDescriptor& dv) {
  nlohmann::json j{{"storageType", dv.storage_type},
                   {"pathOrInlineDv", dv.path_or_inline_dv},
                   {"sizeInBytes", dv.size_in_bytes},
                   {"cardinality", dv.cardinality}};
  if (dv.offset) j["offset"] = *dv.offset;
  return j;
}

class GoldenQueryTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenQueryTest, RowsMatchAnIndependentReader) {
  DC_REQUIRE_HYPARQUET();
  const auto golden = GoldenTablesDir();
  if (!golden) GTEST_SKIP() << GoldenTablesMissingMessage();
  const std::string name = GetParam().table;
  const std::string root = (*golden / name).string();
  auto table = OpenTable(root, {});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto snapshot = table->Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();

  nlohmann::json files = nlohmann::json::array();
  int with_dv = 0;
  for (const auto& [key, add] : (*snapshot)->active_files()) {
    nlohmann::json f{{"path", add.path}, {"partitionValues", nlohmann::json::object()}};
    for (const auto& [k, v] : add.partition_values) {
      f["partitionValues"][k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    }
    if (add.deletion_vector) {
      f["deletionVector"] = DescriptorJson(*add.deletion_vector);
      ++with_dv;
    }
    files.push_back(f);
  }
  ASSERT_FALSE(files.empty()) << name << " has no data files";
  const Metadata& metadata = (*snapshot)->metadata();
  const auto mode = metadata.configuration.find("delta.columnMapping.mode");
  const nlohmann::json table_json{
      {"root", root},
      {"files", files},
      {"schema", nlohmann::json::parse(metadata.schema_string)},
      {"partitionColumns", metadata.partition_columns},
      {"mode", mode == metadata.configuration.end() ? "none" : mode->second}};
  const std::string list = ::testing::TempDir() + "/golden-query-" + name + ".json";
  std::ofstream(list) << table_json.dump();
  const nlohmann::json expected = hyparquet::ReadTableRowsWithHyparquet(list);
  ASSERT_TRUE(expected.contains("rows")) << expected.dump();

  QueryOptions options;
  options.json_rows = true;
  auto result = table->Query("SELECT * FROM t", options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  nlohmann::json ours = nlohmann::json::array();
  for (const auto& row : result->rows) ours.push_back(nlohmann::json::parse(row.at(0).value()));
  const auto& columns = GetParam().columns;
  EXPECT_EQ(Canonical(ours, columns), Canonical(expected["rows"], columns))
      << name << ": " << files.size() << " files, " << with_dv << " with deletion vectors";
}

INSTANTIATE_TEST_SUITE_P(Tables, GoldenQueryTest, ::testing::ValuesIn(kCases),
                         [](const auto& param_info) {
                           return GoldenCaseName(param_info.param.table);
                         });

}  // namespace
}  // namespace deltacommit
