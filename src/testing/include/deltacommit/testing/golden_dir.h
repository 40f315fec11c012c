// Where the golden Delta tables (shared/delta-golden/tables) are, for tests.
//
// scripts/test.sh sets DELTACOMMIT_GOLDEN_DIR (and fails in CI when the
// folder is absent), so a test that skips for lack of data cannot hide in CI.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace deltacommit {

inline constexpr const char* kGoldenDirVariable = "DELTACOMMIT_GOLDEN_DIR";

// The directory from DELTACOMMIT_GOLDEN_DIR, else ../shared/delta-golden/tables
// relative to the source tree, if it exists.
std::optional<std::filesystem::path> GoldenTablesDir();

// "golden tables not found: set DELTACOMMIT_GOLDEN_DIR to
// shared/delta-golden/tables"
std::string GoldenTablesMissingMessage();

// A gtest-safe test name for a golden table directory ("" -> "NoTablesListed",
// the placeholder case that skips when the corpus is absent).
std::string GoldenCaseName(const std::string& table);

}  // namespace deltacommit
