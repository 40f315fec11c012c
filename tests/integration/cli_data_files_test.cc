// The data files `append` writes, read back by an independent reader (npm
// hyparquet, no DuckDB): every input row is in exactly one file, with the
// input's values; a partition column lives only in the Hive directory (not
// in the file) and in partitionValues; and each add's `stats` (numRecords,
// minValues, maxValues, nullCount) equal what hyparquet reads from that
// file. A local table, and an s3:// one on RGW (files downloaded, then read).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/test_servers.h"
#include "deltacommit/core/percent_encoding.h"
#include "parquet/hyparquet.h"

namespace deltacommit {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::RunCli;

constexpr char kSchema[] =
    "id:long not null,x:long,d:double,s:string,day:date,ts:timestamp,ok:boolean,p:string";

// The input, and the rows it means (as hyparquet gives them, normalized by
// Normalize below). Nulls, a negative, an exponent, a non-ASCII string, a
// leap day, milliseconds, and partition values that need escaping or are
// null.
constexpr char kCsv[] =
    "id,x,d,s,day,ts,ok,p\n"
    "1,10,1.5,alpha,2024-01-03,2024-01-01 10:00:00,true,a b\n"
    "2,,-2.25,beta,2024-01-01,2024-01-02 11:30:00.123,false,a b\n"
    "3,30,0,,2024-02-29,2023-12-31 23:59:59.999,,x/y\n"
    "4,40,1e10,\xC3\xBC\xC3\xB1\xC3\xAF,2024-01-05,2024-01-01 00:00:00,true,x/y\n"
    "5,50,3.75,gamma,,,true,\n"
    "6,-60,7,zeta,2024-03-01,2024-06-01 12:00:00,false,a b\n";

json ExpectedRows() {
  auto row = [](int64_t id, json x, json d, json s, json day, json ts, json ok, json p) {
    return json{{"id", id}, {"x", x}, {"d", d},   {"s", s},
                {"day", day}, {"ts", ts}, {"ok", ok}, {"p", p}};
  };
  return json::array({
      row(1, 10, 1.5, "alpha", "2024-01-03", "2024-01-01T10:00:00.000Z", true, "a b"),
      row(2, nullptr, -2.25, "beta", "2024-01-01", "2024-01-02T11:30:00.123Z", false, "a b"),
      row(3, 30, 0, nullptr, "2024-02-29", "2023-12-31T23:59:59.999Z", nullptr, "x/y"),
      row(4, 40, 1e10, "\xC3\xBC\xC3\xB1\xC3\xAF", "2024-01-05", "2024-01-01T00:00:00.000Z", true,
          "x/y"),
      row(5, 50, 3.75, "gamma", nullptr, nullptr, true, nullptr),
      row(6, -60, 7, "zeta", "2024-03-01", "2024-06-01T12:00:00.000Z", false, "a b"),
  });
}

// hyparquet gives a DATE as a JS Date (midnight UTC, ISO text): the day.
json Normalize(const std::string& column, json value) {
  if (column == "day" && value.is_string()) return value.get<std::string>().substr(0, 10);
  return value;
}

// What the protocol's stats must say of one column, computed from the rows
// hyparquet read: nullCount always; min/max for numbers, strings, dates and
// timestamps (same text form as the stats), none for booleans.
void ExpectColumnStats(const std::string& column, const json& rows, const json& stats,
                       const std::string& file) {
  SCOPED_TRACE(file + " column " + column);
  int64_t nulls = 0;
  std::vector<json> values;
  for (const json& row : rows) {
    const json v = Normalize(column, row.at(column));
    if (v.is_null()) {
      ++nulls;
    } else {
      values.push_back(v);
    }
  }
  EXPECT_EQ(stats["nullCount"][column], nulls);
  if (column == "ok" || values.empty()) {
    EXPECT_FALSE(stats["minValues"].contains(column));
    EXPECT_FALSE(stats["maxValues"].contains(column));
    return;
  }
  // json's operator< orders numbers numerically and strings bytewise (ISO
  // dates and timestamps sort as text).
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  if (min->is_number()) {
    EXPECT_DOUBLE_EQ(stats["minValues"][column].get<double>(), min->get<double>());
    EXPECT_DOUBLE_EQ(stats["maxValues"][column].get<double>(), max->get<double>());
  } else {
    EXPECT_EQ(stats["minValues"][column], *min);
    EXPECT_EQ(stats["maxValues"][column], *max);
  }
}

class CliDataFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-data-files-XXXXXX";
    dir_ = mkdtemp(tmpl);
    input_ = dir_ + "/input.csv";
    std::ofstream(input_) << kCsv;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void CreateAndAppend(const std::string& table) {
    CliResult create = RunCli({"create", table, "--schema", kSchema, "--partition-by", "p"});
    ASSERT_EQ(create.exit_code, 0) << create.err;
    CliResult append = RunCli({"append", table, input_, "--quiet"});
    ASSERT_EQ(append.exit_code, 0) << append.err;
  }

  json ActiveFiles(const std::string& table) {
    CliResult r = RunCli({"snapshot", table, "--json", "--files"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j.is_discarded() ? json::array() : j["files"];
  }

  // Reads every active file of `table` with hyparquet (`local` gives a
  // local copy of a table key) and checks it against the input.
  void ExpectFilesMatchInput(const std::string& table,
                             const std::function<std::string(const std::string&)>& local) {
    const json files = ActiveFiles(table);
    ASSERT_EQ(files.size(), 3u) << files.dump();  // p = "a b", "x/y", null
    json all = json::array();
    for (const json& add : files) {
      auto key = PercentDecode(add["path"].get<std::string>());
      ASSERT_TRUE(key.ok()) << key.status().ToString();
      const json& p = add["partitionValues"]["p"];
      // Hive directory, values escaped as Spark does.
      const std::string dir = p.is_null() ? "p=__HIVE_DEFAULT_PARTITION__/"
                              : p == "x/y" ? "p=x%2Fy/"
                                           : "p=" + p.get<std::string>() + "/";
      EXPECT_TRUE(key->starts_with(dir)) << *key;
      const json read = hyparquet::ReadWithHyparquet(local(*key));
      ASSERT_TRUE(read.is_object()) << *key;
      // The flat schema: the root (any name), then the data columns in
      // schema order, without "p".
      std::vector<std::string> columns;
      for (const json& e : read["schema"]) columns.push_back(e["name"]);
      ASSERT_FALSE(columns.empty());
      columns.erase(columns.begin());
      EXPECT_EQ(columns, (std::vector<std::string>{"id", "x", "d", "s", "day", "ts", "ok"}))
          << *key;
      const json stats = json::parse(add["stats"].get<std::string>());
      EXPECT_EQ(stats["numRecords"], read["rows"].size()) << *key;
      for (const std::string column : {"id", "x", "d", "s", "day", "ts", "ok"}) {
        ExpectColumnStats(column, read["rows"], stats, *key);
      }
      for (json row : read["rows"]) {
        for (auto& [column, value] : row.items()) value = Normalize(column, value);
        row["p"] = p;
        all.push_back(row);
      }
    }
    auto by_id = [](const json& a, const json& b) { return a["id"] < b["id"]; };
    std::sort(all.begin(), all.end(), by_id);
    EXPECT_EQ(all, ExpectedRows());
  }

  std::string dir_;
  std::string input_;
};

TEST_F(CliDataFilesTest, HyparquetReadsTheAppendedRowsAndTheirStatsLocally) {
  DC_REQUIRE_HYPARQUET();
  const std::string table = dir_ + "/table";
  CreateAndAppend(table);
  ExpectFilesMatchInput(table, [&](const std::string& key) { return table + "/" + key; });
}

TEST_F(CliDataFilesTest, HyparquetReadsTheAppendedRowsAndTheirStatsOnS3) {
  DC_REQUIRE_S3();
  DC_REQUIRE_HYPARQUET();
  auto s3 = testing::NewS3TestStore("data-files");
  CreateAndAppend(s3.uri);
  int downloaded = 0;
  ExpectFilesMatchInput(s3.uri, [&](const std::string& key) {
    auto bytes = s3.store->Get(key);
    EXPECT_TRUE(bytes.ok()) << key << ": " << bytes.status().ToString();
    const std::string file = dir_ + "/download-" + std::to_string(downloaded++) + ".parquet";
    std::ofstream(file, std::ios::binary) << (bytes.ok() ? *bytes : std::string());
    return file;
  });
}

}  // namespace
}  // namespace deltacommit
