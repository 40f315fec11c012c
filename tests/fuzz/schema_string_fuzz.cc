// Fuzz target: a table's schema as the log holds it, metaData.schemaString
// (ParseSchema, src/core/schema.cc), and the CLI's --schema value
// (SchemaStringFromArgument: the same JSON, or the compact
// `name:type not null,...` list), with the queries the commit path makes of
// a schema (ValidatePartitionColumns, FieldsWithMetadataKey,
// SchemaUsesType).
//
// Invariants: a refusal is kInvalidArgument ("schema: ..." / "--schema:
// ..."), never an exception; --schema accepts a JSON object exactly when
// ParseSchema does, and what it returns parses to the same Schema and is
// returned unchanged when given again (a compact list too); in an accepted
// schema the top-level names are unique ignoring case, every primitive type
// is a canonical name (decimal(p,s) with 1 <= p <= 38, 0 <= s <= p), the
// metadata is a JSON object; a partition column is accepted as documented
// (a primitive, non-variant top-level field, one data column left).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/schema.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;

bool IsSpace(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsCanonicalDecimal(std::string_view type) {
  if (!type.starts_with("decimal(") || !type.ends_with(")")) return false;
  const std::string_view args = type.substr(8, type.size() - 9);
  const size_t comma = args.find(',');
  if (comma == std::string_view::npos) return false;
  int precision = -1;
  int scale = -1;
  const std::string_view p = args.substr(0, comma);
  const std::string_view s = args.substr(comma + 1);
  auto parsed = [](std::string_view digits, int& out) {
    auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size() &&
           !digits.empty() && (digits == "0" || digits.front() != '0');
  };
  return parsed(p, precision) && parsed(s, scale) && precision >= 1 &&
         precision <= 38 && scale >= 0 && scale <= precision;
}

bool IsCanonicalPrimitive(std::string_view type) {
  static const std::set<std::string_view> kNames = {
      "string",    "long",          "integer", "short",  "byte",
      "float",     "double",        "boolean", "binary", "date",
      "timestamp", "timestamp_ntz", "variant", "void"};
  return kNames.contains(type) || IsCanonicalDecimal(type);
}

void CheckSchema(const Schema& schema) {
  std::set<std::string> lower_names;
  for (const StructField& field : schema.fields) {
    FUZZ_CHECK(lower_names.insert(Lower(field.name)).second);
    if (field.IsPrimitive()) {
      FUZZ_CHECK(IsCanonicalPrimitive(field.type));
      FUZZ_CHECK(schema.primitive_types.contains(field.type));
    } else {
      const nlohmann::json type =
          nlohmann::json::parse(field.type, nullptr, false);
      FUZZ_CHECK(type.is_object());
    }
    const nlohmann::json metadata =
        nlohmann::json::parse(field.metadata, nullptr, false);
    FUZZ_CHECK(metadata.is_object());
  }
  for (const std::string& type : schema.primitive_types) {
    FUZZ_CHECK(IsCanonicalPrimitive(type));
    FUZZ_CHECK(SchemaUsesType(schema, type));
  }
  FUZZ_CHECK(
      SchemaUsesType(schema, "decimal") ==
      std::any_of(
          schema.primitive_types.begin(), schema.primitive_types.end(),
          [](const std::string& t) { return t.starts_with("decimal("); }));
  for (const FieldMetadataKey& key : schema.metadata_keys) {
    const std::vector<std::string> paths =
        FieldsWithMetadataKey(schema, key.key);
    FUZZ_CHECK(std::find(paths.begin(), paths.end(), key.field_path) !=
               paths.end());
  }
  FUZZ_CHECK(ValidatePartitionColumns(schema, {}).ok());
  if (schema.fields.empty()) return;
  const StructField& first = schema.fields.front();
  const bool may_partition = first.IsPrimitive() && first.type != "variant" &&
                             schema.fields.size() > 1;
  FUZZ_CHECK(ValidatePartitionColumns(schema, {first.name}).ok() ==
             may_partition);
  FUZZ_CHECK(!ValidatePartitionColumns(schema, {first.name, first.name}).ok());
}

void CheckArgument(std::string_view text) {
  StatusOr<std::string> written = SchemaStringFromArgument(text);
  std::string_view trimmed = text;
  while (!trimmed.empty() && IsSpace(trimmed.front())) trimmed.remove_prefix(1);
  while (!trimmed.empty() && IsSpace(trimmed.back())) trimmed.remove_suffix(1);
  const bool json_form = trimmed.starts_with("{");
  if (json_form) FUZZ_CHECK(written.ok() == ParseSchema(trimmed).ok());
  if (!written.ok()) {
    FUZZ_CHECK(written.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(written.status().message().starts_with("--schema: "));
    return;
  }
  StatusOr<Schema> schema = ParseSchema(*written);
  FUZZ_CHECK(schema.ok());
  CheckSchema(*schema);
  if (json_form) {
    StatusOr<Schema> original = ParseSchema(trimmed);
    FUZZ_CHECK(*schema == *original);
  } else {
    for (const StructField& field : schema->fields)
      FUZZ_CHECK(field.IsPrimitive());
  }
  StatusOr<std::string> again = SchemaStringFromArgument(*written);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<Schema> schema = ParseSchema(text);
  if (schema.ok()) {
    CheckSchema(*schema);
  } else {
    FUZZ_CHECK(schema.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(schema.status().message().starts_with("schema: "));
  }
  CheckArgument(text);
  return 0;
}
