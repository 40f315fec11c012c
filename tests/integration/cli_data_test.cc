// `append`, `query` and `create --from` through the real CLI: the figures a
// query returns equal the input's, the log's stats match the data, partition
// values survive escaping, concurrent appenders all land exactly once, bad
// inputs commit nothing. Local tables and s3:// on the real S3 server.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/test_servers.h"

namespace deltacommit {
namespace {

using testing::CliResult;
using testing::RunCli;

class CliDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-data-it-XXXXXX";
    dir_ = mkdtemp(tmpl);
    table_ = dir_ + "/table";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Input(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name) << content;
    return dir_ + "/" + name;
  }

  void Create(const std::string& table, const std::string& schema, const std::string& partition = "") {
    std::vector<std::string> args{"create", table, "--schema", schema};
    if (!partition.empty()) args.insert(args.end(), {"--partition-by", partition});
    CliResult r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // The query's result rows as CSV lines, header dropped.
  std::vector<std::string> Query(const std::string& table, const std::string& sql) {
    CliResult r = RunCli({"query", table, sql, "--csv"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
  }

  // The add actions of the table's active files (`snapshot --json --files`).
  nlohmann::json ActiveFiles(const std::string& table) {
    CliResult r = RunCli({"snapshot", table, "--json", "--files"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j.is_discarded() ? nlohmann::json::array() : j["files"];
  }

  int64_t Version(const std::string& table) {
    CliResult r = RunCli({"snapshot", table, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["version"].get<int64_t>();
  }

  std::string dir_;
  std::string table_;
};

constexpr char kCsv[] =
    "id,x,p\n1,10,a b\n2,20,x/y\n3,30,k=v\n4,40,50%\n5,50,\n6,60,a b\n";
constexpr char kJson[] =
    "{\"id\":7,\"x\":70,\"p\":\"a b\"}\n{\"id\":8,\"x\":null,\"p\":null}\n";

TEST_F(CliDataTest, AppendCsvJsonAndParquetThenQueryGivesTheInputsFigures) {
  Create(table_, "id:long not null,x:long,p:string", "p");
  CliResult csv = RunCli({"append", table_, Input("a.csv", kCsv)});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.err.find("6 row(s) in 5 file(s)"), std::string::npos) << csv.err;
  CliResult json = RunCli({"append", table_, Input("b.jsonl", kJson)});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(Version(table_), 2);
  EXPECT_EQ(Query(table_, "SELECT count(*), sum(x) FROM t"), std::vector<std::string>{"8,280"});

  // A Parquet input: the data file `append` writes for an unpartitioned
  // table (from CSV on stdin) holds all three columns.
  const std::string flat = dir_ + "/flat";
  Create(flat, "id:long,x:long,p:string");
  ASSERT_EQ(RunCli({"append", flat, "-"}, kCsv).exit_code, 0);
  auto files = ActiveFiles(flat);
  ASSERT_EQ(files.size(), 1u);
  const std::string parquet = flat + "/" + files[0]["path"].get<std::string>();
  CliResult pq = RunCli({"append", table_, parquet});
  ASSERT_EQ(pq.exit_code, 0) << pq.err;
  EXPECT_EQ(Query(table_, "SELECT count(*), sum(x) FROM t"), std::vector<std::string>{"14,490"});
  EXPECT_EQ(Query(flat, "SELECT count(*), sum(x), count(p) FROM t"),
            std::vector<std::string>{"6,210,5"});
}

// Like `commit`, `append` writes the automatic checkpoint when its version
// is a multiple of delta.checkpointInterval.
TEST_F(CliDataTest, AnAppendAtTheCheckpointIntervalWritesTheCheckpoint) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long,x:long,p:string", "--property",
                    "delta.checkpointInterval=2"})
                .exit_code,
            0);
  ASSERT_EQ(RunCli({"append", table_, Input("a.csv", kCsv)}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(table_ + "/_delta_log/00000000000000000001.checkpoint.parquet"));
  CliResult second = RunCli({"append", table_, Input("b.jsonl", kJson)});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(std::filesystem::exists(table_ + "/_delta_log/00000000000000000002.checkpoint.parquet"))
      << second.err;
  EXPECT_TRUE(std::filesystem::exists(table_ + "/_delta_log/_last_checkpoint"));
  EXPECT_EQ(Query(table_, "SELECT count(*), sum(x) FROM t"), std::vector<std::string>{"8,280"});
}

// Progress lines only on a terminal or with --progress (--quiet wins); a
// stdin over one chunk (1 MiB) is spooled chunk by chunk, each reported.
TEST_F(CliDataTest, ProgressIsShownOnRequestOnly) {
  Create(table_, "id:long,x:long,p:string");
  std::string csv = "id,x,p\n";
  constexpr int kRows = 150000;  // about 1.5 MB
  for (int i = 0; i < kRows; ++i) csv += std::to_string(i) + ",1,q\n";
  CliResult piped = RunCli({"append", table_, "-"}, csv);  // stderr is a pipe here
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err.find("reading"), std::string::npos) << piped.err;
  CliResult asked = RunCli({"append", table_, "-", "--progress"}, csv);
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  EXPECT_NE(asked.err.find("input 1/1 stdin: reading 1.0 MB\n"), std::string::npos) << asked.err;
  CliResult quiet = RunCli({"append", table_, "-", "--progress", "--quiet"}, csv);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(Query(table_, "SELECT count(*), sum(x) FROM t"),
            std::vector<std::string>{std::to_string(3 * kRows) + "," + std::to_string(3 * kRows)});
}

TEST_F(CliDataTest, PartitionValuesRoundTripThroughEscapedDirectories) {
  Create(table_, "id:long,x:long,p:string", "p");
  ASSERT_EQ(RunCli({"append", table_, Input("a.csv", kCsv)}).exit_code, 0);
  for (const char* dir : {"p=a b", "p=x%2Fy", "p=k%3Dv", "p=50%25", "p=__HIVE_DEFAULT_PARTITION__"}) {
    EXPECT_TRUE(std::filesystem::is_directory(table_ + "/" + dir)) << dir;
  }
  EXPECT_EQ(Query(table_, "SELECT coalesce(p, '<null>'), sum(x) FROM t GROUP BY p ORDER BY p NULLS LAST"),
            (std::vector<std::string>{"50%,40", "a b,70", "k=v,30", "x/y,20", "<null>,50"}));
  bool saw_null = false;
  for (const auto& f : ActiveFiles(table_)) {
    if (f["partitionValues"]["p"].is_null()) saw_null = true;
  }
  EXPECT_TRUE(saw_null);
}

TEST_F(CliDataTest, StatsInTheLogMatchTheData) {
  Create(table_, "id:long,x:long,p:string", "p");
  ASSERT_EQ(RunCli({"append", table_, Input("a.csv", kCsv)}).exit_code, 0);
  int64_t records = 0;
  for (const auto& f : ActiveFiles(table_)) {
    ASSERT_TRUE(f.contains("stats")) << f.dump();
    const auto stats = nlohmann::json::parse(f["stats"].get<std::string>());
    const auto& p = f["partitionValues"]["p"];
    const std::string where =
        p.is_null() ? "p IS NULL" : "p = '" + p.get<std::string>() + "'";
    const auto expected = Query(table_, "SELECT count(*), min(x), max(x), min(id), max(id), "
                                        "count(*) - count(x) FROM t WHERE " + where);
    ASSERT_EQ(expected.size(), 1u);
    std::ostringstream got;
    got << stats["numRecords"] << "," << stats["minValues"]["x"] << "," << stats["maxValues"]["x"]
        << "," << stats["minValues"]["id"] << "," << stats["maxValues"]["id"] << ","
        << stats["nullCount"]["x"];
    EXPECT_EQ(got.str(), expected[0]) << where;
    records += stats["numRecords"].get<int64_t>();
  }
  EXPECT_EQ(records, 6);
}

TEST_F(CliDataTest, FourConcurrentAppendsAllLandExactlyOnce) {
  Create(table_, "id:long,x:long,p:string", "p");
  constexpr int kWriters = 4, kRows = 50;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    std::string csv = "id,x,p\n";
    for (int i = 0; i < kRows; ++i) {
      const int id = w * kRows + i;
      csv += std::to_string(id) + "," + std::to_string(id * 2) + ",w" + std::to_string(i % 3) + "\n";
    }
    const std::string input = Input("w" + std::to_string(w) + ".csv", csv);
    writers.emplace_back([this, input] {
      CliResult r = RunCli({"append", table_, input, "--quiet"});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(Version(table_), kWriters);
  const int n = kWriters * kRows;
  EXPECT_EQ(Query(table_, "SELECT count(*), count(DISTINCT id), sum(x), min(id), max(id) FROM t"),
            std::vector<std::string>{std::to_string(n) + "," + std::to_string(n) + "," +
                                     std::to_string(n * (n - 1)) + ",0," + std::to_string(n - 1)});
}

TEST_F(CliDataTest, BadInputsCommitNothingAndSayWhy) {
  Create(table_, "id:long not null,x:long,p:string", "p");
  auto expect_refused = [&](const std::vector<std::string>& args, const std::string& stdin_data,
                            const std::string& needle) {
    CliResult r = RunCli(args, stdin_data);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  };
  expect_refused({"append", table_, Input("m.csv", "id,x\n1,2\n")}, "", "no column \"p\"");
  expect_refused({"append", table_, Input("t.csv", "id,x,p\n1,abc,q\n")}, "",
                 "column \"x\" is long but 1 value(s) do not convert (e.g. \"abc\"");
  expect_refused({"append", table_, dir_ + "/missing.csv"}, "", "missing.csv");
  expect_refused({"append", table_, "-"}, "", "is empty");
  expect_refused({"append", table_, Input("h.csv", "id,x,p\n")}, "", "no rows");
  // A good input before a bad one: its file is not left behind either.
  expect_refused({"append", table_, Input("ok.csv", "id,x,p\n1,2,q\n"), Input("n.csv", "id,x,p\n,2,q\n")},
                 "", "\"id\" is not nullable");
  EXPECT_EQ(Version(table_), 0);
  for (const auto& e : std::filesystem::recursive_directory_iterator(table_)) {
    EXPECT_EQ(e.path().string().find(".parquet"), std::string::npos) << e.path();
  }
}

TEST_F(CliDataTest, CreateFromInfersTheSchema) {
  const std::string input = Input("s.csv", "id,name,price,day\n1,a,1.5,2024-01-01\n2,b,2.5,2024-01-02\n");
  CliResult r = RunCli({"create", table_, "--from", input, "--partition-by", "day"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(RunCli({"append", table_, input}).exit_code, 0);
  EXPECT_EQ(Query(table_, "SELECT sum(id), sum(price), max(day) FROM t"),
            std::vector<std::string>{"3,4.0,2024-01-02"});
  CliResult both = RunCli({"create", dir_ + "/t2", "--from", input, "--schema", "id:long"});
  EXPECT_EQ(both.exit_code, 2);
  CliResult neither = RunCli({"create", dir_ + "/t2"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("--schema or --from"), std::string::npos) << neither.err;
}

TEST_F(CliDataTest, QueryWritesFilesRunsCopyAsWrittenAndPrintsEachErrorOnce) {
  Create(table_, "id:long,amount:decimal(38,10)");
  ASSERT_EQ(RunCli({"append", table_,
                    Input("a.csv", "id,amount\n1,12345678901234567890.1234567890\n2,0.5\n")})
                .exit_code,
            0);
  // The issue's own example: a COPY statement runs as written.
  const std::string copied = dir_ + "/copied.parquet";
  CliResult copy = RunCli(
      {"query", table_, "COPY (SELECT * FROM t) TO '" + copied + "' (FORMAT parquet)"});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_EQ(Query(table_, "SELECT count(*), max(amount) FROM read_parquet('" + copied + "')"),
            std::vector<std::string>{"2,12345678901234567890.1234567890"});
  // --output: the format from the extension, the file whole, never replaced
  // unless asked.
  const std::string out = dir_ + "/out.jsonl";
  CliResult wrote = RunCli({"query", table_, "SELECT id, [id] AS l FROM t ORDER BY id",
                            "--output", out});
  ASSERT_EQ(wrote.exit_code, 0) << wrote.err;
  EXPECT_EQ(wrote.out, "wrote 2 row(s) to " + out + "\n");
  std::ifstream lines(out);
  std::string first;
  std::getline(lines, first);
  EXPECT_EQ(first, R"({"id":1,"l":[1]})");
  CliResult again = RunCli({"query", table_, "SELECT 1", "--output", out});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--overwrite"), std::string::npos) << again.err;
  EXPECT_EQ(RunCli({"query", table_, "SELECT 7 AS x", "--output", out, "--overwrite"}).exit_code,
            0);
  EXPECT_EQ(Query(table_, "SELECT x FROM read_json('" + out + "')"),
            std::vector<std::string>{"7"});
  // --json keeps every digit; the table nested values as JSON.
  CliResult json = RunCli({"query", table_, "SELECT amount FROM t WHERE id = 1", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "{\"amount\":12345678901234567890.1234567890}\n");
  EXPECT_EQ(Query(table_, "SELECT {'k': [id]} FROM t WHERE id = 2"),
            std::vector<std::string>{R"("{""k"":[2]}")"});
  // A bad statement: DuckDB's message about the SQL as written, once.
  CliResult bad = RunCli({"query", table_, "SELEC id FROM t"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("LINE 1: SELEC id FROM t"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("LINE 1"), bad.err.rfind("LINE 1")) << bad.err;
  EXPECT_EQ(bad.err.find("error:"), bad.err.rfind("error:")) << bad.err;
}

TEST_F(CliDataTest, QueryReadsAbsolutePathsInsideTheTable) {
  Create(table_, "id:long");
  ASSERT_EQ(RunCli({"append", table_, Input("a.csv", "id\n1\n2\n")}).exit_code, 0);
  nlohmann::json add = ActiveFiles(table_).at(0);
  const std::string relative = add["path"];
  // The same file named by its absolute URI, as some writers log it.
  add["path"] = "file://" + table_ + "/" + relative;
  const nlohmann::json remove{{"path", relative}, {"deletionTimestamp", 1}, {"dataChange", true}};
  const std::string actions =
      nlohmann::json{{"remove", remove}}.dump() + "\n" + nlohmann::json{{"add", add}}.dump();
  CliResult commit = RunCli({"commit", table_, "--actions", "-"}, actions);
  ASSERT_EQ(commit.exit_code, 0) << commit.err;
  EXPECT_EQ(Query(table_, "SELECT count(*), sum(id) FROM t"), std::vector<std::string>{"2,3"});
}

// The physical name of the schema's field `name` (column mapping).
std::string PhysicalName(const nlohmann::json& snapshot, const std::string& name) {
  const auto schema =
      nlohmann::json::parse(snapshot["metadata"]["schemaString"].get<std::string>());
  for (const auto& f : schema["fields"]) {
    if (f["name"] == name) return f["metadata"]["delta.columnMapping.physicalName"];
  }
  return "";
}

TEST_F(CliDataTest, AppendWritesPhysicalNamesAndFieldIdsUnderColumnMapping) {
  const std::string schema =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"integer",)"
      R"("nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},)"
      R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";
  for (const std::string mode : {"name", "id"}) {
    SCOPED_TRACE(mode);
    const std::string table = table_ + "-" + mode;
    ASSERT_EQ(RunCli({"create", table, "--schema", schema, "--partition-by", "p", "--property",
                      "delta.columnMapping.mode=" + mode})
                  .exit_code,
              0);
    CliResult snap = RunCli({"snapshot", table, "--json"});
    ASSERT_EQ(snap.exit_code, 0) << snap.err;
    const auto snapshot = nlohmann::json::parse(snap.out);
    // create assigned ids and physical names, nested fields too.
    EXPECT_EQ(snapshot["metadata"]["configuration"]["delta.columnMapping.maxColumnId"], "4");
    const std::string id = PhysicalName(snapshot, "id");
    const std::string p = PhysicalName(snapshot, "p");
    ASSERT_TRUE(id.starts_with("col-")) << snap.out;
    const std::string rows =
        "{\"id\":1,\"s\":{\"x\":7},\"p\":\"a\"}\n{\"id\":2,\"s\":null,\"p\":\"a\"}\n";
    CliResult append = RunCli({"append", table, Input("r.json", rows)});
    ASSERT_EQ(append.exit_code, 0) << append.err;
    // Read back under the logical names...
    EXPECT_EQ(Query(table, "SELECT id, s.x, p FROM t ORDER BY id"),
              (std::vector<std::string>{"1,7,a", "2,,a"}));
    // ...while the file, the partition values and the stats use physical ones.
    const nlohmann::json files = ActiveFiles(table);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_TRUE(files[0]["path"].get<std::string>().starts_with(p + "=a/")) << files[0]["path"];
    EXPECT_EQ(files[0]["partitionValues"], nlohmann::json({{p, "a"}}));
    const auto stats = nlohmann::json::parse(files[0]["stats"].get<std::string>());
    EXPECT_EQ(stats["minValues"][id], 1) << stats.dump();
    const std::string local = table + "/" + files[0]["path"].get<std::string>();
    EXPECT_EQ(Query(table, "SELECT name, field_id FROM parquet_schema('" + local +
                               "') WHERE name = '" + id + "'"),
              std::vector<std::string>{id + ",1"});
  }
}

// Column mapping across versions: a column renamed (same physical name)
// reads its old data under the new name, a dropped one is gone, one added
// again under the old name is a new column (a new physical name) that old
// files do not hold; time travel reads each version as its schema says.
TEST_F(CliDataTest, RenamedDroppedAndReAddedColumnsReadAsEachVersionSays) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long,a:string,b:string", "--property",
                    "delta.columnMapping.mode=name"})
                .exit_code,
            0);
  ASSERT_EQ(RunCli({"append", table_, Input("v1.csv", "id,a,b\n1,x,y\n")}).exit_code, 0);
  CliResult snap = RunCli({"snapshot", table_, "--json"});
  ASSERT_EQ(snap.exit_code, 0) << snap.err;
  nlohmann::json metadata = nlohmann::json::parse(snap.out)["metadata"];
  nlohmann::json schema = nlohmann::json::parse(metadata["schemaString"].get<std::string>());
  // Rename a to alpha (its physical name and id stay) and drop b.
  const nlohmann::json b = schema["fields"][2];
  schema["fields"][1]["name"] = "alpha";
  schema["fields"].erase(2);
  auto commit_schema = [&](const nlohmann::json& s) {
    metadata["schemaString"] = s.dump();
    return RunCli({"commit", table_, "--actions", "-", "--operation", "CHANGE COLUMN"},
                  nlohmann::json{{"metaData", metadata}}.dump() + "\n");
  };
  CliResult renamed = commit_schema(schema);
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  ASSERT_EQ(RunCli({"append", table_, Input("v3.csv", "id,alpha\n2,z\n")}).exit_code, 0);
  EXPECT_EQ(Query(table_, "SELECT * FROM t ORDER BY id"), (std::vector<std::string>{"1,x", "2,z"}));
  // Before the rename: the old names, b included.
  CliResult before =
      RunCli({"query", table_, "SELECT * FROM t ORDER BY id", "--version", "1", "--csv"});
  EXPECT_EQ(before.out, "id,a,b\n1,x,y\n") << before.err;
  // b again, as a new column: a new physical name and id, so the first
  // file's b (the old column) is not it.
  nlohmann::json again = b;
  again["metadata"]["delta.columnMapping.physicalName"] = "col-b-again";
  again["metadata"]["delta.columnMapping.id"] = 4;
  schema["fields"].push_back(again);
  metadata["configuration"]["delta.columnMapping.maxColumnId"] = "4";
  CliResult readded = commit_schema(schema);
  ASSERT_EQ(readded.exit_code, 0) << readded.err;
  EXPECT_EQ(Query(table_, "SELECT id, alpha, b FROM t ORDER BY id"),
            (std::vector<std::string>{"1,x,", "2,z,"}));
}

// An inline DV (Z85 of a RoaringBitmapArray in the portable format) that
// deletes rows 0 and 2; built by hand from the protocol's and Roaring's
// format texts, not by the code under test.
constexpr char kInlineDvRows0And2[] = "^Bg9^0rr910000000000iXQKl0rr91000315c8Xg00062";

TEST_F(CliDataTest, QueryLeavesOutRowsADeletionVectorRemovesAndNamesABadOne) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long", "--property",
                    "delta.enableDeletionVectors=true"})
                .exit_code,
            0);
  ASSERT_EQ(RunCli({"append", table_, Input("a.csv", "id\n10\n11\n12\n13\n")}).exit_code, 0);
  const nlohmann::json files = ActiveFiles(table_);
  ASSERT_EQ(files.size(), 1u);
  // The file's rows in their order, as DuckDB reads the file itself.
  const std::string local = table_ + "/" + files[0]["path"].get<std::string>();
  const auto in_file = Query(table_, "SELECT id FROM read_parquet('" + local + "')");
  ASSERT_EQ(in_file.size(), 4u);

  // Replace the file's add with one that carries the DV: rows 0 and 2 go.
  auto with_dv = [&](const std::string& dv) {
    nlohmann::json add = files[0];
    add["deletionVector"] = nlohmann::json::parse(dv);
    nlohmann::json remove{{"path", add["path"]}, {"deletionTimestamp", 1},
                          {"dataChange", true}, {"size", add["size"]},
                          {"partitionValues", add["partitionValues"]}};
    return nlohmann::json{{"remove", remove}}.dump() + "\n" +
           nlohmann::json{{"add", add}}.dump() + "\n";
  };
  CliResult commit = RunCli(
      {"commit", table_, "--actions", "-"},
      with_dv(std::string(R"({"storageType":"i","pathOrInlineDv":")") + kInlineDvRows0And2 +
              R"(","sizeInBytes":36,"cardinality":2})"));
  ASSERT_EQ(commit.exit_code, 0) << commit.err;
  std::vector<std::string> kept{in_file[1], in_file[3]};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(Query(table_, "SELECT CAST(id AS VARCHAR) AS i FROM t ORDER BY i"), kept);
  // Time travel to before the DV reads every row.
  CliResult before = RunCli({"query", table_, "SELECT count(*) FROM t", "--version", "1", "--csv"});
  EXPECT_EQ(before.out, "count_star()\n4\n") << before.err;

  // A DV whose bitmap disagrees with its cardinality: an error naming the
  // data file, never rows silently kept.
  const std::string path = files[0]["path"].get<std::string>();
  ASSERT_EQ(RunCli({"commit", table_, "--actions", "-"},
                   with_dv(std::string(R"({"storageType":"i","pathOrInlineDv":")") +
                           kInlineDvRows0And2 + R"(","sizeInBytes":36,"cardinality":3})"))
                .exit_code,
            0);
  CliResult bad = RunCli({"query", table_, "SELECT count(*) FROM t"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("data file " + path), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("corrupt deletion vector: it holds 2 rows, its descriptor says 3"),
            std::string::npos)
      << bad.err;
}

// Variant columns are read (as JSON, the golden corpus's test), never
// written as text in their place.
TEST_F(CliDataTest, AppendingToAVariantColumnIsRefusedNamingIt) {
  ASSERT_EQ(RunCli({"create", table_, "--schema",
                    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,)"
                    R"("metadata":{}},{"name":"v","type":"variant","nullable":true,"metadata":{}}]})"})
                .exit_code,
            0);
  CliResult append = RunCli({"append", table_, Input("v.csv", "id,v\n1,{}\n")});
  EXPECT_EQ(append.exit_code, 1);
  EXPECT_NE(append.err.find("column \"v\" holds variant values, which this build reads but does "
                            "not write"),
            std::string::npos)
      << append.err;
  EXPECT_EQ(Version(table_), 0);
}

TEST_F(CliDataTest, S3AppendAndQuery) {
  DC_REQUIRE_S3();
  auto s3 = testing::NewS3TestStore("data");
  Create(s3.uri, "id:long,x:long,p:string", "p");
  ASSERT_EQ(RunCli({"append", s3.uri, Input("a.csv", kCsv)}).exit_code, 0);
  ASSERT_EQ(RunCli({"append", s3.uri, Input("b.jsonl", kJson)}).exit_code, 0);
  EXPECT_EQ(Query(s3.uri, "SELECT count(*), sum(x), count(p) FROM t"),
            std::vector<std::string>{"8,280,6"});
  EXPECT_EQ(Query(s3.uri, "SELECT p FROM t WHERE id = 4"), std::vector<std::string>{"50%"});
}

TEST_F(CliDataTest, S3FourConcurrentAppends) {
  DC_REQUIRE_S3();
  auto s3 = testing::NewS3TestStore("data-conc");
  Create(s3.uri, "id:long,x:long");
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    std::string csv = "id,x\n";
    for (int i = 0; i < 25; ++i) csv += std::to_string(w * 25 + i) + ",1\n";
    const std::string input = Input("s" + std::to_string(w) + ".csv", csv);
    writers.emplace_back([&s3, input] {
      CliResult r = RunCli({"append", s3.uri, input, "--quiet"});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(Query(s3.uri, "SELECT count(*), count(DISTINCT id), sum(x) FROM t"),
            std::vector<std::string>{"100,100,100"});
}

}  // namespace
}  // namespace deltacommit
