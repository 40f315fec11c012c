#include "service/unity/uc_types.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/schema.h"
#include "service/unity/uc_json.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;

// The key names of nested types in the two spellings.
struct Spelling {
  const char* element_type;
  const char* contains_null;
  const char* key_type;
  const char* value_type;
  const char* value_contains_null;
};
constexpr Spelling kDeltaLog = {"elementType", "containsNull", "keyType", "valueType",
                                "valueContainsNull"};
constexpr Spelling kDeltaApi = {"element-type", "contains-null", "key-type", "value-type",
                                "value-contains-null"};

Status Bad(const std::string& path, const std::string& problem) {
  return InvalidArgumentError("field \"columns\"" + (path.empty() ? "" : " at " + path) + ": " +
                              problem);
}

StatusOr<Json> Respell(const Json& type, const Spelling& from, const Spelling& to,
                       const std::string& path);

StatusOr<Json> Member(const Json& object, const char* key, const Spelling& from, const Spelling& to,
                      const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) return Bad(path, std::string("has no \"") + key + "\"");
  return Respell(*it, from, to, path);
}

StatusOr<bool> Flag(const Json& object, const char* key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) return true;  // Spark's default
  if (!it->is_boolean()) return Bad(path, std::string("\"") + key + "\" is not a boolean");
  return it->get<bool>();
}

StatusOr<Json> RespellStruct(const Json& type, const Spelling& from, const Spelling& to,
                             const std::string& path) {
  auto fields = type.find("fields");
  if (fields == type.end() || !fields->is_array()) return Bad(path, "a struct needs \"fields\"");
  Json out_fields = Json::array();
  for (const Json& field : *fields) {
    if (!field.is_object() || !field.contains("name") || !field["name"].is_string()) {
      return Bad(path, "a struct field needs a string \"name\"");
    }
    const std::string name = field["name"].get<std::string>();
    const std::string field_path = path.empty() ? name : path + "." + name;
    DC_ASSIGN_OR_RETURN(Json field_type, Member(field, "type", from, to, field_path));
    DC_ASSIGN_OR_RETURN(bool nullable, Flag(field, "nullable", field_path));
    Json metadata = field.value("metadata", Json::object());
    if (!metadata.is_object()) return Bad(field_path, "\"metadata\" is not an object");
    out_fields.push_back(
        {{"name", name}, {"type", field_type}, {"nullable", nullable}, {"metadata", metadata}});
  }
  return Json{{"type", "struct"}, {"fields", out_fields}};
}

// `type` in spelling `from` -> the same type in spelling `to`. A key of the
// other spelling is refused rather than ignored: it would drop a nested
// type's nullability silently.
StatusOr<Json> Respell(const Json& type, const Spelling& from, const Spelling& to,
                       const std::string& path) {
  if (type.is_string()) return type;
  if (!type.is_object() || !type.contains("type") || !type["type"].is_string()) {
    return Bad(path, "a type is a name or an object with a \"type\"");
  }
  const std::string kind = type["type"].get<std::string>();
  if (kind == "struct") return RespellStruct(type, from, to, path);
  if (kind == "array") {
    if (type.contains(to.element_type) && std::string(to.element_type) != from.element_type) {
      return Bad(path, std::string("\"") + to.element_type + "\" is spelt \"" + from.element_type +
                           "\" here");
    }
    DC_ASSIGN_OR_RETURN(Json element, Member(type, from.element_type, from, to, path + ".element"));
    DC_ASSIGN_OR_RETURN(bool contains_null, Flag(type, from.contains_null, path));
    return Json{{"type", "array"}, {to.element_type, element}, {to.contains_null, contains_null}};
  }
  if (kind == "map") {
    if (type.contains(to.key_type) && std::string(to.key_type) != from.key_type) {
      return Bad(path,
                 std::string("\"") + to.key_type + "\" is spelt \"" + from.key_type + "\" here");
    }
    DC_ASSIGN_OR_RETURN(Json key, Member(type, from.key_type, from, to, path + ".key"));
    DC_ASSIGN_OR_RETURN(Json value, Member(type, from.value_type, from, to, path + ".value"));
    DC_ASSIGN_OR_RETURN(bool value_contains_null, Flag(type, from.value_contains_null, path));
    return Json{{"type", "map"},
                {to.key_type, key},
                {to.value_type, value},
                {to.value_contains_null, value_contains_null}};
  }
  return Bad(path, "unknown type " + QuoteForMessage(kind));
}

std::string PrimitiveText(const std::string& name) {
  static const std::map<std::string, std::string, std::less<>> kSpark = {
      {"long", "bigint"}, {"integer", "int"}, {"short", "smallint"}, {"byte", "tinyint"}};
  auto it = kSpark.find(name);
  return it == kSpark.end() ? name : it->second;
}

std::string TypeName(const Json& type) {
  if (type.is_object()) {
    std::string kind = type.value("type", "");
    std::transform(kind.begin(), kind.end(), kind.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return kind;
  }
  const std::string name = type.get<std::string>();
  if (name.starts_with("decimal")) return "DECIMAL";
  if (name == "integer") return "INT";
  if (name == "void") return "NULL";
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper;
}

StatusOr<Json> ParsedSchema(std::string_view schema_string) {
  DC_RETURN_IF_ERROR(ParseSchema(schema_string).status());
  return Json::parse(schema_string);
}

}  // namespace

std::string TypeText(const Json& type) {
  if (type.is_string()) return PrimitiveText(type.get<std::string>());
  const std::string kind = type.value("type", "");
  if (kind == "array") return "array<" + TypeText(type.value("elementType", Json())) + ">";
  if (kind == "map") {
    return "map<" + TypeText(type.value("keyType", Json())) + "," +
           TypeText(type.value("valueType", Json())) + ">";
  }
  std::string text = "struct<";
  bool first = true;
  for (const Json& field : type.value("fields", Json::array())) {
    if (!first) text += ",";
    first = false;
    text += field.value("name", "") + ":" + TypeText(field.value("type", Json()));
  }
  return text + ">";
}

StatusOr<std::string> SchemaStringFromDeltaColumns(const Json& columns) {
  if (!columns.is_object() || columns.value("type", "") != "struct") {
    return Bad("", "is not a struct type ({\"type\":\"struct\",\"fields\":[...]})");
  }
  DC_ASSIGN_OR_RETURN(Json schema, Respell(columns, kDeltaApi, kDeltaLog, ""));
  std::string text = DumpJson(schema);
  Status parsed = ParseSchema(text).status();
  if (!parsed.ok()) return Bad("", parsed.message());
  return text;
}

StatusOr<Json> DeltaColumnsFromSchemaString(std::string_view schema_string) {
  StatusOr<Json> schema = ParsedSchema(schema_string);
  if (!schema.ok()) return DataLossError("stored schema: " + schema.status().message());
  return Respell(*schema, kDeltaLog, kDeltaApi, "");
}

StatusOr<Json> ColumnInfosFromSchemaString(std::string_view schema_string,
                                           const std::vector<std::string>& partition_columns) {
  StatusOr<Json> schema = ParsedSchema(schema_string);
  if (!schema.ok()) return DataLossError("stored schema: " + schema.status().message());
  Json columns = Json::array();
  int position = 0;
  for (const Json& field : (*schema)["fields"]) {
    const Json& type = field["type"];
    Json column = {{"name", field["name"]},        {"type_text", TypeText(type)},
                   {"type_json", DumpJson(field)}, {"type_name", TypeName(type)},
                   {"position", position++},       {"nullable", field.value("nullable", true)}};
    const std::string text = type.is_string() ? type.get<std::string>() : "";
    int precision = 0, scale = 0;
    if (std::sscanf(text.c_str(), "decimal(%d,%d)", &precision, &scale) == 2) {
      column["type_precision"] = precision;
      column["type_scale"] = scale;
    }
    const Json& metadata = field.value("metadata", Json::object());
    if (metadata.contains("comment") && metadata["comment"].is_string()) {
      column["comment"] = metadata["comment"];
    }
    auto partition = std::find(partition_columns.begin(), partition_columns.end(),
                               field["name"].get<std::string>());
    if (partition != partition_columns.end()) {
      column["partition_index"] = partition - partition_columns.begin();
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

StatusOr<std::string> SchemaStringFromColumnInfos(const Json& columns) {
  if (!columns.is_array()) return Bad("", "is not a list of columns");
  std::vector<std::pair<int64_t, Json>> ordered;
  for (size_t i = 0; i < columns.size(); ++i) {
    const Json& column = columns[i];
    const std::string where = "column " + std::to_string(i);
    if (!column.is_object() || !column.contains("name") || !column["name"].is_string()) {
      return Bad(where, "needs a string \"name\"");
    }
    const std::string name = column["name"].get<std::string>();
    if (!column.contains("type_json") || !column["type_json"].is_string()) {
      return Bad(name, "needs \"type_json\", the field's Spark JSON");
    }
    Json field = Json::parse(column["type_json"].get<std::string>(), nullptr, false);
    if (!field.is_object() || field.value("name", Json()) != column["name"]) {
      return Bad(name, "\"type_json\" is not a struct field named " + QuoteForMessage(name));
    }
    // value() would throw on a "nullable" of another type.
    const Json nullable_in_json = field.contains("nullable") ? field["nullable"] : Json(true);
    if (!nullable_in_json.is_boolean()) {
      return Bad(name, "\"type_json\" has a \"nullable\" that is not true or false");
    }
    if (column.contains("nullable") && nullable_in_json != column["nullable"]) {
      return Bad(name, "\"type_json\" and \"nullable\" disagree");
    }
    int64_t position = static_cast<int64_t>(i);
    if (column.contains("position")) {
      if (!column["position"].is_number_integer()) return Bad(name, "\"position\" is not a number");
      position = column["position"].get<int64_t>();
    }
    ordered.emplace_back(position, std::move(field));
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Json fields = Json::array();
  for (size_t i = 0; i < ordered.size(); ++i) {
    if (i > 0 && ordered[i].first == ordered[i - 1].first) {
      return Bad("", "two columns have position " + std::to_string(ordered[i].first));
    }
    fields.push_back(std::move(ordered[i].second));
  }
  std::string text = DumpJson(Json{{"type", "struct"}, {"fields", fields}});
  Status parsed = ParseSchema(text).status();
  if (!parsed.ok()) return Bad("", parsed.message());
  return text;
}

}  // namespace deltacommit::service::unity
