// Table schemas as the Unity Catalog APIs carry them, converted to and from
// the Delta log's schemaString (Spark's JSON struct type, PROTOCOL.md
// "Schema Serialization Format"), which is how the catalog keeps them
// (TableEntry::columns_json):
//
//   UC REST 2.1  `columns`: a list of ColumnInfo, each with the field's
//                Spark JSON in `type_json` and derived `type_text`
//                (Spark's catalog string: bigint, array<int>, ...),
//                `type_name` (LONG, ARRAY, ...), `position`, `nullable`,
//                `partition_index`, `comment`.
//   Delta API v1 `columns`: a struct type in kebab-case: nested types say
//                "element-type", "contains-null", "key-type",
//                "value-type", "value-contains-null" where the Delta log
//                says "elementType", "containsNull", ...
//
// Every conversion into a schemaString is checked with ParseSchema, so a
// catalog never holds a schema the Delta log could not.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::service::unity {

// The Delta API's struct type -> schemaString. kInvalidArgument naming the
// field path for a value that is not a struct type, an unknown nested type
// or a key of the other spelling.
StatusOr<std::string> SchemaStringFromDeltaColumns(const nlohmann::ordered_json& columns);

// schemaString -> the Delta API's struct type. The schemaString comes from
// the catalog (already checked): kDataLoss if it does not parse.
StatusOr<nlohmann::ordered_json> DeltaColumnsFromSchemaString(std::string_view schema_string);

// schemaString -> UC REST 2.1 ColumnInfo list, in schema order;
// `partition_columns` gives each partition column its partition_index.
StatusOr<nlohmann::ordered_json> ColumnInfosFromSchemaString(
    std::string_view schema_string, const std::vector<std::string>& partition_columns);

// UC REST 2.1 ColumnInfo list -> schemaString, from each column's
// `type_json` in `position` order (the order given when no column has a
// position). kInvalidArgument naming the column for a missing or malformed
// type_json, a type_json whose name or nullability disagrees with the
// column's, or repeated positions.
StatusOr<std::string> SchemaStringFromColumnInfos(const nlohmann::ordered_json& columns);

// Spark's catalog string of a Delta type (a primitive name or a nested type
// in the Delta log's JSON): "bigint", "decimal(10,2)", "array<int>",
// "map<string,struct<a:int>>".
std::string TypeText(const nlohmann::ordered_json& type);

}  // namespace deltacommit::service::unity
