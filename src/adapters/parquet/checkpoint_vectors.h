// Private to deltacommit_parquet: the columns of a DuckDB query over a Delta
// checkpoint file, described once per query from their logical types and
// bound to each result chunk's vectors, for the readers that turn rows into
// actions (checkpoint_rows.h: JSON lines; checkpoint_actions.h: actions),
// and for the writer that turns actions into rows (checkpoint_chunks.h).
//
// Thread-safety: values; a duckdb_result serves one thread.
#pragma once

#include <string>
#include <vector>

#include "adapters/parquet/duckdb_api.h"

namespace deltacommit::parquet_internal {

// The shape of one column or field, read once per query from its logical
// type. STRUCT: one child per field; LIST: the element; MAP: key, value.
// `dropped`: an action's `stats_parsed` or `partitionValues_parsed`, typed
// copies of other fields for data skipping (PROTOCOL.md "Checkpoint
// Schema"), not part of the action: never read.
struct FieldType {
  duckdb_type id = DUCKDB_TYPE_INVALID;
  std::string name;  // the field's name in its struct ("" otherwise)
  std::string path;  // for messages: "add.deletionVector.offset"
  bool dropped = false;
  std::vector<FieldType> children;
};

// The result's columns; a column that is not a STRUCT keeps id and name
// only (readers ignore it).
std::vector<FieldType> DescribeColumns(duckdb_result& result);
// One such column, of the type `type`, named `name` (a checkpoint writer's
// table column).
FieldType DescribeColumn(std::string name, duckdb_logical_type type);

// One chunk's vector for a FieldType, with its children bound likewise.
struct BoundVector {
  const FieldType* type = nullptr;
  const void* data = nullptr;
  uint64_t* validity = nullptr;  // null: every row valid
  std::vector<BoundVector> children;

  bool IsValid(idx_t row) const {
    return validity == nullptr || duckdb_validity_row_is_valid(validity, row);
  }
  template <typename T>
  T At(idx_t row) const {
    return static_cast<const T*>(data)[row];
  }
  // A VARCHAR value; valid while the chunk is.
  std::string_view StringAt(idx_t row) const {
    const auto* s = static_cast<const duckdb_string_t*>(data) + row;
    return {duckdb_string_t_data(const_cast<duckdb_string_t*>(s)), duckdb_string_t_length(*s)};
  }
};

BoundVector Bind(const FieldType& type, duckdb_vector vector);

// Owns a duckdb_data_chunk.
class DataChunk {
 public:
  explicit DataChunk(duckdb_data_chunk chunk) : chunk_(chunk) {}
  ~DataChunk() {
    if (chunk_ != nullptr) duckdb_destroy_data_chunk(&chunk_);
  }
  DataChunk(const DataChunk&) = delete;
  DataChunk& operator=(const DataChunk&) = delete;
  duckdb_data_chunk get() const { return chunk_; }

 private:
  duckdb_data_chunk chunk_;
};

}  // namespace deltacommit::parquet_internal
