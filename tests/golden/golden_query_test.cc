// `query` on every table of the Delta project's golden corpus against an
// independent reader: the rows of `SELECT * FROM t` equal what hyparquet
// (plain JavaScript) reads from the same active files, under the logical
// names that tests/parquet/read_table_rows.mjs maps itself (column
// mapping), less the rows its own deletion-vector decoder removes. Rows are
// compared as multisets, each value in a form both readers can give:
// numbers with a fraction to a relative 1e-6 (hyparquet reads decimals as
// doubles), dates as YYYY-MM-DD, timestamps to the millisecond (a
// JavaScript Date holds no more), binary as hex, variants as the JSON
// values both decode from their binary encoding. A table whose log cannot
// be read must make `query` fail as the snapshot does; the log-only tables
// whose schema is empty must fail naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/core/percent_encoding.h"
#include "deltacommit/table.h"
#include "deltacommit/testing/golden_dir.h"
#include "parquet/hyparquet.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;

bool HasLog(const fs::path& dir) { return fs::is_directory(dir / "_delta_log"); }

// Every table of the corpus (a folder with a _delta_log, or one level below
// a folder without), or one empty case that skips when it is absent.
std::vector<std::string> Cases() {
  std::vector<std::string> out;
  const auto golden = GoldenTablesDir();
  if (golden && fs::is_directory(*golden)) {
    for (const auto& entry : fs::directory_iterator(*golden)) {
      if (!entry.is_directory()) continue;
      const std::string name = entry.path().filename().string();
      if (HasLog(entry.path())) {
        out.push_back(name);
        continue;
      }
      for (const auto& sub : fs::directory_iterator(entry.path())) {
        if (sub.is_directory() && HasLog(sub.path())) {
          out.push_back(name + "/" + sub.path().filename().string());
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) out.push_back("");
  return out;
}

// Tables `query` refuses, and the words its error must hold: a type it
// cannot read yet, and log-only tables whose metaData has an empty
// schemaString.
const std::map<std::string, std::string> kRefused = {
    {"canonicalized-paths-normal-a", "schema: not valid JSON"},
    {"canonicalized-paths-normal-b", "schema: not valid JSON"},
    {"canonicalized-paths-special-a", "schema: not valid JSON"},
    {"canonicalized-paths-special-b", "schema: not valid JSON"},
};

// ---- values in a form both readers give ------------------------------------

std::string Hex(const std::vector<unsigned char>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) out += std::string{kHex[b >> 4], kHex[b & 15]};
  return out;
}

// DuckDB's text of a BLOB ("a\x00b") or hyparquet's bytes ({"0": 97, ...}).
std::string BinaryHex(const nlohmann::json& v) {
  std::vector<unsigned char> bytes;
  if (v.is_object()) {
    for (size_t i = 0; i < v.size(); ++i)
      bytes.push_back(v.at(std::to_string(i)).get<unsigned char>());
  } else if (v.is_array()) {
    for (const auto& b : v) bytes.push_back(b.get<unsigned char>());
  } else {
    const std::string s = v.get<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
        bytes.push_back(static_cast<unsigned char>(std::stoi(s.substr(i + 2, 2), nullptr, 16)));
        i += 3;
      } else {
        bytes.push_back(static_cast<unsigned char>(s[i]));
      }
    }
  }
  return Hex(bytes);
}

// "2021-11-18 02:30:00.123456+00", "2021-11-18T02:30:00.123Z" -> digits to
// the millisecond: "20211118023000123".
std::string TimestampMillis(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c == '+' || c == 'Z') break;
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  digits.resize(17, '0');
  return digits;
}

std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// A nested value with every number as text: hyparquet gives 64-bit
// integers beyond 2^53 as strings.
nlohmann::json NumbersAsText(const nlohmann::json& v) {
  if (v.is_number()) return v.dump();
  if (!v.is_structured()) return v;
  nlohmann::json out = v.is_object() ? nlohmann::json::object() : nlohmann::json::array();
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (v.is_object()) {
      out[it.key()] = NumbersAsText(it.value());
    } else {
      out.push_back(NumbersAsText(it.value()));
    }
  }
  return out;
}

// A cell of a top-level column of Delta type `type` in comparable form.
// Nested values are compared whole only when nothing inside needs the
// forms above; else they are left out (the test says so).
std::string Comparable(const nlohmann::json& v, const std::string& type) {
  if (v.is_null()) return "null";
  if (type.starts_with("{") || type == "variant") return NumbersAsText(v).dump();
  if (type == "date") return Text(v).substr(0, 10);
  if (type == "timestamp" || type == "timestamp_ntz") return TimestampMillis(Text(v));
  if (type == "binary") return BinaryHex(v);
  if (type == "float" || type == "double" || type.starts_with("decimal")) {
    const double d = v.is_number() ? v.get<double>() : std::stod(Text(v));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", d);
    return buffer;
  }
  return Text(v);
}

// Nested types holding values the two readers write differently: those
// above, and map keys that are not primitive (each reader has its own text
// for a list as a key).
bool NestedNeedsForms(const std::string& type) {
  for (const char* t : {"\"float\"", "\"double\"", "\"date\"", "\"timestamp", "\"binary\"",
                        "\"decimal", "\"keyType\":{"}) {
    if (type.find(t) != std::string::npos) return true;
  }
  return false;
}

// The rows as sorted "col=value;..." lines over `columns` (name -> type).
std::vector<std::string> Canonical(
    const nlohmann::json& rows, const std::vector<std::pair<std::string, std::string>>& columns) {
  std::vector<std::string> out;
  for (const auto& row : rows) {
    std::string line;
    for (const auto& [name, type] : columns) {
      const nlohmann::json v = row.contains(name) ? row[name] : nlohmann::json(nullptr);
      line += name + "=" + Comparable(v, type) + ";";
    }
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr size_t kRowByRowLimit = 100'000;

bool IsNumeric(const std::string& type) {
  return type == "byte" || type == "short" || type == "integer" || type == "long" ||
         type == "float" || type == "double" || type.starts_with("decimal");
}

std::string Quoted(const std::string& name) { return "\"" + name + "\""; }

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
  if (GetParam().empty()) GTEST_SKIP() << GoldenTablesMissingMessage();
  DC_REQUIRE_HYPARQUET();
  const std::string name = GetParam();
  const std::string root = (*GoldenTablesDir() / name).string();
  auto table = OpenTable(root, {});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto snapshot = table->Snapshot();
  auto result = table->Query("SELECT * FROM t", QueryOptions{std::nullopt, true, {}, ""});
  if (!snapshot.ok()) {
    // A must-fail table: query fails as the snapshot does.
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_EQ(result.status().code(), snapshot.status().code()) << result.status().ToString();
    return;
  }
  if (auto refused = kRefused.find(name); refused != kRefused.end()) {
    ASSERT_FALSE(result.ok()) << name;
    EXPECT_NE(result.status().message().find(refused->second), std::string::npos)
        << result.status().ToString();
    return;
  }
  // Log-only tables (their adds name files the corpus does not hold): the
  // query fails naming the missing file.
  for (const auto& [key, add] : (*snapshot)->active_files()) {
    auto local = PercentDecode(add.path);
    if (local.ok() && fs::exists(root + "/" + *local)) continue;
    ASSERT_FALSE(result.ok()) << name << ": " << add.path << " is missing, yet query answered";
    EXPECT_EQ(result.status().code(), StatusCode::kNotFound) << result.status().ToString();
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status().ToString();

  nlohmann::json files = nlohmann::json::array();
  for (const auto& [key, add] : (*snapshot)->active_files()) {
    nlohmann::json f{{"path", add.path}, {"partitionValues", nlohmann::json::object()}};
    for (const auto& [k, v] : add.partition_values) {
      f["partitionValues"][k] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    }
    if (add.deletion_vector) f["deletionVector"] = DescriptorJson(*add.deletion_vector);
    files.push_back(f);
  }
  if (files.empty()) {
    EXPECT_TRUE(result->rows.empty()) << name;
    return;
  }
  const Metadata& metadata = (*snapshot)->metadata();
  const auto mode = metadata.configuration.find("delta.columnMapping.mode");
  const nlohmann::json schema = nlohmann::json::parse(metadata.schema_string);
  nlohmann::json table_json{{"root", root},
                            {"files", files},
                            {"schema", schema},
                            {"partitionColumns", metadata.partition_columns},
                            {"mode", mode == metadata.configuration.end() ? "none" : mode->second}};
  // Tables of a million rows: compared by row count and column sums (row
  // by row, the test's own JSON handling would take most of a minute).
  if (result->rows.size() > kRowByRowLimit) {
    std::vector<std::string> numeric;
    std::string sql = "SELECT count(*)";
    for (const auto& field : schema["fields"]) {
      if (!field["type"].is_string() || !IsNumeric(field["type"].get<std::string>())) continue;
      numeric.push_back(field["name"]);
      sql += ", sum(CAST(" + Quoted(numeric.back()) + " AS DOUBLE))";
    }
    table_json["sumColumns"] = numeric;
    auto sums = table->Query(sql + " FROM t");
    ASSERT_TRUE(sums.ok()) << sums.status().ToString();
    const std::string list = ::testing::TempDir() + "/golden-query-sums.json";
    std::ofstream(list) << table_json.dump();
    const nlohmann::json expected = hyparquet::ReadTableRowsWithHyparquet(list);
    ASSERT_TRUE(expected.contains("count")) << expected.dump();
    EXPECT_EQ(sums->rows[0][0], std::to_string(expected["count"].get<int64_t>())) << name;
    for (size_t i = 0; i < numeric.size(); ++i) {
      const double ours = std::stod(sums->rows[0][i + 1].value_or("0"));
      const double theirs = expected["sums"][numeric[i]].get<double>();
      EXPECT_NEAR(ours, theirs, 1e-9 * std::max(1.0, std::abs(theirs)))
          << name << "." << numeric[i];
    }
    return;
  }
  nlohmann::json ours = nlohmann::json::array();
  for (const auto& row : result->rows) ours.push_back(nlohmann::json::parse(row.at(0).value()));
  std::string list_name = name;
  std::replace(list_name.begin(), list_name.end(), '/', '_');
  const std::string list = ::testing::TempDir() + "/golden-query-" + list_name + ".json";
  std::ofstream(list) << table_json.dump();
  const nlohmann::json expected = hyparquet::ReadTableRowsWithHyparquet(list);
  ASSERT_TRUE(expected.contains("rows")) << expected.dump();

  std::vector<std::pair<std::string, std::string>> columns;
  std::vector<std::string> left_out;
  for (const auto& field : schema["fields"]) {
    const std::string type =
        field["type"].is_string() ? field["type"].get<std::string>() : field["type"].dump();
    if (!field["type"].is_string() && NestedNeedsForms(type)) {
      left_out.push_back(field["name"]);
      continue;
    }
    columns.emplace_back(field["name"], type);
  }
  EXPECT_EQ(Canonical(ours, columns), Canonical(expected["rows"], columns))
      << name << ": " << files.size()
      << " files; nested columns left out: " << ::testing::PrintToString(left_out);
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenQueryTest, ::testing::ValuesIn(Cases()),
                         [](const auto& param_info) { return GoldenCaseName(param_info.param); });

}  // namespace
}  // namespace deltacommit
