// The rows of a query over a table's data files (Table::Query), and where
// they may go instead: a local file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace deltacommit {

// A query's rows written to a local file rather than returned.
struct QueryOutputFile {
  std::string path;
  // "parquet", "csv" (a header line; nested values as JSON) or "json" (JSON
  // lines); empty: from the path's extension (.parquet, .csv, .json,
  // .jsonl, .ndjson).
  std::string format;
  // An existing file is refused unless set. Either way the file appears
  // whole or not at all: the rows go to a temporary file beside it first.
  bool overwrite = false;
};

// How Query gives its result back (QueryOptions, DataFileHandler::Query).
struct QueryShape {
  bool json_rows = false;  // one cell per row: the row as a JSON object
  std::optional<QueryOutputFile> output;
};

struct QueryResult {
  std::vector<std::string> columns;
  // Each column's type as DuckDB names it ("BIGINT", "DECIMAL(38,10)",
  // "STRUCT(k INTEGER[])", ...); empty for a statement that is not a query
  // (COPY, EXPLAIN, SET, ...), whose own result is given as text.
  std::vector<std::string> column_types;
  // Cells as text (nullopt for NULL): decimals exactly, nested values
  // (structs, lists, maps) as JSON. With json_rows, one cell per row: the
  // row as a JSON object, its members in the columns' order, decimals as
  // JSON numbers with every digit.
  std::vector<std::vector<std::optional<std::string>>> rows;
  // With an output file: the rows written to it (and no rows above).
  std::optional<int64_t> rows_written;
};

}  // namespace deltacommit
