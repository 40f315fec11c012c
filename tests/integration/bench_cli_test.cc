// `deltacommit bench`, run tiny: the report has every mode at every writer
// count, its commit counts match the tables' logs, its ratio and
// remote-call columns are filled where they must be, and --data writes the
// plot's figures. Locally without servers, and every mode on the test
// servers; bad options are refused naming them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli_runner.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A report's tables: writer count -> mode -> column -> cell.
using Cells = std::map<std::string, std::string>;
using Section = std::map<std::string, Cells>;
using Report = std::map<int, Section>;

std::vector<std::string> SplitRow(const std::string& row) {
  std::vector<std::string> cells;
  std::stringstream in(row.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) {
    const size_t first = cell.find_first_not_of(' ');
    const size_t last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

// Each "### W = n" section's markdown tables, merged by mode.
Report ParseReport(const std::string& out) {
  Report report;
  std::stringstream lines(out);
  int w = -1;
  std::vector<std::string> header;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("### W = ")) w = std::atoi(line.c_str() + 8);
    if (w < 0 || !line.starts_with("|")) {
      header.clear();
      continue;
    }
    std::vector<std::string> cells = SplitRow(line);
    if (header.empty()) {
      header = cells;
    } else if (!cells.empty() && !cells[0].starts_with("---")) {
      for (size_t i = 1; i < cells.size() && i < header.size(); ++i) {
        report[w][cells[0]][header[i]] = cells[i];
      }
    }
  }
  return report;
}

double Number(const Section& section, const std::string& mode, const std::string& column) {
  auto row = section.find(mode);
  if (row == section.end()) return -1;
  auto cell = row->second.find(column);
  return cell == row->second.end() ? -1 : std::atof(cell->second.c_str());
}

std::vector<std::string> DataRows(const std::string& path) {
  std::vector<std::string> rows;
  std::stringstream in(Slurp(path));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  return rows;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + NewUuid())).string();
}

bool HasVersion(const std::string& table, int64_t v) {
  return std::filesystem::exists(table + "/" + CommitPath(v));
}

// Without a bucket the service modes run on local tables, which a started
// service serves from the work directory.
TEST(BenchCliTest, WithoutABucketTheServiceModesRunOnLocalTables) {
  const std::string dir = TempPath("dc-bench");
  CliResult r = RunCli({"bench", "--writers", "2", "--commits", "3", "--dir", dir, "--modes",
                        "local,service,coordinated", "--baseline", "local"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("local tables under " + dir + "/service-tables"));
  const Report report = ParseReport(r.out);
  ASSERT_EQ(report.size(), 1u) << r.out;
  for (const char* mode : {"service", "coordinated"}) {
    EXPECT_GE(Number(report.begin()->second, mode, "service_commit"), 1) << r.out;
    EXPECT_EQ(Number(report.begin()->second, mode, "s3_put"), 0) << "the service writes the log, not the writer: " << r.out;
  }
  std::filesystem::remove_all(dir);
}

TEST(BenchCliTest, LocalModeRunsWithoutServersAndTheOthersAreSkippedNamed) {
  const std::string dir = TempPath("dc-bench");
  CliResult r = RunCli({"bench", "--writers", "1,2", "--commits", "3", "--tables", "2", "--dir",
                        dir, "--data", dir + ".tsv", "--modes", "local"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  CliResult skipped = RunCli({"bench", "--writers", "1", "--commits", "1", "--dir", dir + "-s"});
  ASSERT_EQ(skipped.exit_code, 0) << skipped.out << skipped.err;
  for (const char* mode : {"s3-conditional", "s3-dynamodb"}) {
    EXPECT_THAT(skipped.out, HasSubstr(std::string("skipped ") + mode + ": no --bucket given"));
  }
  std::filesystem::remove_all(dir + "-s");
  EXPECT_THAT(r.out, HasSubstr("### W = 1: 1 writer process on 1 table, 3 commit attempts"));
  EXPECT_THAT(r.out, HasSubstr("### W = 2: 2 writer processes on 2 tables, 6 commit attempts"));
  EXPECT_THAT(r.out, HasSubstr("local 3\n"));    // W = 1: one table at version 3
  EXPECT_THAT(r.out, HasSubstr("local 3+3\n"));  // W = 2: one writer on each table
  const Report report = ParseReport(r.out);
  ASSERT_EQ(report.size(), 2u) << r.out;
  for (const auto& [w, section] : report) {
    EXPECT_EQ(section.size(), 2u) << "W = " << w << ": local and its raw primitive";
    EXPECT_GT(Number(section, "local", "commits/s"), 0) << r.out;
    EXPECT_EQ(section.at("local").at("raw primitive"), "link") << r.out;
    EXPECT_THAT(section.at("local").at("p50 ÷ raw"), ::testing::EndsWith("x")) << r.out;
    EXPECT_GT(Number(section, "raw link", "commits/s"), 0) << r.out;
    EXPECT_EQ(Number(section, "raw link", "s3_put"), 1) << "one link per call: " << r.out;
    EXPECT_EQ(Number(section, "raw link", "s3_list"), 0) << r.out;
    EXPECT_EQ(section.at("local").at("commits/s ÷ local"), "1.00x") << r.out;
    EXPECT_GT(Number(section, "local", "s3_put"), 0) << r.out;
    EXPECT_GT(Number(section, "local", "s3_list"), 0) << r.out;
    EXPECT_EQ(Number(section, "local", "dynamodb_write"), 0) << r.out;
    EXPECT_EQ(Number(section, "local", "service_commit"), 0) << r.out;
  }
  // The tables themselves: version 0 (create) and 3 commits each.
  EXPECT_TRUE(HasVersion(dir + "/tables/local-w1-t0", 3));
  EXPECT_FALSE(HasVersion(dir + "/tables/local-w1-t0", 4));
  EXPECT_FALSE(std::filesystem::exists(dir + "/tables/local-w1-t1"));
  for (const char* t : {"/tables/local-w2-t0", "/tables/local-w2-t1"}) {
    EXPECT_TRUE(HasVersion(dir + t, 3)) << t;
    EXPECT_FALSE(HasVersion(dir + t, 4)) << t;
  }
  const std::vector<std::string> rows = DataRows(dir + ".tsv");
  ASSERT_EQ(rows.size(), 4u) << Slurp(dir + ".tsv");
  EXPECT_THAT(rows[0], ::testing::StartsWith("1\tlocal\t"));
  EXPECT_THAT(rows[1], ::testing::StartsWith("1\traw link\t"));
  EXPECT_THAT(rows[2], ::testing::StartsWith("2\tlocal\t"));
  EXPECT_EQ(std::count(rows[2].begin(), rows[2].end(), '\t'), 8) << rows[2];
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir + ".tsv");
}

TEST(BenchCliTest, EveryModeOnTheTestServers) {
  DC_REQUIRE_S3();
  DC_REQUIRE_DYNAMODB();
  DC_REQUIRE_STS();  // service and coordinated send the service session credentials
  const std::string data = TempPath("dc-bench") + ".tsv";
  CliResult r = RunCli({"bench", "--writers", "1,2", "--commits", "3", "--tables", "2",
                        "--bucket", std::getenv("DELTACOMMIT_TEST_BUCKET"), "--prefix",
                        "bench-cli-test", "--data", data});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("skipped")));
  EXPECT_THAT(r.out, HasSubstr("ratios to s3-dynamodb"));
  EXPECT_THAT(r.out, HasSubstr("s3-dynamodb: lock table dl_bench_"));
  EXPECT_THAT(r.out, HasSubstr("service: deltacommit serve at http://127.0.0.1:"));
  const Report report = ParseReport(r.out);
  ASSERT_EQ(report.size(), 2u) << r.out;
  for (const auto& [w, section] : report) {
    SCOPED_TRACE("W = " + std::to_string(w));
    for (const char* mode : {"local", "s3-conditional", "s3-dynamodb", "service", "coordinated"}) {
      EXPECT_GT(Number(section, mode, "commits/s"), 0) << mode << "\n" << r.out;
      EXPECT_THAT(section.at(mode).at("commits/s ÷ s3-dynamodb"), ::testing::EndsWith("x"));
    }
    EXPECT_EQ(section.at("s3-dynamodb").at("p50 ÷ s3-dynamodb"), "1.00x");
    EXPECT_GT(Number(section, "s3-conditional", "s3_put"), 0);
    EXPECT_EQ(Number(section, "s3-conditional", "dynamodb_write"), 0);
    EXPECT_GT(Number(section, "s3-dynamodb", "dynamodb_write"), 0);
    EXPECT_GT(Number(section, "s3-dynamodb", "dynamodb_read"), 0);
    EXPECT_GT(Number(section, "s3-dynamodb", "s3_copy"), 0);
    EXPECT_EQ(Number(section, "service", "dynamodb_write"), 0);
    // One writer per table: a warm blind append is one call to the service
    // (no listing, no read back, no pending commits asked for).
    for (const char* mode : {"service", "coordinated"}) {
      EXPECT_EQ(Number(section, mode, "service_commit"), 1) << mode << "\n" << r.out;
      EXPECT_EQ(Number(section, mode, "s3_list"), 0) << mode << "\n" << r.out;
      EXPECT_EQ(Number(section, mode, "s3_get"), 0) << mode << "\n" << r.out;
      EXPECT_EQ(Number(section, mode, "service_pending"), 0) << mode << "\n" << r.out;
      EXPECT_EQ(section.at(mode).at("raw primitive"), "s3-put") << mode;
    }
    EXPECT_EQ(section.at("s3-conditional").at("raw primitive"), "s3-put");
    EXPECT_EQ(section.at("s3-dynamodb").at("raw primitive"), "dynamodb-put");
    EXPECT_EQ(Number(section, "raw s3-put", "s3_put"), 1) << r.out;
    EXPECT_EQ(Number(section, "raw dynamodb-put", "dynamodb_write"), 1) << r.out;
    EXPECT_EQ(Number(section, "raw dynamodb-put", "s3_put"), 0) << r.out;
    for (const char* raw : {"raw link", "raw s3-put", "raw dynamodb-put"}) {
      EXPECT_GT(Number(section, raw, "commits/s"), 0) << raw << "\n" << r.out;
    }
  }
  // Every table checked against its log: the direct modes take one version
  // per commit; the service may group appends, so only "checked" is known.
  EXPECT_THAT(r.out, HasSubstr("s3-conditional 3, s3-dynamodb 3, service "));
  EXPECT_THAT(r.out, HasSubstr("s3-conditional 3+3, s3-dynamodb 3+3, service "));
  const std::vector<std::string> rows = DataRows(data);
  EXPECT_EQ(rows.size(), 16u) << Slurp(data) << "5 modes and 3 raw primitives at each W";
  std::filesystem::remove(data);
}

TEST(BenchCliTest, BadOptionsAreRefusedNamingThem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--writers", "1,0"}, "--writers: every writer count must be at least 1 (got 0)"},
      {{"--commits", "0"}, "--commits must be at least 1"},
      {{"--tables", "0"}, "--tables must be at least 1"},
      {{"--modes", "local,sideways"}, "--modes \"sideways\": unknown mode (modes: local, "},
      {{"--mix", "sideways"}, "--mix \"sideways\": use blind or remove"},
      {{"--bucket", "s3://b/p"}, "--bucket \"s3://b/p\": a bucket name"},
      {{"--modes", "local,s3-dynamodb"}, "--modes s3-dynamodb: needs --bucket BUCKET"},
      {{"--modes", "local", "--baseline", "service"},
       "--baseline service: that mode is not measured in this run"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> args = {"bench"};
    args.insert(args.end(), options.begin(), options.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << options[0] << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << options[0];
    EXPECT_THAT(r.err, Not(HasSubstr("kept the work directory"))) << options[0];
  }
}

}  // namespace
}  // namespace deltacommit::testing
