// Private to deltacommit_parquet: turns the rows of a DuckDB query over a
// Delta checkpoint file into action JSON lines, the text form of a commit
// file, so ActionParser decodes checkpoints and commits alike.
//
// A checkpoint has one STRUCT column per action type ("add", "remove",
// "metaData", ...); each row has one of them non-null (PROTOCOL.md
// "Checkpoint Schema"). Every non-null STRUCT cell becomes one line
// {"<column>":{...}}, read straight from DuckDB's vectors:
//   - STRUCT -> object in field order; a NULL field is left out (absent and
//     null mean the same to Delta readers, and a null required field such as
//     metaData.format.options would not decode);
//   - MAP(VARCHAR, T) -> object keyed by the map key, NULL values kept as
//     null (partitionValues uses null for a null partition value);
//   - LIST -> array (NULL elements as null);
//   - integers stay integers, BOOLEAN true/false, VARCHAR a JSON string
//     (add.stats stays the JSON text it is), TIMESTAMP* epoch milliseconds
//     (commitInfo.timestamp), FLOAT/DOUBLE numbers (null if not finite);
//   - the fields `stats_parsed` and `partitionValues_parsed` of an action are
//     dropped: they repeat `stats` / `partitionValues` in typed form for
//     data skipping and are not part of the action.
// Top-level columns that are not STRUCTs are ignored.
//
// Thread-safety: stateless functions; a duckdb_result serves one thread.
#pragma once


#include <string>
#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/checkpoint_vectors.h"
#include "deltacommit/status.h"

namespace deltacommit::parquet_internal {

// Consumes every chunk of `result` (which must be a fresh, successful
// duckdb_query result) and appends one line per non-null STRUCT cell to
// `out`, row by row, columns in order.
// kUnimplemented naming the field (e.g. "add.tags") when a field that is
// kept has a type with no JSON form here (BLOB, DECIMAL, DATE, UNION, ...,
// or a MAP whose keys are not VARCHAR).
Status AppendActionLines(duckdb_result& result, std::vector<std::string>& out);

// Appends the line of the action column `action` at `row` (which must be
// non-null) to `line`: {"<column>":{...}}. The errors of AppendActionLines.
Status WriteActionLine(const BoundVector& action, idx_t row, std::string& line);

// `text` as a JSON string literal, quotes included.
void AppendJsonString(std::string_view text, std::string& out);

}  // namespace deltacommit::parquet_internal
