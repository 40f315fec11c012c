// The rows of a query over a table's data files (Table::Query).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace deltacommit {

struct QueryResult {
  std::vector<std::string> columns;
  // With json_rows: each column's type as DuckDB names it ("BIGINT",
  // "DECIMAL(38,10)", "STRUCT(k INTEGER[])", ...); else empty.
  std::vector<std::string> column_types;
  // Cells as text (nullopt for NULL); with json_rows, one cell per row: the
  // row as a JSON object, its members in the columns' order.
  std::vector<std::vector<std::optional<std::string>>> rows;
};

}  // namespace deltacommit
