// `query` on the Delta project's golden tables against an independent
// reader: every row of `SELECT * FROM t` equals what hyparquet (plain
// JavaScript) reads from the same active files, less the rows that
// tests/parquet/read_table_rows.mjs's own deletion-vector decoder removes.
// Rows are compared as multisets of {column: value as text}.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/table.h"
#include "deltacommit/testing/golden_dir.h"
#include "parquet/hyparquet.h"

namespace deltacommit {
namespace {

// Tables of plain types (integers, strings) that `query` reads today, with
// and without deletion vectors. Column mapping and the other types join
// this list as `query` learns them (issue 21).
const std::vector<std::string> kTables = {"dv-partitioned-with-checkpoint",
                                          "log-replay-dv-key-cases",
                                          "basic-with-inserts-deletes-checkpoint",
                                          "snapshot-data3",
                                          "snapshot-repartitioned",
                                          "time-travel-start-start20-start40"};

// A value as text, whichever reader gave it: partition values come from
// the log as strings, data values as JSON numbers or strings.
std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Each row as "col=value;..." in column-name order, sorted.
std::vector<std::string> Canonical(const nlohmann::json& rows) {
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& [k, v] : row.items()) cells.push_back(k + "=" + Text(v));
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

class GoldenQueryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenQueryTest, RowsMatchAnIndependentReader) {
  DC_REQUIRE_HYPARQUET();
  const auto golden = GoldenTablesDir();
  if (!golden) GTEST_SKIP() << GoldenTablesMissingMessage();
  const std::string root = (*golden / GetParam()).string();
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
  ASSERT_FALSE(files.empty()) << GetParam() << " has no data files";
  const std::string list = ::testing::TempDir() + "/golden-query-" + GetParam() + ".json";
  std::ofstream(list) << nlohmann::json{{"root", root}, {"files", files}}.dump();
  const nlohmann::json expected = hyparquet::ReadTableRowsWithHyparquet(list);
  ASSERT_TRUE(expected.contains("rows")) << expected.dump();

  QueryOptions options;
  options.json_rows = true;
  auto result = table->Query("SELECT * FROM t", options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  nlohmann::json ours = nlohmann::json::array();
  for (const auto& row : result->rows) ours.push_back(nlohmann::json::parse(row.at(0).value()));
  EXPECT_EQ(Canonical(ours), Canonical(expected["rows"]))
      << GetParam() << ": " << files.size() << " files, " << with_dv << " with deletion vectors";
}

INSTANTIATE_TEST_SUITE_P(Tables, GoldenQueryTest, ::testing::ValuesIn(kTables),
                         [](const auto& param_info) { return GoldenCaseName(param_info.param); });

}  // namespace
}  // namespace deltacommit
