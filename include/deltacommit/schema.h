// The table schema as the Delta log stores it (PROTOCOL.md "Schema
// Serialization Format": Spark's JSON struct type), reduced to what the
// commit path needs: top-level field names and types, nullability, and which
// column-metadata keys appear anywhere in the schema (features such as
// invariants, generated and identity columns live there).
//
// Thread-safety: plain values and free functions; all thread-safe.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit {

// One top-level column.
struct StructField {
  std::string name;
  // A primitive type name in canonical form ("long", "decimal(10,2)",
  // "timestamp_ntz", "variant", ...) or, for struct/array/map, the type's
  // compact JSON text ({"type":"array",...}).
  std::string type;
  bool nullable = true;
  std::string metadata = "{}";  // compact JSON object text

  // False for struct, array and map types.
  bool IsPrimitive() const { return type.empty() || type.front() != '{'; }
  friend bool operator==(const StructField&, const StructField&) = default;
};

// A column-metadata key found on a (possibly nested) field.
struct FieldMetadataKey {
  // Dotted path from the top level; array elements and map keys/values are
  // the segments "element", "key" and "value" (e.g. "e.element.d").
  std::string field_path;
  std::string key;
  friend bool operator==(const FieldMetadataKey&,
                         const FieldMetadataKey&) = default;
};

struct Schema {
  std::vector<StructField> fields;              // top level, in schema order
  std::vector<FieldMetadataKey> metadata_keys;  // every level, in schema order
  std::set<std::string, std::less<>> primitive_types;  // used anywhere
  friend bool operator==(const Schema&, const Schema&) = default;
};

// Parses a metaData.schemaString. Requires a struct with a "fields" array;
// every field needs a string "name" and a "type"; "nullable" defaults to true
// and "metadata" to {}. Primitive types are the protocol's (plus "void",
// which old tables may hold); decimal precision 1..38 and scale 0..precision.
// Field names must be unique per struct, ignoring case (as Spark).
// Returns InvalidArgument naming the field path and the problem.
StatusOr<Schema> ParseSchema(std::string_view schema_string);

// Turns the CLI's --schema value into a schemaString.
//
// Either a Delta schema JSON object (validated as ParseSchema does and
// returned re-serialised compactly, field order kept), or a compact list
//   id:long not null,name:string,price:decimal(10,2),ts:timestamp
// of top-level primitive fields: `name:type`, optionally followed by
// `not null` (case-insensitive) for a non-nullable field. Types are
// case-insensitive: string, long, integer, short, byte, float, double,
// boolean, binary, date, timestamp, timestamp_ntz, decimal(p,s) (decimal
// alone is decimal(10,0), decimal(p) is decimal(p,0)), and the SQL aliases
// bigint, int, smallint, tinyint. Names must not contain any of " ,;{}()=:"
// or tab/newline (Parquet column names without column mapping); use the JSON
// form for such names or for nested types.
// Returns the JSON Spark writes:
//   {"type":"struct","fields":[{"name":"id","type":"long","nullable":false,
//    "metadata":{}},...]}
// or InvalidArgument prefixed "--schema: ", e.g.
//   --schema: field "price": unknown type "money"
StatusOr<std::string> SchemaStringFromArgument(std::string_view arg);

// Checks metaData.partitionColumns against the schema: each must name a
// top-level field exactly (a case-only mismatch is reported as such), appear
// once, and have a primitive, non-variant type; and at least one column must
// remain a data column (as Spark requires).
// Returns InvalidArgument naming the column.
Status ValidatePartitionColumns(
    const Schema& schema, const std::vector<std::string>& partition_columns);

// Paths of fields (any depth) whose metadata has a key starting with
// `key_prefix`, e.g. "delta.identity." or "delta.invariants". Each path once,
// in schema order.
std::vector<std::string> FieldsWithMetadataKey(const Schema& schema,
                                               std::string_view key_prefix);

// True when a primitive type named `type_name` is used at any depth.
// "decimal" matches every decimal(p,s).
bool SchemaUsesType(const Schema& schema, std::string_view type_name);

}  // namespace deltacommit
