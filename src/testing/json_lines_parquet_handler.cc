#include "deltacommit/testing/json_lines_parquet_handler.h"

#include <string_view>

namespace deltacommit {

StatusOr<std::vector<std::string>>
JsonLinesParquetHandler::ReadCheckpointActions(
    ObjectStore& store, const std::vector<std::string>& keys) {
  std::vector<std::string> lines;
  for (const std::string& key : keys) {
    DC_ASSIGN_OR_RETURN(std::string content, store.Get(key));
    std::string_view rest = content;
    while (!rest.empty()) {
      const size_t end = rest.find('\n');
      lines.emplace_back(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view()
                                           : rest.substr(end + 1);
    }
  }
  return lines;
}

StatusOr<int64_t> JsonLinesParquetHandler::WriteCheckpointActions(
    ObjectStore& store, const std::string& key,
    const std::vector<std::string>& action_lines) {
  std::string content;
  for (const std::string& line : action_lines) content += line + "\n";
  DC_RETURN_IF_ERROR(store.PutIfAbsent(key, content));
  return static_cast<int64_t>(content.size());
}

}  // namespace deltacommit
