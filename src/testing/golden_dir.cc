#include "deltacommit/testing/golden_dir.h"

#include <cctype>
#include <cstdlib>

namespace deltacommit {

std::optional<std::filesystem::path> GoldenTablesDir() {
  std::error_code ec;
  if (const char* dir = std::getenv(kGoldenDirVariable);
      dir != nullptr && *dir != '\0') {
    if (std::filesystem::is_directory(dir, ec))
      return std::filesystem::path(dir);
    return std::nullopt;
  }
  // The checkout's sibling, as laid out for developers and CI.
  const std::filesystem::path beside =
      std::filesystem::path(DELTACOMMIT_SOURCE_DIR) / ".." / "shared" /
      "delta-golden" / "tables";
  if (std::filesystem::is_directory(beside, ec))
    return beside.lexically_normal();
  return std::nullopt;
}

std::string GoldenTablesMissingMessage() {
  return std::string("golden tables not found: set ") + kGoldenDirVariable +
         " to the shared/delta-golden/tables folder (expected beside the "
         "checkout)";
}

std::string GoldenCaseName(const std::string& table) {
  if (table.empty()) return "NoTablesListed";
  std::string name = table;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

}  // namespace deltacommit
