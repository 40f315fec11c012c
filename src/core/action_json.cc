// The JSON value layer under ActionParser: ValueReader's decoding of single
// typed values from a simdjson On Demand document (see
// action_json_internal.h). Which fields an action has, and the parser that
// walks a line, are in action_json_parse.cc.
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/action_json_internal.h"

namespace deltacommit::internal {
namespace {

using simdjson::error_code;

std::string_view TrimTrailingSpace(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' ||
                        s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsIntegerSyntax(std::string_view token) {
  if (!token.empty() && token.front() == '-') token.remove_prefix(1);
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

}  // namespace

std::string FieldPath::ToString() const {
  std::string out = parent == nullptr ? std::string() : parent->ToString();
  if (index >= 0) return out + "[" + std::to_string(index) + "]";
  if (!out.empty()) out += '.';
  return out + std::string(name);
}

Status FieldError(const FieldPath& path, std::string_view problem) {
  return InvalidArgumentError(path.ToString() + ": " + std::string(problem));
}

std::string_view TypeName(od::json_type type) {
  switch (type) {
    case od::json_type::array:
      return "array";
    case od::json_type::object:
      return "object";
    case od::json_type::number:
      return "number";
    case od::json_type::string:
      return "string";
    case od::json_type::boolean:
      return "boolean";
    case od::json_type::null:
      return "null";
  }
  return "unknown";
}

Status ValueReader::Malformed(error_code error) {
  // Reaching here with a type error means the token looked like the wanted
  // type but is not valid JSON (`tru`, `nul`, `-`); simdjson's text for it
  // ("does not have the requested type") would mislead.
  const std::string_view why = error == simdjson::INCORRECT_TYPE
                                   ? std::string_view("invalid value")
                                   : simdjson::error_message(error);
  const char* where = nullptr;
  if (doc_.current_location().get(where) == simdjson::SUCCESS) {
    return MalformedAt(where, why);
  }
  return InvalidArgumentError("malformed JSON: " + std::string(why));
}

Status ValueReader::MalformedAt(const char* where, std::string_view why) const {
  return InvalidArgumentError("malformed JSON at byte " +
                              std::to_string(where - line_) + ": " +
                              std::string(why));
}

Status ValueReader::TypeError(od::value& v, const FieldPath& path,
                              od::json_type expected,
                              std::string_view expected_name,
                              error_code error) {
  od::json_type actual{};
  if (v.type().get(actual) != simdjson::SUCCESS || actual == expected) {
    return Malformed(error);
  }
  return FieldError(path, "expected " + std::string(expected_name) + ", got " +
                              std::string(TypeName(actual)));
}

Status ValueReader::IntegerError(od::value& v, const FieldPath& path,
                                 error_code error) {
  od::json_type actual{};
  if (v.type().get(actual) != simdjson::SUCCESS) return Malformed(error);
  if (actual != od::json_type::number) {
    return FieldError(
        path, "expected an integer, got " + std::string(TypeName(actual)));
  }
  if (error == simdjson::NUMBER_ERROR) return Malformed(error);
  const std::string_view token = TrimTrailingSpace(v.raw_json_token());
  if (IsIntegerSyntax(token)) {
    return FieldError(path, "integer out of range: " + std::string(token));
  }
  if (token.find_first_of(".eE") != std::string_view::npos) {
    return FieldError(path, "expected an integer, got " + std::string(token));
  }
  return Malformed(error);
}

Status ValueReader::GetObject(od::value& v, const FieldPath& path,
                              od::object* out) {
  if (error_code error = v.get_object().get(*out)) {
    return TypeError(v, path, od::json_type::object, "an object", error);
  }
  return OkStatus();
}

StatusOr<std::string_view> ValueReader::ReadRaw(od::value& v) {
  od::json_type type{};
  if (error_code error = v.type().get(type)) return Malformed(error);
  std::string_view raw;
  error_code error = simdjson::SUCCESS;
  if (type == od::json_type::object) {
    od::object object;
    error = v.get_object().get(object);
    if (!error) error = object.raw_json().get(raw);
  } else if (type == od::json_type::array) {
    od::array array;
    error = v.get_array().get(array);
    if (!error) error = array.raw_json().get(raw);
  } else {
    raw = v.raw_json_token();
  }
  if (error) return Malformed(error);
  raw = TrimTrailingSpace(raw);
  // On Demand skips what it does not decode without checking it; validate so
  // we never keep, and later write back, broken JSON. The slice lies inside
  // the padded line buffer, so the padding simdjson reads past it exists.
  const auto* bytes = reinterpret_cast<const uint8_t*>(raw.data());
  if (error_code bad = validator_.parse(bytes, raw.size(), false).error()) {
    return MalformedAt(raw.data(), simdjson::error_message(bad));
  }
  return raw;
}

Status ValueReader::Read(od::value& v, const FieldPath& path,
                         std::string* out) {
  std::string_view s;
  if (error_code error = v.get_string().get(s)) {
    return TypeError(v, path, od::json_type::string, "a string", error);
  }
  out->assign(s);
  return OkStatus();
}

Status ValueReader::Read(od::value& v, const FieldPath& path, int64_t* out) {
  if (error_code error = v.get_int64().get(*out)) {
    return IntegerError(v, path, error);
  }
  return OkStatus();
}

Status ValueReader::Read(od::value& v, const FieldPath& path, int32_t* out) {
  int64_t wide = 0;
  DC_RETURN_IF_ERROR(Read(v, path, &wide));
  if (wide < std::numeric_limits<int32_t>::min() ||
      wide > std::numeric_limits<int32_t>::max()) {
    return FieldError(path, "integer out of range for a 32-bit field: " +
                                std::to_string(wide));
  }
  *out = static_cast<int32_t>(wide);
  return OkStatus();
}

Status ValueReader::Read(od::value& v, const FieldPath& path, bool* out) {
  if (error_code error = v.get_bool().get(*out)) {
    return TypeError(v, path, od::json_type::boolean, "a boolean", error);
  }
  return OkStatus();
}

Status ValueReader::Read(od::value& v, const FieldPath& path,
                         std::vector<std::string>* out) {
  od::array array;
  if (error_code error = v.get_array().get(array)) {
    return TypeError(v, path, od::json_type::array, "an array", error);
  }
  out->clear();
  for (auto element : array) {
    od::value item;
    if (error_code error = element.get(item)) return Malformed(error);
    const FieldPath item_path{&path, {}, static_cast<int64_t>(out->size())};
    DC_RETURN_IF_ERROR(Read(item, item_path, &out->emplace_back()));
  }
  return OkStatus();
}

// A later duplicate key wins, as in the JSON readers Delta writers use.
template <typename Map>
Status ValueReader::ReadMap(od::value& v, const FieldPath& path, Map* out) {
  od::object object;
  DC_RETURN_IF_ERROR(GetObject(v, path, &object));
  out->clear();
  for (auto field : object) {
    std::string_view key;
    if (error_code error = field.unescaped_key().get(key)) {
      return Malformed(error);
    }
    od::value value;
    if (error_code error = field.value().get(value)) return Malformed(error);
    typename Map::mapped_type item;
    DC_RETURN_IF_ERROR(Read(value, FieldPath{&path, key}, &item));
    out->insert_or_assign(std::string(key), std::move(item));
  }
  return OkStatus();
}

Status ValueReader::Read(od::value& v, const FieldPath& path, StringMap* out) {
  return ReadMap(v, path, out);
}

Status ValueReader::Read(od::value& v, const FieldPath& path,
                         NullableStringMap* out) {
  return ReadMap(v, path, out);
}

// commitInfo.operationParameters: values of any type, kept as written so that
// numbers and nested objects round-trip; order and duplicates are kept too.
Status ValueReader::Read(od::value& v, const FieldPath& path,
                         OperationParameters* out) {
  od::object object;
  DC_RETURN_IF_ERROR(GetObject(v, path, &object));
  out->clear();
  for (auto field : object) {
    std::string_view key;
    if (error_code error = field.unescaped_key().get(key)) {
      return Malformed(error);
    }
    od::value value;
    if (error_code error = field.value().get(value)) return Malformed(error);
    DC_ASSIGN_OR_RETURN(const std::string_view raw, ReadRaw(value));
    out->emplace_back(key, raw);
  }
  return OkStatus();
}

}  // namespace deltacommit::internal
