// `query`'s statements and answers on local files: several statements with
// the last one answering, statements that are not queries passed through,
// nested values as JSON, decimals exactly, rows written to a file whole or
// not at all, and errors that name the SQL as the user wrote it, once.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace {

constexpr char kSchema[] =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"j({"name":"amount","type":"decimal(38,10)","nullable":true,"metadata":{}}]})j";

class DataQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-query-XXXXXX";
    dir_ = mkdtemp(tmpl);
    handler_ = DuckDbDataFileHandler::Create().value();
    std::ofstream(dir_ + "/in.csv") << "id,amount\n"
                                    << "1,12345678901234567890.1234567890\n"
                                    << "2,0.0000000001\n"
                                    << "3,\n";
    auto written = handler_->WriteDataFiles({dir_ + "/in.csv", "", "in.csv", {}}, layout_, dir_);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    for (const auto& f : *written) files_.push_back({f.local_path, f.partition_values, {}, {}});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  StatusOr<QueryResult> Run(const std::string& sql, QueryShape shape = {}) {
    return handler_->Query(layout_, files_, sql, shape);
  }
  QueryShape ToFile(const std::string& name, std::string format = "", bool overwrite = false) {
    return QueryShape{false, QueryOutputFile{dir_ + "/" + name, std::move(format), overwrite}};
  }
  // What DuckDB reads back from a file we wrote: its rows as text.
  std::vector<std::string> ReadBack(const std::string& source) {
    auto r = Run("SELECT CAST(COLUMNS(*) AS VARCHAR) FROM " + source + " ORDER BY 1");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const auto& row : r->rows) {
      std::string line;
      for (const auto& cell : row) line += (line.empty() ? "" : "|") + cell.value_or("NULL");
      out.push_back(line);
    }
    return out;
  }
  // The names in dir_ but the input and the data files' folder.
  std::vector<std::string> OtherFiles() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name != "in.csv" && !name.starts_with("write-")) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_;
  std::unique_ptr<DuckDbDataFileHandler> handler_;
  TableLayout layout_{kSchema, {}};
  std::vector<ScanFile> files_;
};

TEST_F(DataQueryTest, DecimalsKeepEveryDigitAsTextAndAsJson) {
  auto text = Run("SELECT amount FROM t ORDER BY id");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ASSERT_EQ(text->rows.size(), 3u);
  EXPECT_EQ(text->rows[0][0], "12345678901234567890.1234567890");
  EXPECT_EQ(text->rows[1][0], "0.0000000001");
  EXPECT_EQ(text->rows[2][0], std::nullopt);
  EXPECT_EQ(text->column_types, std::vector<std::string>{"DECIMAL(38,10)"});

  auto json = Run("SELECT id, amount FROM t ORDER BY id", {true, {}});
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  ASSERT_EQ(json->rows.size(), 3u);
  EXPECT_EQ(json->rows[0][0], R"({"id":1,"amount":12345678901234567890.1234567890})");
  EXPECT_EQ(json->rows[1][0], R"({"id":2,"amount":0.0000000001})");
  EXPECT_EQ(json->rows[2][0], R"({"id":3,"amount":null})");
  EXPECT_EQ(json->columns, (std::vector<std::string>{"id", "amount"}));
  EXPECT_EQ(json->column_types, (std::vector<std::string>{"BIGINT", "DECIMAL(38,10)"}));
}

TEST_F(DataQueryTest, NestedValuesPrintAsJson) {
  auto r =
      Run("SELECT {'k': [id, 2], 's': 'a\"b'} AS st, [1.5, NULL] AS l, MAP {'x': id} AS m, "
          "[id, id]::BIGINT[2] AS a, 'plain' AS p FROM t WHERE id = 1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0][0], R"({"k":[1,2],"s":"a\"b"})");
  EXPECT_EQ(r->rows[0][1], "[1.5,null]");
  EXPECT_EQ(r->rows[0][2], R"({"x":1})");
  EXPECT_EQ(r->rows[0][3], "[1,1]");
  EXPECT_EQ(r->rows[0][4], "plain");
}

TEST_F(DataQueryTest, StatementsRunInOrderAndTheLastOneAnswers) {
  auto r =
      Run("SET threads = 1; CREATE TEMP TABLE x AS SELECT sum(id) AS s FROM t;\n"
          "SELECT s * 2 AS twice, ';' AS semi FROM x -- the answer;");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"twice", "semi"}));
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0][0], "12");
  EXPECT_EQ(r->rows[0][1], ";");
}

TEST_F(DataQueryTest, QueriesOtherThanSelectAreReadAsRows) {
  auto pivot = Run("PIVOT (SELECT id, id * 10 AS v FROM t) ON id USING sum(v)");
  ASSERT_TRUE(pivot.ok()) << pivot.status().ToString();
  EXPECT_EQ(pivot->columns, (std::vector<std::string>{"1", "2", "3"}));
  ASSERT_EQ(pivot->rows.size(), 1u);
  EXPECT_EQ(pivot->rows[0][2], "30");
  auto describe = Run("DESCRIBE t");
  ASSERT_TRUE(describe.ok()) << describe.status().ToString();
  ASSERT_EQ(describe->rows.size(), 2u);
  EXPECT_EQ(describe->rows[1][1], "DECIMAL(38,10)");
}

TEST_F(DataQueryTest, CopyToAFileRunsAsWritten) {
  const std::string out = dir_ + "/copied.parquet";
  auto r = Run("COPY (SELECT id, amount FROM t WHERE amount IS NOT NULL) TO '" + out +
               "' (FORMAT parquet)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0][0], "2");  // COPY's own answer: the rows it wrote
  EXPECT_TRUE(r->column_types.empty());
  EXPECT_EQ(ReadBack("'" + out + "'"),
            (std::vector<std::string>{"1|12345678901234567890.1234567890", "2|0.0000000001"}));
  // EXPLAIN as JSON rows: objects of its text columns.
  auto explain = Run("EXPLAIN SELECT 1", {true, {}});
  ASSERT_TRUE(explain.ok()) << explain.status().ToString();
  ASSERT_FALSE(explain->rows.empty());
  EXPECT_EQ(nlohmann::json::parse(*explain->rows[0][0])["explain_key"], "physical_plan");
  // COPY's count as a JSON number.
  auto copied = Run("COPY (SELECT id FROM t) TO '" + dir_ + "/ids.csv'", {true, {}});
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(copied->rows,
            (std::vector<std::vector<std::optional<std::string>>>{{R"({"Count":3})"}}));
}

TEST_F(DataQueryTest, OutputFilesInEachFormat) {
  const std::string sql = "SELECT id, amount, [id] AS l FROM t ORDER BY id";
  auto parquet = Run(sql, ToFile("out.parquet"));
  ASSERT_TRUE(parquet.ok()) << parquet.status().ToString();
  EXPECT_EQ(parquet->rows_written, 3);
  EXPECT_TRUE(parquet->rows.empty());
  EXPECT_EQ(ReadBack("'" + dir_ + "/out.parquet'"),
            (std::vector<std::string>{"1|12345678901234567890.1234567890|[1]", "2|0.0000000001|[2]",
                                      "3|NULL|[3]"}));
  // CSV: a header line, nested values as JSON.
  auto csv = Run(sql, ToFile("out.CSV"));
  ASSERT_TRUE(csv.ok()) << csv.status().ToString();
  EXPECT_EQ(csv->rows_written, 3);
  std::ifstream in(dir_ + "/out.CSV");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "id,amount,l\n1,12345678901234567890.1234567890,[1]\n2,0.0000000001,[2]\n3,,[3]\n");
  // JSON lines, by extension or by the format given.
  for (const auto& [name, format] : {std::pair{"out.jsonl", ""}, std::pair{"rows.txt", "JSON"}}) {
    auto json = Run(sql, ToFile(name, format));
    ASSERT_TRUE(json.ok()) << name << ": " << json.status().ToString();
    std::ifstream lines(dir_ + "/" + name);
    std::string first;
    std::getline(lines, first);
    EXPECT_EQ(nlohmann::json::parse(first)["l"], nlohmann::json::array({1})) << name;
  }
  EXPECT_EQ(OtherFiles(),
            (std::vector<std::string>{"out.CSV", "out.jsonl", "out.parquet", "rows.txt"}));
}

TEST_F(DataQueryTest, AnExistingOutputIsKeptUnlessOverwriteIsAsked) {
  std::ofstream(dir_ + "/out.csv") << "precious\n";
  auto refused = Run("SELECT id FROM t", ToFile("out.csv"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("exists already"), std::string::npos)
      << refused.status().ToString();
  std::ifstream kept(dir_ + "/out.csv");
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "precious");
  EXPECT_EQ(OtherFiles(), std::vector<std::string>{"out.csv"});  // no temporary file left

  auto replaced = Run("SELECT id FROM t", ToFile("out.csv", "", true));
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->rows_written, 3);
  EXPECT_EQ(ReadBack("read_csv('" + dir_ + "/out.csv')"),
            (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(OtherFiles(), std::vector<std::string>{"out.csv"});
}

TEST_F(DataQueryTest, AFailedQueryLeavesNoOutputFile) {
  auto failed = Run("SELECT CAST('x' || id AS INTEGER) FROM t", ToFile("out.parquet"));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("Conversion Error"), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(OtherFiles(), std::vector<std::string>{});
}

TEST_F(DataQueryTest, OutputRequestsThatCannotBeMetAreRefused) {
  auto unknown = Run("SELECT 1", ToFile("out.xlsx"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("cannot tell its format"), std::string::npos);
  auto bad_format = Run("SELECT 1", ToFile("out.csv", "orc"));
  ASSERT_FALSE(bad_format.ok());
  EXPECT_NE(bad_format.status().message().find("\"orc\" is not one of parquet, csv, json"),
            std::string::npos);
  auto not_a_query = Run("SET threads = 1", ToFile("out.csv"));
  ASSERT_FALSE(not_a_query.ok());
  EXPECT_NE(not_a_query.status().message().find("takes a query"), std::string::npos);
  auto no_dir = Run("SELECT 1", ToFile("missing/out.csv"));
  ASSERT_FALSE(no_dir.ok());
  EXPECT_NE(no_dir.status().message().find("missing/out.csv"), std::string::npos);
  EXPECT_EQ(OtherFiles(), std::vector<std::string>{});
}

TEST_F(DataQueryTest, AColumnNoFileHoldsReadsAsNull) {
  // A column added to the schema after the files were written.
  const std::string later = std::string(kSchema).substr(0, std::string(kSchema).size() - 2) +
                            R"(,{"name":"later","type":"string","nullable":true,"metadata":{}}]})";
  auto r = handler_->Query({later, {}}, files_, "SELECT count(*), count(later) FROM t", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows[0][0], "3");
  EXPECT_EQ(r->rows[0][1], "0");
}

TEST_F(DataQueryTest, ErrorsNameTheStatementAsWrittenOnce) {
  auto parse = Run("SELEC id FROM t");
  ASSERT_FALSE(parse.ok());
  const std::string message = parse.status().ToString();
  EXPECT_NE(message.find("LINE 1: SELEC id FROM t"), std::string::npos) << message;
  EXPECT_EQ(message.find("LINE 1"), message.rfind("LINE 1")) << message;
  EXPECT_EQ(message.find("__dc_q"), std::string::npos) << message;

  auto bind = Run("SELECT nope FROM t");
  ASSERT_FALSE(bind.ok());
  EXPECT_NE(bind.status().message().find("\"nope\" not found"), std::string::npos)
      << bind.status().ToString();

  auto second = Run("SELECT 1; SELEC 2; SELECT 3");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("statement 2 of 3"), std::string::npos)
      << second.status().ToString();

  auto empty = Run(" ; -- nothing\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "query: no SQL statement given");
}

}  // namespace
}  // namespace deltacommit
