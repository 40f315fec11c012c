// Private to deltacommit_parquet: turns the rows of a DuckDB query over a
// Delta checkpoint file into actions, as ActionParser would decode the JSON
// lines checkpoint_rows.h makes of them, without writing most of them as
// JSON first.
//
// `add` and `remove` cells, nearly every row of a checkpoint, are built
// straight from DuckDB's vectors when their column has the types Delta
// writers give it (Delta Spark's checkpoint schema, ours). Any other cell
// goes through its JSON line and the parser, and so does an add or remove
// with a null required field, a repeated map key, or a value in a field
// this reader does not know (so that it lands in unknown_fields): the
// actions, their order and the errors are the same either way.
//
// Thread-safety: stateless functions; a duckdb_result serves one thread.
#pragma once


#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/actions.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/status.h"

namespace deltacommit::parquet_internal {

// Consumes every chunk of `result` (a fresh, successful duckdb_query
// result) and appends one action per non-null STRUCT cell to `out`, row by
// row, columns in order. The errors of AppendActionLines, and the parser's
// for a line that does not decode. With `batch`, once `out` holds
// `batch_rows` or more after a chunk, it is handed to `batch` and cleared
// (an error `batch` returns stops the read).
Status AppendActions(duckdb_result& result, std::vector<Action>& out,
                     const ParquetHandler::ActionBatch* batch = nullptr, size_t batch_rows = 0);

}  // namespace deltacommit::parquet_internal
