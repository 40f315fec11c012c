// The rows of a markdown table in a doc page, for the tests that keep a
// page true row by row (docs/bad-inputs.md).
//
// Thread-safety: pure functions (they read the file).
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace deltacommit::testing {

// The rows of the table under the heading "## <section>" of `path`, cells
// trimmed and one layer of backticks taken off, without the header row.
// Empty when the file or the section is missing.
inline std::vector<std::vector<std::string>> DocTableRows(const std::string& path,
                                                          const std::string& section) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  bool inside = false, header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) inside = line == "## " + section;
    if (!inside || !line.starts_with("|") || line.starts_with("|---")) continue;
    std::vector<std::string> cells;
    std::stringstream parts(line.substr(1));
    for (std::string cell; std::getline(parts, cell, '|');) {
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') {
        cell = cell.substr(1, cell.size() - 2);
      }
      cells.push_back(cell);
    }
    if (!std::exchange(header, false)) rows.push_back(std::move(cells));
  }
  return rows;
}

// `text` with every `from` replaced by `to`.
inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace deltacommit::testing
