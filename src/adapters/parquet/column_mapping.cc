#include "adapters/parquet/column_mapping.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_sql.h"

namespace deltacommit::data_internal {
namespace {

constexpr char kPhysicalName[] = "delta.columnMapping.physicalName";
constexpr char kId[] = "delta.columnMapping.id";

Status Malformed(std::string_view column, const std::string& what) {
  return InvalidArgumentError("column \"" + std::string(column) +
                              "\": malformed type JSON: " + what);
}

StatusOr<FieldMapping> MappingOf(const nlohmann::json& field, std::string_view column) {
  const std::string name = field.at("name").get<std::string>();
  FieldMapping out{name, std::nullopt};
  const auto metadata = field.find("metadata");
  if (metadata == field.end() || !metadata->is_object()) return out;
  if (auto p = metadata->find(kPhysicalName); p != metadata->end()) {
    if (!p->is_string() || p->get<std::string>().empty()) {
      return InvalidArgumentError("column \"" + std::string(column) + "\": " + kPhysicalName +
                                  " is not a name");
    }
    out.physical_name = p->get<std::string>();
  }
  if (auto id = metadata->find(kId); id != metadata->end()) {
    if (!id->is_number_integer()) {
      return InvalidArgumentError("column \"" + std::string(column) + "\": " + kId +
                                  " is not an integer");
    }
    out.id = id->get<int64_t>();
  }
  return out;
}

// Whether any struct or variant lies within `type` (only then does a
// value need rewriting: names mapped, variants decoded).
bool HasStruct(const nlohmann::json& type) {
  if (type.is_string()) return type.get<std::string>() == "variant";
  const std::string kind = type.value("type", "");
  if (kind == "struct") return true;
  if (kind == "array") return HasStruct(type.at("elementType"));
  if (kind == "map") return HasStruct(type.at("keyType")) || HasStruct(type.at("valueType"));
  return false;
}

// `sql`, a value of `type` under one set of struct field names, under the
// other: physical to logical names, or (`to_physical`) back. Reading, a
// variant becomes its JSON text (kVariantJsonFunction); writing one is
// refused.
StatusOr<std::string> Renamed(const std::string& sql, const nlohmann::json& type,
                              std::string_view column, int depth, bool to_physical) {
  if (!HasStruct(type)) return sql;
  if (type.is_string()) {  // a variant
    if (to_physical) {
      return UnimplementedError("column \"" + std::string(column) +
                                "\": writing variant values is not supported (their binary "
                                "encoding is not written); variant columns are read only");
    }
    return std::string(kVariantJsonFunction) + "((" + sql + ").value, (" + sql + ").metadata)";
  }
  const std::string kind = type.value("type", "");
  // Lambda parameters named by depth, so that nested ones do not shadow.
  const std::string x = "__dc_x" + std::to_string(depth);
  if (kind == "array") {
    DC_ASSIGN_OR_RETURN(std::string element,
                        Renamed(x, type.at("elementType"), column, depth + 1, to_physical));
    return "list_transform(" + sql + ", " + x + " -> " + element + ")";
  }
  if (kind == "map") {
    DC_ASSIGN_OR_RETURN(std::string key,
                        Renamed(x + ".key", type.at("keyType"), column, depth + 1, to_physical));
    DC_ASSIGN_OR_RETURN(std::string value, Renamed(x + ".value", type.at("valueType"), column,
                                                   depth + 1, to_physical));
    return "map_from_entries(list_transform(map_entries(" + sql + "), " + x +
           " -> struct_pack(key := " + key + ", value := " + value + ")))";
  }
  std::string fields;
  for (const auto& field : type.at("fields")) {
    const std::string name = field.at("name").get<std::string>();
    const std::string path = std::string(column) + "." + name;
    DC_ASSIGN_OR_RETURN(FieldMapping mapping, MappingOf(field, path));
    const std::string& from = to_physical ? name : mapping.physical_name;
    const std::string& to = to_physical ? mapping.physical_name : name;
    DC_ASSIGN_OR_RETURN(std::string inner, Renamed("(" + sql + ")." + SqlIdent(from),
                                                   field.at("type"), path, depth + 1, to_physical));
    fields += (fields.empty() ? "" : ", ") + SqlIdent(to) + " := " + inner;
  }
  // struct_pack of a NULL struct's fields would give a struct of NULLs.
  return "CASE WHEN (" + sql + ") IS NULL THEN NULL ELSE struct_pack(" + fields + ") END";
}

// DuckDB's FIELD_IDS entry for a value of `type` whose own id is `id`:
// the number, or {__duckdb_field_id: id, child: entry, ...}; empty when
// there is nothing to say.
StatusOr<std::string> FieldIds(const nlohmann::json& type, std::optional<int64_t> id,
                               std::string_view column) {
  std::vector<std::string> parts;
  if (id) parts.push_back("__duckdb_field_id: " + std::to_string(*id));
  const std::string kind = type.is_string() ? "" : type.value("type", "");
  auto child = [&](const std::string& name, const nlohmann::json& t,
                   std::optional<int64_t> child_id) -> Status {
    DC_ASSIGN_OR_RETURN(std::string entry, FieldIds(t, child_id, column));
    if (!entry.empty()) parts.push_back(SqlString(name) + ": " + entry);
    return OkStatus();
  };
  if (kind == "struct") {
    for (const auto& field : type.at("fields")) {
      const std::string path = std::string(column) + "." + field.at("name").get<std::string>();
      DC_ASSIGN_OR_RETURN(FieldMapping mapping, MappingOf(field, path));
      DC_RETURN_IF_ERROR(child(mapping.physical_name, field.at("type"), mapping.id));
    }
  } else if (kind == "array") {
    DC_RETURN_IF_ERROR(child("element", type.at("elementType"), std::nullopt));
  } else if (kind == "map") {
    DC_RETURN_IF_ERROR(child("key", type.at("keyType"), std::nullopt));
    DC_RETURN_IF_ERROR(child("value", type.at("valueType"), std::nullopt));
  } else {
    return id ? std::to_string(*id) : std::string();
  }
  if (parts.empty()) return std::string();
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return "{" + out + "}";
}

StatusOr<nlohmann::json> ParseType(std::string_view delta_type, std::string_view column) {
  auto type = nlohmann::json::parse(delta_type, nullptr, /*allow_exceptions=*/false);
  if (type.is_discarded()) return Malformed(column, "not JSON");
  return type;
}

}  // namespace

StatusOr<FieldMapping> ReadFieldMapping(std::string_view metadata_json, std::string_view name) {
  auto metadata = nlohmann::json::parse(metadata_json, nullptr, /*allow_exceptions=*/false);
  if (metadata.is_discarded()) {
    return InvalidArgumentError("column \"" + std::string(name) + "\": metadata is not JSON");
  }
  try {
    return MappingOf(nlohmann::json{{"name", name}, {"metadata", metadata}}, name);
  } catch (const nlohmann::json::exception& e) {
    return Malformed(name, e.what());
  }
}

namespace {

StatusOr<std::string> RenamedValueSql(const std::string& sql, std::string_view delta_type,
                                      std::string_view column, bool to_physical) {
  nlohmann::json type = std::string(delta_type);
  if (!delta_type.empty() && delta_type.front() == '{') {
    DC_ASSIGN_OR_RETURN(type, ParseType(delta_type, column));
  }
  try {
    return Renamed(sql, type, column, 0, to_physical);
  } catch (const nlohmann::json::exception& e) {
    return Malformed(column, e.what());
  }
}

}  // namespace

StatusOr<std::string> LogicalValueSql(const std::string& physical_sql, std::string_view delta_type,
                                      std::string_view column) {
  return RenamedValueSql(physical_sql, delta_type, column, /*to_physical=*/false);
}

StatusOr<std::string> PhysicalValueSql(const std::string& logical_sql, std::string_view delta_type,
                                       std::string_view column) {
  return RenamedValueSql(logical_sql, delta_type, column, /*to_physical=*/true);
}

StatusOr<std::string> FieldIdsEntry(std::string_view delta_type, std::optional<int64_t> id,
                                    std::string_view column) {
  nlohmann::json type = std::string(delta_type);
  if (!delta_type.empty() && delta_type.front() == '{') {
    DC_ASSIGN_OR_RETURN(type, ParseType(delta_type, column));
  }
  try {
    return FieldIds(type, id, column);
  } catch (const nlohmann::json::exception& e) {
    return Malformed(column, e.what());
  }
}

}  // namespace deltacommit::data_internal
