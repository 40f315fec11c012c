// Big inputs in bounded memory: data files are cut at the target size, each
// with its own statistics; DuckDB takes the memory limit and spills into
// the given directory instead of failing or using the working directory; a
// bad limit is refused naming it; long statements report progress.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace {

using data_internal::Connection;
using data_internal::Database;
using data_internal::Progress;

constexpr char kSchema[] =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";

class DataBoundedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-bounded-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
};

// DuckDB checks the size after each row group (122,880 rows) that one of
// its threads fills: 1,000,000 rows in two partitions with a 1-byte target
// give each of two threads at least two row groups of each partition, so
// at least two files each however the rows are shared out (400,000 left a
// loaded machine's threads one row group short, and one file).
TEST_F(DataBoundedTest, ABigPartitionIsCutIntoFilesWithTheirOwnStats) {
  DuckDbOptions options;
  options.target_file_bytes = 1;
  auto handler = DuckDbDataFileHandler::Create(options);
  ASSERT_TRUE(handler.ok()) << handler.status().ToString();
  constexpr int kRows = 1000000;
  {
    std::ofstream csv(dir_ + "/big.csv");
    csv << "id,p\n";
    for (int i = 0; i < kRows; ++i) csv << i << "," << (i % 2 == 0 ? "even" : "odd") << "\n";
  }
  const TableLayout layout{kSchema, {"p"}};
  auto files = (*handler)->WriteDataFiles({dir_ + "/big.csv", "", "big.csv", {}}, layout, dir_);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  std::map<std::string, int> files_per_partition;
  std::set<std::string> keys;
  int64_t rows = 0;
  for (const WrittenDataFile& f : *files) {
    ++files_per_partition[*f.partition_values.at("p")];
    EXPECT_TRUE(keys.insert(f.table_key).second) << f.table_key;
    EXPECT_TRUE(f.table_key.starts_with("p=" + *f.partition_values.at("p") + "/part-00000-"))
        << f.table_key;
    // Each file's stats are its own rows'.
    auto q = (*handler)->Query(layout, {{f.local_path, f.partition_values, {}, {}}},
                               "SELECT count(*), min(id), max(id) FROM t", {});
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    const auto stats = nlohmann::json::parse(f.stats);
    EXPECT_EQ(std::to_string(stats["numRecords"].get<int64_t>()), *q->rows[0][0]) << f.table_key;
    EXPECT_EQ(std::to_string(stats["minValues"]["id"].get<int64_t>()), *q->rows[0][1]);
    EXPECT_EQ(std::to_string(stats["maxValues"]["id"].get<int64_t>()), *q->rows[0][2]);
    EXPECT_EQ(stats["numRecords"], f.num_records);
    rows += f.num_records;
  }
  EXPECT_EQ(rows, kRows);
  EXPECT_GE(files_per_partition["even"], 2);
  EXPECT_GE(files_per_partition["odd"], 2);
}

std::string Setting(Connection& c, const std::string& name) {
  auto rows = c.Query("SELECT current_setting('" + name + "')", name);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? rows->rows.at(0).at(0).value_or("NULL") : "";
}

TEST_F(DataBoundedTest, DuckDbSpillsPastItsMemoryLimitIntoTheGivenDirectory) {
  const std::string spill = dir_ + "/spill";
  auto db = Database::Open("64MB", spill);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = Connection::Open(**db);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Setting(**c, "temp_directory"), spill);
  EXPECT_EQ(Setting(**c, "memory_limit"), "61.0 MiB");  // 64,000,000 bytes
  // About 150 MB of rows: more than the limit, so it must spill.
  ASSERT_TRUE((*c)->Exec("CREATE TEMP TABLE r AS SELECT i, md5(i::VARCHAR) AS s "
                         "FROM range(3000000) t(i)",
                         "creating")
                  .ok());
  auto count = (*c)->Query("SELECT count(*) FROM r", "counting");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(count->rows[0][0], "3000000");
}

TEST_F(DataBoundedTest, ABadMemoryLimitIsRefusedNamingIt) {
  DuckDbOptions options;
  options.memory_limit = "lots";
  auto handler = DuckDbDataFileHandler::Create(options);
  ASSERT_FALSE(handler.ok());
  EXPECT_EQ(handler.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(handler.status().message().find("memory_limit = \"lots\""), std::string::npos)
      << handler.status().ToString();
}

TEST_F(DataBoundedTest, ALongStatementReportsProgressOnTheCallersThread) {
  auto db = Database::Open();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto c = Connection::Open(**db);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<double> reports;
  const auto caller = std::this_thread::get_id();
  Progress progress{[&](std::string_view stage, double percent) {
                      EXPECT_EQ(stage, "summing");
                      EXPECT_EQ(std::this_thread::get_id(), caller);
                      reports.push_back(percent);
                    },
                    "summing"};
  // Well over the 250 ms between reports on any machine this runs on.
  auto sum = (*c)->Query("SELECT sum(hash(i)) FROM range(80000000) t(i)", "summing", progress);
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  ASSERT_FALSE(reports.empty());
  for (double p : reports) {
    EXPECT_GE(p, -1.0);
    EXPECT_LE(p, 100.0);
  }
  // An error comes back as without progress.
  auto bad = (*c)->Exec("SELECT * FROM no_such_table", "bad", progress);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("no_such_table"), std::string::npos) << bad.ToString();
}

}  // namespace
}  // namespace deltacommit
