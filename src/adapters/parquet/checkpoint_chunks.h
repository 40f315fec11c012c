// Private to deltacommit_parquet: the rows of a checkpoint built from
// actions straight into DuckDB data chunks, with no JSON in between (the
// reader's counterpart is checkpoint_actions.h).
//
// One row per action: the action's STRUCT column holds its fields, the
// row's other columns are null. Which column an action goes to, and which
// field each of its members goes to, is found by name in the column types
// DuckDB reports for the schema, so the schema is written once
// (duckdb_checkpoint_writer.cc) and any mismatch with it is an error, never
// a misplaced value.
//
// Thread-safety: a CheckpointChunkWriter serves one thread at a time.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "adapters/parquet/checkpoint_vectors.h"
#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::parquet_internal {

// Fills DuckDB data chunks with one row per action of `actions`, in
// order: the output of the table function a checkpoint is copied from
// (checkpoint_scan.h). An action's unknown_fields are dropped, as a
// checkpoint written by Spark drops them, except a deletion vector's
// maxRowIndex, which the schema has.
class CheckpointChunkWriter {
 public:
  // `columns`: the chunks' columns, STRUCT columns named after action types
  // (checkpoint_vectors.h describes them from their logical types).
  // `actions` must outlive this object.
  CheckpointChunkWriter(std::vector<FieldType> columns, std::span<const Action> actions);

  // Fills `chunk` (of the columns' types; fresh, or reset as DuckDB hands a
  // table function its output) with the next rows, as many as a chunk holds,
  // sets its size and returns it: 0 once every action was written.
  // Codes: kInvalidArgument naming the action and its row for an action
  // that has no column (a checkpoint holds protocol, metaData, txn, add,
  // remove, domainMetadata and checkpointMetadata only); kInternal naming the
  // field if a column lacks a field an action has, or has it with another
  // type.
  StatusOr<idx_t> FillNext(duckdb_data_chunk chunk);

 private:
  std::vector<FieldType> columns_;
  std::span<const Action> actions_;
  size_t next_ = 0;
};

}  // namespace deltacommit::parquet_internal
