#include "adapters/parquet/data_input.h"

#include <cctype>
#include <fstream>
#include <string_view>

namespace deltacommit::data_internal {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

StatusOr<std::string> InputFormat(const DataInput& input) {
  std::ifstream in(input.path, std::ios::binary);
  if (!in) return InvalidArgumentError("input \"" + input.label + "\": cannot open file");
  if (in.peek() == std::ifstream::traits_type::eof()) {
    return InvalidArgumentError("input \"" + input.label + "\" is empty");
  }
  if (!input.format.empty()) {
    if (input.format == "csv" || input.format == "json" || input.format == "parquet") {
      return input.format;
    }
    return InvalidArgumentError("--format \"" + input.format +
                                "\": expected csv, json (JSON lines) or parquet");
  }
  const std::string_view name = input.path;
  if (EndsWith(name, ".csv") || EndsWith(name, ".tsv")) return std::string("csv");
  if (EndsWith(name, ".json") || EndsWith(name, ".jsonl") || EndsWith(name, ".ndjson")) {
    return std::string("json");
  }
  if (EndsWith(name, ".parquet")) return std::string("parquet");
  // No telling name (stdin): "PAR1" starts a Parquet file; a JSON line
  // starts with '{'; anything else is taken as CSV.
  char head[4] = {};
  in.read(head, sizeof head);
  if (in.gcount() == 4 && std::string_view(head, 4) == "PAR1") return std::string("parquet");
  in.clear();
  in.seekg(0);
  char c = 0;
  while (in.get(c)) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return std::string(c == '{' ? "json" : "csv");
  }
  return std::string("csv");
}

std::string InputSource(const DataInput& input, const std::string& format, bool text_columns) {
  const std::string path = SqlString(input.path);
  if (format == "parquet") return "read_parquet(" + path + ")";
  if (format == "json") return "read_json(" + path + ", format = 'newline_delimited')";
  return "read_csv(" + path + ", header = true" + (text_columns ? ", all_varchar = true" : "") +
         ")";
}

StatusOr<std::vector<InputColumn>> DescribeInput(Connection& connection, const DataInput& input,
                                                 const std::string& source) {
  DC_ASSIGN_OR_RETURN(TextRows rows,
                      connection.Query("DESCRIBE SELECT * FROM " + source,
                                       "input \"" + input.label + "\": cannot read it"));
  std::vector<InputColumn> out;
  for (const auto& row : rows.rows) {
    if (row.size() < 2 || !row[0] || !row[1]) continue;
    out.push_back({*row[0], *row[1]});
  }
  return out;
}

}  // namespace deltacommit::data_internal
