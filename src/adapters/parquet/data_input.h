// Reading an input file of rows in DuckDB: the format (by name or by its
// first bytes) and the SQL table function that reads it.
//
// Thread-safety: pure functions (the detection reads the file).
#pragma once

#include <string>
#include <vector>

#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/data_files.h"
#include "deltacommit/status.h"

namespace deltacommit::data_internal {

// "csv", "json" or "parquet": input.format if set, else from the file name
// (.csv/.tsv, .json/.jsonl/.ndjson, .parquet), else from its first bytes.
// kInvalidArgument naming the input if it cannot be opened or is empty, or
// for an unknown --format.
StatusOr<std::string> InputFormat(const DataInput& input);

// The FROM clause reading `input` in `format`. With `text_columns`, CSV
// columns are all VARCHAR (so the table's casts decide, strictly).
std::string InputSource(const DataInput& input, const std::string& format, bool text_columns);

struct InputColumn {
  std::string name;
  std::string type;  // DuckDB's, as DESCRIBE prints it
};

// The input's columns, in order. kInvalidArgument naming the input if DuckDB
// cannot read it.
StatusOr<std::vector<InputColumn>> DescribeInput(Connection& connection, const DataInput& input,
                                                 const std::string& source);

}  // namespace deltacommit::data_internal
