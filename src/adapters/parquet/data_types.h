// Delta types <-> DuckDB types for the data-file adapter, and the SQL that
// turns a column into what the Delta log stores: partition values
// (PROTOCOL.md "Partition Value Serialization") and per-file statistics.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/schema.h"
#include "deltacommit/status.h"

namespace deltacommit::data_internal {

// How a data file holds a variant: Parquet's Variant group of two binaries.
inline constexpr char kVariantStorageType[] = "STRUCT(\"value\" BLOB, metadata BLOB)";

// The DuckDB type for a StructField::type (a primitive name, or the JSON
// text of a struct/array/map). With `physical_names`, struct fields are
// named as column mapping's data files name them (their physical names).
// A variant is JSON (its text, VariantToJson), or with `stored`
// kVariantStorageType, as data files hold it. kInvalidArgument naming
// `column` for a type DuckDB cannot hold (void).
StatusOr<std::string> DuckDbType(std::string_view delta_type, std::string_view column,
                                 bool physical_names = false, bool stored = false);

// Whether a variant lies within the StructField::type `delta_type`.
bool HoldsVariant(std::string_view delta_type);

// The Delta type for a DuckDB column type as DESCRIBE prints it
// ("BIGINT", "DECIMAL(10,2)", "VARCHAR", ...). Only primitive types;
// kInvalidArgument naming `column` and the type otherwise.
StatusOr<std::string> DeltaTypeFromDuckDb(std::string_view duckdb_type, std::string_view column);

// A VARCHAR SQL expression serializing `column_sql` (already of the
// column's DuckDB type) as a partition value; empty strings become NULL
// (as Spark writes them). kInvalidArgument for binary and nested columns.
StatusOr<std::string> PartitionValueSql(const std::string& column_sql, std::string_view delta_type,
                                        std::string_view column);

// How a column's min/max appear in `stats`.
enum class StatsKind {
  kNone,    // only nullCount (boolean, binary) or nothing (nested)
  kNumber,  // a JSON number
  kString,  // a JSON string (strings, dates, timestamps)
};
StatsKind StatsKindOf(std::string_view delta_type);

// A VARCHAR SQL expression for min (`max` false) or max over `column_sql`,
// in the text `stats` stores (dates YYYY-MM-DD, timestamps ISO 8601 UTC
// with milliseconds).
std::string StatsValueSql(const std::string& column_sql, std::string_view delta_type, bool max);

}  // namespace deltacommit::data_internal
