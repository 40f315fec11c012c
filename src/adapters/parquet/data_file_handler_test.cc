// The DuckDB data-file adapter on local files: conversion, partition
// directories, statistics, the query view, schema inference and the errors
// for inputs that do not fit.
#include "deltacommit/parquet/data_file_handler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace deltacommit {
namespace {

constexpr char kSchema[] =
    R"({"type":"struct","fields":[)"
    R"({"name":"id","type":"long","nullable":false,"metadata":{}},)"
    R"({"name":"name","type":"string","nullable":true,"metadata":{}},)"
    R"j({"name":"amount","type":"decimal(10,2)","nullable":true,"metadata":{}},)j"
    R"({"name":"day","type":"date","nullable":true,"metadata":{}},)"
    R"({"name":"p","type":"string","nullable":true,"metadata":{}}]})";

class DataFileHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dc-data-XXXXXX";
    dir_ = mkdtemp(tmpl);
    handler_ = DuckDbDataFileHandler::Create().value();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  DataInput Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name) << content;
    return {dir_ + "/" + name, "", name, {}};
  }

  std::vector<ScanFile> Scan(const std::vector<WrittenDataFile>& files) {
    std::vector<ScanFile> out;
    for (const auto& f : files) out.push_back({f.local_path, f.partition_values, {}, {}});
    return out;
  }

  std::string dir_;
  std::unique_ptr<DuckDbDataFileHandler> handler_;
  TableLayout partitioned_{kSchema, {"p"}};
};

constexpr char kCsv[] =
    "id,name,amount,day,p\n"
    "1,ann,1.50,2024-01-01,a b\n"
    "2,bob,2.25,2024-01-02,x/y\n"
    "3,,3.00,2024-01-03,k=v\n"
    "4,dan,,2024-01-04,50%\n"
    "5,eve,5.00,,\n"
    "6,fay,6.00,2024-01-06,a b\n";

TEST_F(DataFileHandlerTest, PartitionedCsvGivesOneFilePerValueWithStats) {
  auto files = handler_->WriteDataFiles(Write("in.csv", kCsv), partitioned_, dir_);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 5u);
  std::map<std::string, const WrittenDataFile*> by_dir;
  for (const auto& f : *files) by_dir[f.table_key.substr(0, f.table_key.find("/part-"))] = &f;
  ASSERT_TRUE(by_dir.count("p=a b"));
  ASSERT_TRUE(by_dir.count("p=x%2Fy"));
  ASSERT_TRUE(by_dir.count("p=k%3Dv"));
  ASSERT_TRUE(by_dir.count("p=50%25"));
  ASSERT_TRUE(by_dir.count("p=__HIVE_DEFAULT_PARTITION__"));
  EXPECT_EQ(by_dir["p=x%2Fy"]->partition_values.at("p"), "x/y");
  EXPECT_EQ(by_dir["p=__HIVE_DEFAULT_PARTITION__"]->partition_values.at("p"), std::nullopt);
  EXPECT_TRUE(by_dir["p=50%25"]->add_path.starts_with("p=50%2525/part-"));

  const auto stats = nlohmann::json::parse(by_dir["p=a b"]->stats);
  EXPECT_EQ(stats["numRecords"], 2);
  EXPECT_EQ(stats["minValues"]["id"], 1);
  EXPECT_EQ(stats["maxValues"]["id"], 6);
  EXPECT_EQ(stats["minValues"]["name"], "ann");
  EXPECT_EQ(stats["maxValues"]["name"], "fay");
  EXPECT_DOUBLE_EQ(stats["maxValues"]["amount"].get<double>(), 6.0);
  EXPECT_EQ(stats["minValues"]["day"], "2024-01-01");
  EXPECT_EQ(stats["nullCount"]["name"], 0);
  EXPECT_FALSE(stats["nullCount"].contains("p"));  // partition columns have none
  const auto k = nlohmann::json::parse(by_dir["p=k%3Dv"]->stats);
  EXPECT_EQ(k["nullCount"]["name"], 1);
  EXPECT_FALSE(k["minValues"].contains("name"));  // all null: no min

  auto result = handler_->Query(partitioned_, Scan(*files),
                                "SELECT count(*), sum(id), sum(amount) FROM t", {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows.size(), 1u);
  EXPECT_EQ(result->rows[0][0], "6");
  EXPECT_EQ(result->rows[0][1], "21");
  EXPECT_EQ(result->rows[0][2], "17.75");
  auto values = handler_->Query(partitioned_, Scan(*files),
                                "SELECT string_agg(coalesce(p, 'NULL'), '|' ORDER BY id) FROM t",
                                {});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(values->rows[0][0], "a b|x/y|k=v|50%|NULL|a b");
}

TEST_F(DataFileHandlerTest, TypedPartitionValuesAreSerializedAndReadBackTyped) {
  const TableLayout layout{
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
      R"({"name":"n","type":"integer","nullable":true,"metadata":{}}]})",
      {"ts", "n"}};
  auto files = handler_->WriteDataFiles(
      Write("ts.csv", "id,ts,n\n1,2024-01-01 10:00:00.5,1\n2,,\n"), layout, dir_);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u);
  std::map<std::string, NullableStringMap> by_id;
  for (const auto& f : *files) {
    by_id[nlohmann::json::parse(f.stats)["minValues"]["id"].dump()] = f.partition_values;
  }
  EXPECT_EQ(by_id["1"].at("ts"), "2024-01-01 10:00:00.500000");
  EXPECT_EQ(by_id["1"].at("n"), "1");
  EXPECT_EQ(by_id["2"].at("ts"), std::nullopt);
  auto result = handler_->Query(layout, Scan(*files),
                                "SELECT id, ts, n + 1 FROM t ORDER BY id", {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows.size(), 2u);
  EXPECT_EQ(result->rows[0][1], "2024-01-01 10:00:00.5+00");
  EXPECT_EQ(result->rows[0][2], "2");
  EXPECT_EQ(result->rows[1][1], std::nullopt);
}

TEST_F(DataFileHandlerTest, JsonLinesAndParquetInputs) {
  TableLayout flat{kSchema, {}};
  auto json = handler_->WriteDataFiles(
      Write("in.jsonl", R"({"id":1,"name":"a","amount":1.5,"day":"2024-02-01","p":"q"}
{"id":2,"name":null,"amount":2,"day":null,"p":null}
)"),
      flat, dir_);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  ASSERT_EQ(json->size(), 1u);
  EXPECT_EQ(json->at(0).table_key.find('/'), std::string::npos);
  // The Parquet file just written is an input too (its columns by name).
  DataInput parquet{json->at(0).local_path, "", "written.parquet", {}};
  auto again = handler_->WriteDataFiles(parquet, flat, dir_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto files = *json;
  files.insert(files.end(), again->begin(), again->end());
  auto result = handler_->Query(flat, Scan(files), "SELECT count(*), sum(id) FROM t",
                                QueryShape{true, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows.size(), 1u);
  const auto row = nlohmann::json::parse(*result->rows[0][0]);
  EXPECT_EQ(row["count_star()"], 4);
  EXPECT_EQ(row["sum(id)"], 6);
  // The one JSON column does not hide the result's own columns and types.
  EXPECT_EQ(result->columns, (std::vector<std::string>{"count_star()", "sum(id)"}));
  ASSERT_EQ(result->column_types.size(), 2u);
  EXPECT_EQ(result->column_types[0], "BIGINT");
}

TEST_F(DataFileHandlerTest, InputsThatDoNotFitNameTheColumn) {
  auto expect_error = [&](const std::string& csv, const std::string& needle) {
    auto r = handler_->WriteDataFiles(Write("bad.csv", csv), partitioned_, dir_);
    ASSERT_FALSE(r.ok()) << csv;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  expect_error("id,name,amount,day\n1,a,1,2024-01-01\n", "no column \"p\"");
  expect_error("id,name,amount,day,p,extra\n1,a,1,2024-01-01,x,9\n", "column \"extra\"");
  expect_error("id,name,amount,day,p\nabc,a,1,2024-01-01,x\n", "column \"id\" is long");
  expect_error("id,name,amount,day,p\n1.5,a,1,2024-01-01,x\n", "column \"id\" is long");
  expect_error("id,name,amount,day,p\n 7e2,a,1,2024-01-01,x\n", "column \"id\" is long");
  expect_error("id,name,amount,day,p\n1,a,1,2024-13-45,x\n", "column \"day\" is date");
  expect_error("id,name,amount,day,p\n,a,1,2024-01-01,x\n", "\"id\" is not nullable");
  expect_error("", "is empty");
  auto missing = handler_->WriteDataFiles({dir_ + "/nope.csv", "", "nope.csv", {}}, partitioned_, dir_);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.csv"), std::string::npos);
}

TEST_F(DataFileHandlerTest, InfersSchemaFromCsv) {
  auto schema = handler_->InferSchemaString(Write("s.csv", "id,name,price,day\n1,a,1.5,2024-01-01\n"));
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const auto fields = nlohmann::json::parse(*schema)["fields"];
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0]["name"], "id");
  EXPECT_EQ(fields[0]["type"], "long");
  EXPECT_EQ(fields[1]["type"], "string");
  EXPECT_EQ(fields[2]["type"], "double");
  EXPECT_EQ(fields[3]["type"], "date");
}

TEST_F(DataFileHandlerTest, StatsCoverTheConfiguredNumberOfDataColumns) {
  TableLayout one{kSchema, {"p"}, 1};
  auto files = handler_->WriteDataFiles(Write("in.csv", kCsv), one, dir_);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const auto stats = nlohmann::json::parse(files->at(0).stats);
  EXPECT_TRUE(stats["nullCount"].contains("id"));
  EXPECT_FALSE(stats["nullCount"].contains("name"));
  EXPECT_FALSE(stats["minValues"].contains("amount"));
  TableLayout all{kSchema, {"p"}, -1};
  files = handler_->WriteDataFiles(Write("in.csv", kCsv), all, dir_);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_TRUE(nlohmann::json::parse(files->at(0).stats)["nullCount"].contains("day"));
}

TEST_F(DataFileHandlerTest, EmptyTableQueriesToNoRows) {
  auto result = handler_->Query(partitioned_, {}, "SELECT count(*) FROM t", {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->rows[0][0], "0");
}

}  // namespace
}  // namespace deltacommit
