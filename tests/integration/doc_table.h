// The rows of a markdown table in a doc page, for the tests that keep a
// page true row by row (docs/bad-inputs.md).
//
// Thread-safety: pure functions (they read the file).
#pragma once

#include <cstdlib>
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

// A body cell: "raw: `text`" is the text as it stands; anything else is
// itself.
inline std::string RawBody(const std::string& cell) {
  if (!cell.starts_with("raw: ")) return cell;
  std::string raw = cell.substr(5);
  if (raw.size() >= 2 && raw.front() == '`' && raw.back() == '`') raw = raw.substr(1, raw.size() - 2);
  return raw;
}

// One row of an API section of docs/bad-inputs.md: | Bad request | Token |
// Request ("METHOD /path") | Body | Status | Code | Error says |.
struct RequestRow {
  std::string what, token, method, path, body;
  int status = 0;
  std::string code, says;
};

// The rows of `section`, with `fill` applied to the path, the body and the
// message. A row that is not seven cells, or whose request is not "METHOD
// /path", is returned with status 0 (the test then fails naming it).
template <typename Fill>
std::vector<RequestRow> DocRequestRows(const std::string& path, const std::string& section,
                                       Fill fill) {
  std::vector<RequestRow> rows;
  for (const std::vector<std::string>& cells : DocTableRows(path, section)) {
    RequestRow row;
    row.what = cells.empty() ? "" : cells[0];
    const size_t space = cells.size() == 7 ? cells[2].find(' ') : std::string::npos;
    if (space != std::string::npos) {
      row.token = cells[1];
      row.method = cells[2].substr(0, space);
      row.path = fill(cells[2].substr(space + 1));
      row.body = RawBody(fill(cells[3]));
      row.status = std::atoi(cells[4].c_str());
      row.code = cells[5];
      row.says = fill(cells[6]);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace deltacommit::testing
