// `deltacommit delete` on local tables through the real CLI: deletion
// vectors where the table enables them (column mapping too), files
// rewritten where it does not, whole files removed; the rows left are read
// back both by `query` and by an independent reader (npm hyparquet with its
// own DV decoder, tests/parquet/read_table_rows.mjs), change data files
// too. An append-only table refuses, bad conditions commit nothing, and
// concurrent deletes and appends lose no row and resurrect none.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "parquet/hyparquet.h"

namespace deltacommit {
namespace {

using nlohmann::json;
using testing::CliResult;
using testing::RunCli;

class CliDeleteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-delete-it-XXXXXX";
    dir_ = mkdtemp(tmpl);
    table_ = dir_ + "/table";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Input(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name) << content;
    return dir_ + "/" + name;
  }

  void CreateAndAppend(const std::vector<std::string>& properties, const std::string& csv) {
    std::vector<std::string> args{"create",         table_, "--schema", "id:long,s:string,p:string",
                                  "--partition-by", "p"};
    for (const std::string& property : properties)
      args.insert(args.end(), {"--property", property});
    CliResult created = RunCli(args);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    CliResult appended = RunCli({"append", table_, Input("rows.csv", csv), "--quiet"});
    ASSERT_EQ(appended.exit_code, 0) << appended.err;
  }

  json Delete(const std::string& where) {
    CliResult r = RunCli({"delete", table_, "--where", where, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  // The ids `query` sees, ascending.
  std::vector<int64_t> QueryIds() {
    CliResult r = RunCli({"query", table_, "SELECT id FROM t ORDER BY id", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<int64_t> ids;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      ids.push_back(json::parse(line)["id"].get<int64_t>());
    }
    return ids;
  }

  json Snapshot() {
    CliResult r = RunCli({"snapshot", table_, "--json", "--files"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }

  // The (id, p) rows hyparquet reads from the snapshot's active files, less
  // what their DVs (decoded in JavaScript) remove, under the logical names.
  std::set<std::pair<int64_t, std::string>> IndependentRows() {
    const json snapshot = Snapshot();
    const json& metadata = snapshot["metadata"];
    const json config = metadata.value("configuration", json::object());
    json files = json::array();
    for (const json& add : snapshot["files"]) {
      json f{{"path", add["path"]}, {"partitionValues", add["partitionValues"]}};
      if (add.contains("deletionVector")) f["deletionVector"] = add["deletionVector"];
      files.push_back(f);
    }
    const json table{{"root", table_},
                     {"schema", json::parse(metadata["schemaString"].get<std::string>())},
                     {"partitionColumns", metadata["partitionColumns"]},
                     {"mode", config.value("delta.columnMapping.mode", "none")},
                     {"files", files}};
    const std::string path = Input("files.json", table.dump());
    const json read = hyparquet::ReadTableRowsWithHyparquet(path);
    std::set<std::pair<int64_t, std::string>> rows;
    for (const json& row : read["rows"]) {
      rows.emplace(row["id"].get<int64_t>(), row["p"].is_null() ? "" : row["p"].get<std::string>());
    }
    return rows;
  }

  std::string dir_;
  std::string table_;
};

constexpr char kTen[] =
    "id,s,p\n1,one,a\n2,two,a\n3,three,a\n4,four,a\n5,five,a\n"
    "6,six,b\n7,seven,b\n8,eight,b\n9,nine,b\n10,ten,b\n";

TEST_F(CliDeleteTest, DeletionVectorsUnderColumnMappingReadAlikeByAnIndependentReader) {
  DC_REQUIRE_HYPARQUET();
  CreateAndAppend({"delta.enableDeletionVectors=true", "delta.columnMapping.mode=name"}, kTen);
  json first = Delete("id % 3 = 0");  // 3 from a, 6 and 9 from b
  EXPECT_EQ(first["rows_deleted"], 3) << first;
  EXPECT_EQ(first["files_with_deletion_vectors"], 2) << first;
  EXPECT_EQ(first["files_rewritten"], 0) << first;
  EXPECT_EQ(first["files_read"], 2) << first;
  // A second delete on files that have DVs: the new DV holds both.
  json second = Delete("id IN (4, 7)");
  EXPECT_EQ(second["rows_deleted"], 2) << second;
  json snapshot = Snapshot();
  std::multiset<int64_t> cardinalities;
  for (const json& add : snapshot["files"]) {
    ASSERT_TRUE(add.contains("deletionVector")) << add;
    EXPECT_EQ(add["deletionVector"]["storageType"], "u");
    cardinalities.insert(add["deletionVector"]["cardinality"].get<int64_t>());
    // numRecords stays the file's; the bounds are no longer tight.
    const json stats = json::parse(add["stats"].get<std::string>());
    EXPECT_EQ(stats["numRecords"], 5) << stats;
    EXPECT_EQ(stats["tightBounds"], false) << stats;
  }
  EXPECT_EQ(cardinalities, (std::multiset<int64_t>{2, 3}));  // {3, 4} and {6, 7, 9}
  const std::set<std::pair<int64_t, std::string>> left{
      {1, "a"}, {2, "a"}, {5, "a"}, {8, "b"}, {10, "b"}};
  EXPECT_EQ(QueryIds(), (std::vector<int64_t>{1, 2, 5, 8, 10}));
  EXPECT_EQ(IndependentRows(), left);
  // Every row of b left: its file is removed whole, no DV written.
  json whole = Delete("p = 'b'");
  EXPECT_EQ(whole["rows_deleted"], 2) << whole;
  EXPECT_EQ(whole["files_removed"], 1) << whole;
  EXPECT_EQ(whole["files_with_deletion_vectors"], 0) << whole;
  EXPECT_EQ(QueryIds(), (std::vector<int64_t>{1, 2, 5}));
  EXPECT_EQ(IndependentRows(),
            (std::set<std::pair<int64_t, std::string>>{{1, "a"}, {2, "a"}, {5, "a"}}));
  // Nothing left to match: nothing committed.
  const int64_t version = Snapshot()["version"].get<int64_t>();
  json none = Delete("id > 100");
  EXPECT_EQ(none["result"], "nothing matched") << none;
  EXPECT_EQ(Snapshot()["version"], version);
  CliResult check = RunCli({"check", table_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST_F(CliDeleteTest, TheRemoveCarriesTheOldDeletionVectorAndTheCommitSaysDelete) {
  CreateAndAppend({"delta.enableDeletionVectors=true"}, kTen);
  Delete("id = 1");
  Delete("id = 2");
  std::ifstream in(table_ + "/_delta_log/00000000000000000003.json");
  json commit_info, remove, add;
  for (std::string line; std::getline(in, line);) {
    const json action = json::parse(line);
    if (action.contains("commitInfo")) commit_info = action["commitInfo"];
    if (action.contains("remove")) remove = action["remove"];
    if (action.contains("add")) add = action["add"];
  }
  EXPECT_EQ(commit_info["operation"], "DELETE");
  EXPECT_EQ(commit_info["operationParameters"]["predicate"], "[\"id = 2\"]");
  EXPECT_EQ(commit_info["isBlindAppend"], false);
  ASSERT_TRUE(remove.contains("deletionVector")) << remove;
  EXPECT_EQ(remove["deletionVector"]["cardinality"], 1);
  EXPECT_EQ(remove["path"], add["path"]);
  EXPECT_EQ(remove["extendedFileMetadata"], true);
  EXPECT_EQ(add["deletionVector"]["cardinality"], 2);
  EXPECT_NE(add["deletionVector"], remove["deletionVector"]);
  EXPECT_EQ(QueryIds(), (std::vector<int64_t>{3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST_F(CliDeleteTest, WithoutDeletionVectorsTheFilesAreRewritten) {
  DC_REQUIRE_HYPARQUET();
  for (const std::string mode : {"none", "id"}) {
    SCOPED_TRACE(mode);
    std::filesystem::remove_all(table_);
    // Supported but not enabled: DVs are read, not written.
    CreateAndAppend({"delta.columnMapping.mode=" + mode, "delta.feature.deletionVectors=supported"},
                    kTen);
    json r = Delete("id IN (2, 4) OR s = 'ten'");
    EXPECT_EQ(r["rows_deleted"], 3) << r;
    EXPECT_EQ(r["files_rewritten"], 2) << r;
    EXPECT_EQ(r["files_with_deletion_vectors"], 0) << r;
    const json snapshot = Snapshot();
    ASSERT_EQ(snapshot["files"].size(), 2u) << snapshot;
    for (const json& add : snapshot["files"]) {
      EXPECT_FALSE(add.contains("deletionVector")) << add;
      const json stats = json::parse(add["stats"].get<std::string>());
      EXPECT_TRUE(stats["numRecords"] == 3 || stats["numRecords"] == 4) << stats;
    }
    EXPECT_EQ(QueryIds(), (std::vector<int64_t>{1, 3, 5, 6, 7, 8, 9}));
    EXPECT_EQ(IndependentRows(),
              (std::set<std::pair<int64_t, std::string>>{
                  {1, "a"}, {3, "a"}, {5, "a"}, {6, "b"}, {7, "b"}, {8, "b"}, {9, "b"}}));
  }
}

TEST_F(CliDeleteTest, AnAppendOnlyTableRefusesAndCommitsNothing) {
  CreateAndAppend({"delta.appendOnly=true"}, kTen);
  CliResult append_only = RunCli({"delete", table_, "--where", "id = 1"});
  EXPECT_EQ(append_only.exit_code, 1);
  EXPECT_NE(append_only.err.find("append-only (delta.appendOnly=true)"), std::string::npos)
      << append_only.err;
  EXPECT_EQ(Snapshot()["version"], 1);
}

// Change data (delta.enableChangeDataFeed): a delete that takes some rows
// of a file writes every row it deletes, with _change_type "delete", as
// change data files under _change_data/ (cdc actions), read back here by
// hyparquet; one that removes whole files writes none.
TEST_F(CliDeleteTest, ChangeDataFilesHoldEveryRowDeleted) {
  DC_REQUIRE_HYPARQUET();
  CreateAndAppend({"delta.enableChangeDataFeed=true", "delta.enableDeletionVectors=true"}, kTen);
  json partial = Delete("id IN (1, 2) OR p = 'b'");  // part of a, all of b
  EXPECT_EQ(partial["rows_deleted"], 7) << partial;
  EXPECT_EQ(partial["change_data_files"], 2) << partial;
  std::ifstream in(table_ + "/_delta_log/00000000000000000002.json");
  json files = json::array();
  for (std::string line; std::getline(in, line);) {
    const json action = json::parse(line);
    if (!action.contains("cdc")) continue;
    EXPECT_EQ(action["cdc"]["dataChange"], false) << line;
    EXPECT_TRUE(action["cdc"]["path"].get<std::string>().starts_with("_change_data/p=")) << line;
    files.push_back({{"path", action["cdc"]["path"]},
                     {"partitionValues", action["cdc"]["partitionValues"]}});
  }
  ASSERT_EQ(files.size(), 2u);  // one per partition
  const json read = hyparquet::ReadTableRowsWithHyparquet(
      Input("cdc.json", json{{"root", table_}, {"files", files}}.dump()));
  std::set<std::string> changes;
  for (const json& row : read["rows"]) {
    changes.insert(std::to_string(row["id"].get<int64_t>()) + row["p"].get<std::string>() + ":" +
                   row["_change_type"].get<std::string>());
  }
  EXPECT_EQ(changes, (std::set<std::string>{"1a:delete", "2a:delete", "6b:delete", "7b:delete",
                                            "8b:delete", "9b:delete", "10b:delete"}));
  EXPECT_EQ(QueryIds(), (std::vector<int64_t>{3, 4, 5}));
  // Whole files owe no change data.
  json whole = Delete("p = 'a'");
  EXPECT_EQ(whole["files_removed"], 1) << whole;
  std::ifstream last(table_ + "/_delta_log/00000000000000000003.json");
  for (std::string line; std::getline(last, line);) {
    EXPECT_FALSE(json::parse(line).contains("cdc")) << line;
  }
}

TEST_F(CliDeleteTest, APartitionConditionIsDecidedFromTheLogAlone) {
  CreateAndAppend({"delta.enableDeletionVectors=true"}, kTen);
  const json snapshot = Snapshot();
  ASSERT_EQ(snapshot["files"].size(), 2u);
  for (const json& add : snapshot["files"]) {
    std::ofstream(table_ + "/" + add["path"].get<std::string>(), std::ios::trunc) << "not parquet";
  }
  for (const std::string where : {"s = 'one'", "p = 'b' AND random() < 2"}) {
    CliResult r = RunCli({"delete", table_, "--where", where});
    EXPECT_NE(r.exit_code, 0) << where;
    EXPECT_NE(r.err.find("part-00000-"), std::string::npos) << r.err;  // the data file
  }
  json r = Delete("p = 'b' OR p IS NULL");
  EXPECT_EQ(r["files_read"], 0) << r;
  EXPECT_EQ(r["files_removed"], 1) << r;
  EXPECT_EQ(r["rows_deleted"], 5) << r;  // the file's numRecords
  EXPECT_EQ(Snapshot()["files"].size(), 1u);
}

TEST_F(CliDeleteTest, BadConditionsAreNamedAndCommitNothing) {
  CreateAndAppend({"delta.enableDeletionVectors=true"}, kTen);
  struct Case {
    std::string where;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "no condition given"},
           {"id = 1; DROP TABLE t", "syntax error"},
           {"nope = 1", "\"nope\" not found"},
           {"s + 1", "the condition"},
       }) {
    SCOPED_TRACE(c.where);
    CliResult r = RunCli({"delete", table_, "--where", c.where});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  EXPECT_EQ(Snapshot()["version"], 1);
  EXPECT_EQ(QueryIds().size(), 10u);
}

// Deleters and appenders at once: a delete that commits removes exactly its
// rows, one that conflicts (exit 3) removes none, and no appended row is
// lost (a blind append never conflicts with a delete).
TEST_F(CliDeleteTest, ConcurrentDeletesAndAppendsLoseNothing) {
  CreateAndAppend({"delta.enableDeletionVectors=true"}, kTen);
  std::vector<int> codes(6, -1);
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([this, w, &codes] {
      CliResult r = RunCli({"delete", table_, "--where", "id = " + std::to_string(w + 1)});
      codes[static_cast<size_t>(w)] = r.exit_code;
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
    });
  }
  for (int w = 0; w < 2; ++w) {
    const std::string input = Input("more" + std::to_string(w) + ".csv",
                                    "id,s,p\n" + std::to_string(100 + w) + ",new,a\n");
    writers.emplace_back([input, this, w, &codes] {
      CliResult r = RunCli({"append", table_, input, "--quiet"});
      codes[static_cast<size_t>(4 + w)] = r.exit_code;
      EXPECT_EQ(r.exit_code, 0) << r.err;
    });
  }
  for (auto& t : writers) t.join();
  std::vector<int64_t> expected{100, 101};
  for (int64_t id = 1; id <= 10; ++id) {
    if (id > 4 || codes[static_cast<size_t>(id - 1)] != 0) expected.push_back(id);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(QueryIds(), expected);
  CliResult check = RunCli({"check", table_});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace deltacommit
