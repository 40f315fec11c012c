// The independent Parquet reader of the tests: npm hyparquet (plain
// JavaScript, no DuckDB) run by node on tests/parquet/read_parquet.mjs.
// hyparquet is installed by scripts/fetch-hyparquet.sh into .deps, or into
// $DELTACOMMIT_HYPARQUET_DIR. Targets using this define DC_SOURCE_DIR (the
// source tree) and have tests/ on their include path.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/test_servers.h"

namespace deltacommit::hyparquet {

inline std::string HyparquetDir() {
  const char* dir = std::getenv("DELTACOMMIT_HYPARQUET_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return std::string(DC_SOURCE_DIR) + "/.deps/hyparquet/node_modules/hyparquet";
}

// Why hyparquet cannot be used here (node or the package missing), or
// nullopt.
inline std::optional<std::string> HyparquetUnavailable() {
  if (std::system("node --version >/dev/null 2>&1") != 0) return "node is not installed";
  if (!std::filesystem::exists(HyparquetDir() + "/src/index.js")) {
    return "hyparquet is not installed in " + HyparquetDir() + " (run scripts/setup.sh)";
  }
  return std::nullopt;
}

// What tests/parquet/SCRIPT prints (JSON) when node runs it on hyparquet
// and `argument`; a failed run fails the test and gives null.
inline nlohmann::json RunScript(const std::string& script, const std::string& argument) {
  const std::string command = "node " + std::string(DC_SOURCE_DIR) + "/tests/parquet/" + script +
                              " '" + HyparquetDir() + "' '" + argument + "'";
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen " << command;
    return nullptr;
  }
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int rc = ::pclose(pipe);
  EXPECT_EQ(rc, 0) << command;
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  return j;
}

// {"schema": [...], "rows": [...]} as tests/parquet/read_parquet.mjs prints
// it for the local `file`.
inline nlohmann::json ReadWithHyparquet(const std::string& file) {
  return RunScript("read_parquet.mjs", file);
}

// {"rows": [...]}: the rows of the files `files_json` lists, less those
// their deletion vectors remove, as tests/parquet/read_table_rows.mjs reads
// them.
inline nlohmann::json ReadTableRowsWithHyparquet(const std::string& files_json) {
  return RunScript("read_table_rows.mjs", files_json);
}

}  // namespace deltacommit::hyparquet

// Skips (locally) or fails (CI) when hyparquet or node is missing.
#define DC_REQUIRE_HYPARQUET() \
  DC_REQUIRE_SERVER(::deltacommit::hyparquet::HyparquetUnavailable())
