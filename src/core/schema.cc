#include "deltacommit/schema.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <exception>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/core/ascii.h"

namespace deltacommit {
namespace {

// ordered_json keeps field order, so a re-serialised schema reads like the
// input and like what Spark writes ("type" before "fields").
using Json = nlohmann::ordered_json;

// The protocol's primitive type names (decimal is handled apart). "void" is
// not in the protocol's table but old tables may hold it (PROTOCOL.md notes
// it), so reading must accept it.
constexpr std::array<std::string_view, 14> kPrimitiveTypes = {
    "string",    "long",          "integer", "short",  "byte",
    "float",     "double",        "boolean", "binary", "date",
    "timestamp", "timestamp_ntz", "variant", "void"};

// SQL spellings accepted by the compact --schema form.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4>
    kTypeAliases = {{{"bigint", "long"},
                     {"int", "integer"},
                     {"smallint", "short"},
                     {"tinyint", "byte"}}};

// Characters Delta rejects in column names unless column mapping is on.
constexpr std::string_view kInvalidNameChars = " ,;{}()\n\t=";

constexpr int kMaxDecimalPrecision = 38;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::string StripSpaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
  }
  return out;
}

Status FieldError(std::string_view path, std::string_view problem) {
  return InvalidArgumentError("field " + Quoted(path) + ": " +
                              std::string(problem));
}

std::optional<int> ParseSmallInt(std::string_view digits) {
  int value = 0;
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size())
    return std::nullopt;
  return value;
}

// `text` has no spaces and starts with "decimal". Returns "decimal(p,s)".
// Bare "decimal" and "decimal(p)" are Spark's SQL defaults (10,0) and (p,0).
StatusOr<std::string> CanonicalDecimal(std::string_view path,
                                       std::string_view text,
                                       std::string_view original) {
  std::string_view args = text.substr(std::string_view("decimal").size());
  int precision = 10;
  int scale = 0;
  if (!args.empty()) {
    if (args.size() < 3 || args.front() != '(' || args.back() != ')') {
      return FieldError(path, "unknown type " + Quoted(original));
    }
    args = args.substr(1, args.size() - 2);
    const size_t comma = args.find(',');
    std::optional<int> p = ParseSmallInt(args.substr(0, comma));
    std::optional<int> s = comma == std::string_view::npos
                               ? std::optional<int>(0)
                               : ParseSmallInt(args.substr(comma + 1));
    if (!p || !s) return FieldError(path, "unknown type " + Quoted(original));
    precision = *p;
    scale = *s;
  }
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 ||
      scale > precision) {
    return FieldError(
        path,
        "type " + Quoted(original) +
            ": decimal needs 1 <= precision <= 38 and 0 <= scale <= precision");
  }
  return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) +
         ")";
}

// A primitive type name as the log writes it. `sql_aliases` also accepts the
// compact form's case-insensitive SQL spellings.
StatusOr<std::string> CanonicalPrimitive(std::string_view path,
                                         std::string_view name,
                                         bool sql_aliases) {
  std::string key = StripSpaces(name);
  if (sql_aliases) key = AsciiLower(key);
  if (key.rfind("decimal", 0) == 0) return CanonicalDecimal(path, key, name);
  if (sql_aliases) {
    for (const auto& [alias, canonical] : kTypeAliases) {
      if (key == alias) return std::string(canonical);
    }
  }
  // The compact form declares plain new columns: void is only tolerated in
  // old tables, and variant columns need a variant-capable data writer, so
  // they are left to the JSON form.
  for (std::string_view t : kPrimitiveTypes) {
    if (key == t && !(sql_aliases && (t == "variant" || t == "void")))
      return key;
  }
  std::string problem = "unknown type " + Quoted(name);
  if (sql_aliases && name.find('<') != std::string_view::npos) {
    problem += " (nested types need the JSON schema form)";
  } else if (sql_aliases && !name.empty() && name.back() == '!') {
    problem += " (write `name:type not null` for a non-nullable field)";
  }
  return FieldError(path, problem);
}

std::string JoinPath(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name)
                        : std::string(parent) + "." + std::string(name);
}

// Walks a schema JSON value, validating it and filling a Schema.
class SchemaReader {
 public:
  explicit SchemaReader(Schema* out) : out_(out) {}

  Status TopLevel(const Json& root) {
    if (!IsStruct(root)) {
      return InvalidArgumentError(
          R"(expected {"type":"struct","fields":[...]})");
    }
    return Struct(root, "", /*top_level=*/true);
  }

 private:
  static bool IsStruct(const Json& j) {
    return j.is_object() && j.contains("type") && j["type"] == "struct";
  }

  Status Struct(const Json& j, const std::string& path, bool top_level) {
    if (!j.contains("fields") || !j["fields"].is_array()) {
      return path.empty()
                 ? InvalidArgumentError("struct needs a \"fields\" array")
                 : FieldError(path, "struct needs a \"fields\" array");
    }
    std::vector<std::string> seen;  // lower-cased names in this struct
    for (const Json& field : j["fields"]) {
      DC_RETURN_IF_ERROR(Field(field, path, top_level, &seen));
    }
    return OkStatus();
  }

  Status Field(const Json& j, const std::string& parent, bool top_level,
               std::vector<std::string>* seen) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) {
      return parent.empty()
                 ? InvalidArgumentError("a field has no string \"name\"")
                 : FieldError(parent, "a nested field has no string \"name\"");
    }
    const std::string name = j["name"].get<std::string>();
    const std::string path = JoinPath(parent, name);
    std::string lower = AsciiLower(name);
    if (std::find(seen->begin(), seen->end(), lower) != seen->end()) {
      return FieldError(path,
                        "duplicate field name (names are case-insensitive)");
    }
    seen->push_back(std::move(lower));
    if (!j.contains("type")) return FieldError(path, "missing \"type\"");
    StructField field{name, "", true, "{}"};
    DC_ASSIGN_OR_RETURN(field.type, Type(j["type"], path));
    DC_ASSIGN_OR_RETURN(field.nullable, OptionalBool(j, "nullable", path));
    DC_ASSIGN_OR_RETURN(field.metadata, Metadata(j, path));
    if (top_level) out_->fields.push_back(std::move(field));
    return OkStatus();
  }

  static StatusOr<bool> OptionalBool(const Json& j, const char* key,
                                     const std::string& path) {
    if (!j.contains(key)) return true;
    if (!j[key].is_boolean())
      return FieldError(path, Quoted(key) + " must be a boolean");
    return j[key].get<bool>();
  }

  StatusOr<std::string> Metadata(const Json& j, const std::string& path) {
    if (!j.contains("metadata")) return std::string("{}");
    const Json& m = j["metadata"];
    if (!m.is_object())
      return FieldError(path, "\"metadata\" must be an object");
    for (const auto& item : m.items()) {
      out_->metadata_keys.push_back(FieldMetadataKey{path, item.key()});
    }
    return m.dump();
  }

  // Returns the primitive's canonical name or the complex type's JSON text.
  StatusOr<std::string> Type(const Json& t, const std::string& path) {
    if (t.is_string()) {
      DC_ASSIGN_OR_RETURN(std::string name,
                          CanonicalPrimitive(path, t.get<std::string>(),
                                             /*sql_aliases=*/false));
      out_->primitive_types.insert(name);
      return name;
    }
    if (!t.is_object() || !t.contains("type") || !t["type"].is_string()) {
      return FieldError(path, "\"type\" must be a type name or a type object");
    }
    const std::string kind = t["type"].get<std::string>();
    if (kind == "struct") {
      DC_RETURN_IF_ERROR(Struct(t, path, /*top_level=*/false));
    } else if (kind == "array") {
      DC_RETURN_IF_ERROR(
          Child(t, "elementType", "containsNull", path + ".element"));
    } else if (kind == "map") {
      DC_RETURN_IF_ERROR(Child(t, "keyType", nullptr, path + ".key"));
      DC_RETURN_IF_ERROR(
          Child(t, "valueType", "valueContainsNull", path + ".value"));
    } else if (kind == "variant") {
      // PROTOCOL.md's variant example spells an element type as
      // {"type":"variant"}.
      out_->primitive_types.insert(kind);
      return kind;
    } else {
      return FieldError(path, "unknown type " + Quoted(kind));
    }
    return t.dump();
  }

  Status Child(const Json& t, const char* type_key, const char* null_key,
               const std::string& path) {
    if (!t.contains(type_key))
      return FieldError(path, "missing " + Quoted(type_key));
    DC_RETURN_IF_ERROR(Type(t[type_key], path).status());
    if (null_key != nullptr)
      DC_RETURN_IF_ERROR(OptionalBool(t, null_key, path).status());
    return OkStatus();
  }

  Schema* out_;
};

StatusOr<Json> ParseJson(std::string_view text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return InvalidArgumentError(std::string("not valid JSON: ") + e.what());
  }
}

StatusOr<Schema> ParseSchemaJson(const Json& root) {
  Schema schema;
  SchemaReader reader(&schema);
  try {
    DC_RETURN_IF_ERROR(reader.TopLevel(root));
  } catch (const std::exception&
               e) {  // nlohmann: defensive, types are checked first
    return InvalidArgumentError(std::string("malformed schema: ") + e.what());
  }
  return schema;
}

// Splits on commas outside parentheses (decimal(10,2) holds one).
StatusOr<std::vector<std::string_view>> SplitFields(std::string_view list) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '(') ++depth;
    if (list[i] == ')' && --depth < 0) break;
    if (list[i] == ',' && depth == 0) {
      parts.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0)
    return InvalidArgumentError("unbalanced parentheses in " + Quoted(list));
  parts.push_back(list.substr(start));
  return parts;
}

// Removes a trailing "not null" (case-insensitive, any whitespace between).
bool StripNotNull(std::string_view* type) {
  std::string_view t = Trim(*type);
  const size_t null_start = t.find_last_of(" \t") + 1;
  if (null_start == 0 || AsciiLower(t.substr(null_start)) != "null") return false;
  std::string_view rest = Trim(t.substr(0, null_start));
  const size_t not_start = rest.find_last_of(" \t") + 1;
  if (not_start == 0 || AsciiLower(rest.substr(not_start)) != "not") return false;
  *type = Trim(rest.substr(0, not_start));
  return true;
}

StatusOr<Json> CompactField(std::string_view entry, size_t position) {
  entry = Trim(entry);
  const size_t colon = entry.find(':');
  if (entry.empty()) {
    return InvalidArgumentError("field " + std::to_string(position) +
                                " is empty");
  }
  if (colon == std::string_view::npos) {
    return InvalidArgumentError(Quoted(entry) + " is not name:type");
  }
  const std::string_view name = Trim(entry.substr(0, colon));
  std::string_view type = Trim(entry.substr(colon + 1));
  if (name.empty()) {
    return InvalidArgumentError("field " + std::to_string(position) +
                                " has an empty name");
  }
  // A schema string is JSON, which holds only UTF-8.
  if (!simdjson::validate_utf8(name.data(), name.size())) {
    return InvalidArgumentError("field " + std::to_string(position) +
                                ": its name is not valid UTF-8");
  }
  if (name.find_first_of(kInvalidNameChars) != std::string_view::npos) {
    return FieldError(name,
                      "name contains one of \" ,;{}()=\" or a tab/newline "
                      "(use the JSON schema form with column mapping)");
  }
  const bool not_null = StripNotNull(&type);
  DC_ASSIGN_OR_RETURN(std::string canonical,
                      CanonicalPrimitive(name, type, /*sql_aliases=*/true));
  Json field;
  field["name"] = std::string(name);
  field["type"] = canonical;
  field["nullable"] = !not_null;
  field["metadata"] = Json::object();
  return field;
}

StatusOr<std::string> SchemaStringFromList(std::string_view list) {
  DC_ASSIGN_OR_RETURN(std::vector<std::string_view> entries, SplitFields(list));
  Json fields = Json::array();
  for (size_t i = 0; i < entries.size(); ++i) {
    DC_ASSIGN_OR_RETURN(Json field, CompactField(entries[i], i + 1));
    fields.push_back(std::move(field));
  }
  Json root;
  root["type"] = "struct";
  root["fields"] = std::move(fields);
  // Duplicate names and the like are checked once, by the same reader as JSON.
  DC_RETURN_IF_ERROR(ParseSchemaJson(root).status());
  try {
    return root.dump();
  } catch (const Json::exception& e) {
    return InvalidArgumentError(std::string("cannot serialise schema: ") + e.what());
  }
}

StatusOr<std::string> SchemaStringFromJson(std::string_view text) {
  DC_ASSIGN_OR_RETURN(Json root, ParseJson(text));
  DC_RETURN_IF_ERROR(ParseSchemaJson(root).status());
  try {
    return root.dump();
  } catch (const Json::exception& e) {
    return InvalidArgumentError(std::string("cannot serialise schema: ") +
                                e.what());
  }
}

}  // namespace

StatusOr<Schema> ParseSchema(std::string_view schema_string) {
  StatusOr<Json> root = ParseJson(schema_string);
  if (!root.ok()) return root.status().WithContext("schema");
  StatusOr<Schema> schema = ParseSchemaJson(*root);
  if (!schema.ok()) return schema.status().WithContext("schema");
  return schema;
}

StatusOr<std::string> SchemaStringFromArgument(std::string_view arg) {
  const std::string_view trimmed = Trim(arg);
  if (trimmed.empty()) return InvalidArgumentError("--schema: empty schema");
  StatusOr<std::string> result = trimmed.front() == '{'
                                     ? SchemaStringFromJson(trimmed)
                                     : SchemaStringFromList(trimmed);
  if (!result.ok()) return result.status().WithContext("--schema");
  return result;
}

Status ValidatePartitionColumns(
    const Schema& schema, const std::vector<std::string>& partition_columns) {
  std::set<std::string_view> seen;
  for (const std::string& column : partition_columns) {
    if (!seen.insert(column).second) {
      return InvalidArgumentError("partition column " + Quoted(column) +
                                  " is listed twice");
    }
    auto it =
        std::find_if(schema.fields.begin(), schema.fields.end(),
                     [&](const StructField& f) { return f.name == column; });
    if (it == schema.fields.end()) {
      auto loose = std::find_if(
          schema.fields.begin(), schema.fields.end(),
          [&](const StructField& f) { return AsciiLower(f.name) == AsciiLower(column); });
      std::string hint = loose == schema.fields.end()
                             ? ""
                             : " (did you mean " + Quoted(loose->name) + "?)";
      return InvalidArgumentError("partition column " + Quoted(column) +
                                  " is not a top-level column of the schema" +
                                  hint);
    }
    if (!it->IsPrimitive() || it->type == "variant") {
      return InvalidArgumentError(
          "partition column " + Quoted(column) + " has type " +
          (it->IsPrimitive() ? it->type : "struct/array/map") +
          "; partition columns must have a primitive, comparable type");
    }
  }
  if (!partition_columns.empty() &&
      partition_columns.size() == schema.fields.size()) {
    return InvalidArgumentError(
        "all columns are partition columns; at least one data column is "
        "needed");
  }
  return OkStatus();
}

std::vector<std::string> FieldsWithMetadataKey(const Schema& schema,
                                               std::string_view key_prefix) {
  std::vector<std::string> paths;
  for (const FieldMetadataKey& k : schema.metadata_keys) {
    if (k.key.rfind(key_prefix, 0) != 0) continue;
    if (std::find(paths.begin(), paths.end(), k.field_path) == paths.end()) {
      paths.push_back(k.field_path);
    }
  }
  return paths;
}

bool SchemaUsesType(const Schema& schema, std::string_view type_name) {
  if (type_name == "decimal") {
    return std::any_of(
        schema.primitive_types.begin(), schema.primitive_types.end(),
        [](const std::string& t) { return t.rfind("decimal(", 0) == 0; });
  }
  return schema.primitive_types.find(type_name) != schema.primitive_types.end();
}

}  // namespace deltacommit
