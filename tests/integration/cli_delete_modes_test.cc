// `append` and `delete` on column-mapping and deletion-vector tables in
// every S3 commit mode, through the real CLI on the test servers: RGW
// (s3-conditional), RGW + dynalite (s3-dynamodb), and a real `deltacommit
// serve` on RGW (service, coordinated). Each mode writes DVs on a table
// with column mapping, removes a whole file, appends again, and rewrites
// files on a table without DVs, and races deletes of one file; `query`
// gives the rows left and `check` finds the log sound.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/cli_runner.h"
#include "serve_api_fixture.h"

namespace deltacommit::testing {
namespace {

using nlohmann::json;

class CliDeleteModesTest : public ServeApiTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "s3-dynamodb") DC_REQUIRE_DYNAMODB();
    ServeApiTest::SetUp();
    dir_ = ::testing::TempDir() + "/dc-delete-modes-" + NewUuid();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The CLI on `table` in this test's mode (`token`: the service's bearer
  // token for the table).
  CliResult Cli(std::vector<std::string> args, const std::string& token) {
    const std::string& mode = GetParam();
    args.insert(args.end(), {"--log-store", mode});
    if (mode == "s3-dynamodb") {
      args.insert(args.end(), {"--storage-option",
                               "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + ddb_table_,
                               "--create-dynamodb-table"});
    } else if (mode == "service" || mode == "coordinated") {
      args.insert(args.end(), {"--service-url", serve_->Url(""), "--service-token", token});
    }
    return RunCli(args);
  }

  std::string Input(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name) << content;
    return dir_ + "/" + name;
  }

  void CreateAndAppend(const std::string& table, const std::string& token,
                       const std::vector<std::string>& properties) {
    std::vector<std::string> args{"create",         table, "--schema", "id:long,s:string,p:string",
                                  "--partition-by", "p"};
    for (const std::string& property : properties)
      args.insert(args.end(), {"--property", property});
    CliResult created = Cli(args, token);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    CliResult appended = Cli({"append", table,
                              Input("ten.csv",
                                    "id,s,p\n1,one,a\n2,two,a\n3,three,a\n4,four,a\n5,five,a\n"
                                    "6,six,b\n7,seven,b\n8,eight,b\n9,nine,b\n10,ten,b\n"),
                              "--quiet"},
                             token);
    ASSERT_EQ(appended.exit_code, 0) << appended.err;
  }

  json Delete(const std::string& table, const std::string& token, const std::string& where) {
    CliResult r = Cli({"delete", table, "--where", where, "--json"}, token);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  std::string Ids(const std::string& table, const std::string& token) {
    CliResult r = Cli(
        {"query", table, "SELECT string_agg(id::VARCHAR, ',' ORDER BY id) FROM t", "--csv"}, token);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const size_t newline = r.out.find('\n');
    std::string ids = newline == std::string::npos ? "" : r.out.substr(newline + 1);
    while (!ids.empty() && (ids.back() == '\n' || ids.back() == '"')) ids.pop_back();
    if (!ids.empty() && ids.front() == '"') ids.erase(0, 1);
    return ids;
  }

  void ExpectSound(const std::string& table, const std::string& token) {
    CliResult check = Cli({"check", table}, token);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  std::string dir_;
  const std::string ddb_table_ = "dc_delete_modes_" + NewUuid().substr(0, 8);
};

TEST_P(CliDeleteModesTest, DeletionVectorsOnAColumnMappedTable) {
  CreateAndAppend(table_, writer_token_,
                  {"delta.enableDeletionVectors=true", "delta.columnMapping.mode=name"});
  json dv = Delete(table_, writer_token_, "id % 3 = 0");
  EXPECT_EQ(dv["rows_deleted"], 3) << dv;
  EXPECT_EQ(dv["files_with_deletion_vectors"], 2) << dv;
  CliResult more = Cli({"append", table_, Input("more.csv", "id,s,p\n11,x,a\n12,y,c\n"), "--quiet"},
                       writer_token_);
  ASSERT_EQ(more.exit_code, 0) << more.err;
  json whole = Delete(table_, writer_token_, "p = 'b'");
  EXPECT_EQ(whole["rows_deleted"], 3) << whole;  // 7, 8, 10 (6 and 9 had gone)
  EXPECT_EQ(whole["files_removed"], 1) << whole;
  EXPECT_EQ(Ids(table_, writer_token_), "1,2,4,5,11,12");
  // The DV file sits at the table's root on S3.
  bool dv_file = false;
  for (const std::string& key : Keys()) dv_file = dv_file || key.starts_with("deletion_vector_");
  EXPECT_TRUE(dv_file);
  ExpectSound(table_, writer_token_);
}

TEST_P(CliDeleteModesTest, FilesRewrittenWithoutDeletionVectors) {
  const std::string table = other_prefix_ + "/plain";
  CreateAndAppend(table, other_token_, {});
  json r = Delete(table, other_token_, "id IN (2, 9)");
  EXPECT_EQ(r["files_rewritten"], 2) << r;
  EXPECT_EQ(Ids(table, other_token_), "1,3,4,5,6,7,8,10");
  ExpectSound(table, other_token_);
}

// Deletes racing on one file: each commits or is a conflict (exit 3), and
// the rows left are exactly the initial ones less the committed deletes'.
TEST_P(CliDeleteModesTest, ConcurrentDeletesOfOneFileEachLandOrConflict) {
  CreateAndAppend(table_, writer_token_, {"delta.enableDeletionVectors=true"});
  std::vector<int> codes(3, -1);
  std::vector<std::thread> deleters;
  for (int w = 0; w < 3; ++w) {
    deleters.emplace_back([this, w, &codes] {
      CliResult r = Cli({"delete", table_, "--where", "id = " + std::to_string(w + 1)},
                        writer_token_);
      codes[static_cast<size_t>(w)] = r.exit_code;
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
    });
  }
  for (auto& t : deleters) t.join();
  std::string expected;
  for (int id = 1; id <= 10; ++id) {
    if (id <= 3 && codes[static_cast<size_t>(id - 1)] == 0) continue;
    expected += (expected.empty() ? "" : ",") + std::to_string(id);
  }
  EXPECT_EQ(Ids(table_, writer_token_), expected);
  ExpectSound(table_, writer_token_);
}

INSTANTIATE_TEST_SUITE_P(Modes, CliDeleteModesTest,
                         ::testing::Values("s3-conditional", "s3-dynamodb", "service",
                                           "coordinated"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace deltacommit::testing
