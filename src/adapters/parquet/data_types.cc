#include "adapters/parquet/data_types.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <nlohmann/json.hpp>

#include "adapters/parquet/column_mapping.h"
#include "adapters/parquet/data_sql.h"

namespace deltacommit::data_internal {
namespace {

// Longest string prefix kept in minValues; longer maxValues are left out
// (a truncated max would be below the real one).
constexpr int kMaxStatsStringLength = 32;

const std::map<std::string, std::string, std::less<>>& PrimitiveToDuckDb() {
  static const auto* map = new std::map<std::string, std::string, std::less<>>{
      {"string", "VARCHAR"},    {"long", "BIGINT"},     {"integer", "INTEGER"},
      {"short", "SMALLINT"},    {"byte", "TINYINT"},    {"float", "FLOAT"},
      {"double", "DOUBLE"},     {"boolean", "BOOLEAN"}, {"binary", "BLOB"},
      {"date", "DATE"},         {"timestamp", "TIMESTAMPTZ"},
      {"timestamp_ntz", "TIMESTAMP"}};
  return *map;
}

// How a type is spelled: struct field names as files hold them
// (`physical_names`), variants as files hold them (`stored`).
struct Spelling {
  bool physical_names = false;
  bool stored = false;
};

StatusOr<std::string> FromJsonType(const nlohmann::json& type, std::string_view column,
                                   Spelling spelling);

StatusOr<std::string> FromPrimitive(std::string_view type, std::string_view column) {
  if (auto it = PrimitiveToDuckDb().find(type); it != PrimitiveToDuckDb().end()) return it->second;
  if (type.starts_with("decimal(")) {
    std::string upper(type);
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    return upper;
  }
  return InvalidArgumentError("column \"" + std::string(column) + "\": type \"" +
                              std::string(type) + "\" is not supported for data files");
}

StatusOr<std::string> FromJsonType(const nlohmann::json& type, std::string_view column,
                                   Spelling spelling) {
  if (type.is_string() && type.get<std::string>() == "variant") {
    // Files hold the binary encoding; the view shows it as JSON text.
    return std::string(spelling.stored ? kVariantStorageType : "JSON");
  }
  if (type.is_string()) return FromPrimitive(type.get<std::string>(), column);
  const std::string kind = type.value("type", "");
  if (kind == "array") {
    DC_ASSIGN_OR_RETURN(std::string element,
                        FromJsonType(type.at("elementType"), column, spelling));
    return element + "[]";
  }
  if (kind == "map") {
    DC_ASSIGN_OR_RETURN(std::string key, FromJsonType(type.at("keyType"), column, spelling));
    DC_ASSIGN_OR_RETURN(std::string value,
                        FromJsonType(type.at("valueType"), column, spelling));
    return "MAP(" + key + ", " + value + ")";
  }
  if (kind == "struct") {
    std::string out = "STRUCT(";
    bool first = true;
    for (const auto& field : type.at("fields")) {
      std::string name = field.at("name").get<std::string>();
      const std::string path = std::string(column) + "." + name;
      if (spelling.physical_names) {
        DC_ASSIGN_OR_RETURN(FieldMapping mapping,
                            ReadFieldMapping(field.value("metadata", nlohmann::json::object()).dump(),
                                             name));
        name = mapping.physical_name;
      }
      DC_ASSIGN_OR_RETURN(std::string inner, FromJsonType(field.at("type"), path, spelling));
      out += (first ? "" : ", ") + SqlIdent(name) + " " + inner;
      first = false;
    }
    return out + ")";
  }
  return InvalidArgumentError("column \"" + std::string(column) + "\": unknown nested type " +
                              type.dump());
}

bool IsTimestamp(std::string_view t) { return t == "timestamp" || t == "timestamp_ntz"; }

}  // namespace

StatusOr<std::string> DuckDbType(std::string_view delta_type, std::string_view column,
                                 bool physical_names, bool stored) {
  const Spelling spelling{physical_names, stored};
  if (delta_type.empty() || delta_type.front() != '{') {
    return FromJsonType(nlohmann::json(std::string(delta_type)), column, spelling);
  }
  auto type = nlohmann::json::parse(delta_type, nullptr, /*allow_exceptions=*/false);
  if (type.is_discarded()) {
    return InvalidArgumentError("column \"" + std::string(column) + "\": malformed type JSON");
  }
  try {
    return FromJsonType(type, column, spelling);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgumentError("column \"" + std::string(column) + "\": malformed type JSON: " +
                                e.what());
  }
}

bool HoldsVariant(std::string_view delta_type) {
  return delta_type == "variant" || delta_type.find("\"variant\"") != std::string_view::npos;
}

StatusOr<std::string> DeltaTypeFromDuckDb(std::string_view duckdb_type, std::string_view column) {
  static const auto* map = new std::map<std::string, std::string, std::less<>>{
      {"VARCHAR", "string"},   {"BIGINT", "long"},       {"INTEGER", "integer"},
      {"SMALLINT", "short"},   {"TINYINT", "byte"},      {"FLOAT", "float"},
      {"DOUBLE", "double"},    {"BOOLEAN", "boolean"},   {"BLOB", "binary"},
      {"DATE", "date"},        {"TIMESTAMP WITH TIME ZONE", "timestamp"},
      {"TIMESTAMP", "timestamp_ntz"}, {"UTINYINT", "short"}, {"USMALLINT", "integer"},
      {"UINTEGER", "long"}};
  if (auto it = map->find(duckdb_type); it != map->end()) return it->second;
  if (duckdb_type.starts_with("DECIMAL(")) {
    std::string lower(duckdb_type);
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    return lower;
  }
  return InvalidArgumentError("column \"" + std::string(column) + "\": type " +
                              std::string(duckdb_type) +
                              " has no Delta equivalent here (supported: strings, integers, "
                              "floating point, decimal, boolean, binary, date, timestamp); "
                              "create the table with --schema instead");
}

StatusOr<std::string> PartitionValueSql(const std::string& column_sql, std::string_view delta_type,
                                        std::string_view column) {
  if (delta_type == "binary" || delta_type.empty() || delta_type.front() == '{') {
    return InvalidArgumentError("partition column \"" + std::string(column) + "\": type " +
                                std::string(delta_type) + " is not supported for partitioning");
  }
  std::string text;
  if (IsTimestamp(delta_type)) {
    // PROTOCOL.md: {year}-{month}-{day} {hour}:{minute}:{second}.{microsecond}
    text = "strftime(CAST(" + column_sql + " AS TIMESTAMP), '%Y-%m-%d %H:%M:%S.%f')";
  } else {
    text = "CAST(" + column_sql + " AS VARCHAR)";
  }
  return "NULLIF(" + text + ", '')";
}

StatsKind StatsKindOf(std::string_view delta_type) {
  if (delta_type == "string" || delta_type == "date" || IsTimestamp(delta_type)) {
    return StatsKind::kString;
  }
  if (delta_type == "long" || delta_type == "integer" || delta_type == "short" ||
      delta_type == "byte" || delta_type == "float" || delta_type == "double" ||
      delta_type.starts_with("decimal(")) {
    return StatsKind::kNumber;
  }
  return StatsKind::kNone;
}

std::string StatsValueSql(const std::string& column_sql, std::string_view delta_type, bool max) {
  const std::string agg = std::string(max ? "max(" : "min(") + column_sql + ")";
  const std::string limit = std::to_string(kMaxStatsStringLength);
  if (delta_type == "string") {
    return max ? "CASE WHEN length(" + agg + ") <= " + limit + " THEN " + agg + " END"
               : "left(" + agg + ", " + limit + ")";
  }
  if (IsTimestamp(delta_type)) {
    // Milliseconds, as Spark writes; a max rounds up so it stays >= every
    // value.
    std::string ts = "CAST(" + agg + " AS TIMESTAMP)";
    if (max) ts = "make_timestamp((epoch_us(" + ts + ") + 999) // 1000 * 1000)";
    const std::string zone = delta_type == "timestamp" ? "Z" : "";
    return "strftime(" + ts + ", '%Y-%m-%dT%H:%M:%S.%g" + zone + "')";
  }
  if (delta_type == "float" || delta_type == "double") {
    // NaN and infinities have no JSON number form: left out.
    return "CASE WHEN isfinite(" + agg + ") THEN CAST(" + agg + " AS VARCHAR) END";
  }
  return "CAST(" + agg + " AS VARCHAR)";
}

}  // namespace deltacommit::data_internal
