// Column mapping (PROTOCOL.md "Column Mapping") on the read side: in `name`
// and `id` mode a data file names every column, nested ones too, by its
// physical name (and carries its id as the Parquet field_id), while a query
// sees the schema's logical names.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit::data_internal {

// A field's column-mapping metadata (StructField::metadata, JSON text):
// delta.columnMapping.physicalName (else `name`) and delta.columnMapping.id.
struct FieldMapping {
  std::string physical_name;
  std::optional<int64_t> id;
};
StatusOr<FieldMapping> ReadFieldMapping(std::string_view metadata_json, std::string_view name);

// A SQL expression giving `physical_sql` (a value of the physical type)
// with the logical struct field names of `delta_type`: structs rebuilt
// with struct_pack, lists and maps element by element, variants decoded
// into JSON text (kVariantJsonFunction). Other primitive types come back
// as they are.
StatusOr<std::string> LogicalValueSql(const std::string& physical_sql, std::string_view delta_type,
                                      std::string_view column);

// The reverse: `logical_sql` under the physical struct field names, as a
// data file of a column-mapping table holds it.
StatusOr<std::string> PhysicalValueSql(const std::string& logical_sql, std::string_view delta_type,
                                       std::string_view column);

// DuckDB's COPY option FIELD_IDS entry for a column of `delta_type` whose
// id is `id`: "7", or "{__duckdb_field_id: 7, 'col-x': 8, ...}" with its
// nested struct fields' ids under their physical names; empty when there
// is no id to write.
StatusOr<std::string> FieldIdsEntry(std::string_view delta_type, std::optional<int64_t> id,
                                    std::string_view column);

}  // namespace deltacommit::data_internal
