#include "deltacommit/dynamodb/attribute_value.h"

#include <charconv>
#include <utility>

#include "deltacommit/dynamodb/dynamodb_json.h"

namespace deltacommit::dynamodb {

AttributeValue AttributeValue::String(std::string value) {
  AttributeValue v;
  v.type_ = Type::kString;
  v.text_ = std::move(value);
  return v;
}

AttributeValue AttributeValue::Number(std::string decimal) {
  AttributeValue v;
  v.type_ = Type::kNumber;
  v.text_ = std::move(decimal);
  return v;
}

AttributeValue AttributeValue::Number(int64_t value) { return Number(std::to_string(value)); }

AttributeValue AttributeValue::Bool(bool value) {
  AttributeValue v;
  v.type_ = Type::kBool;
  v.bool_ = value;
  return v;
}

AttributeValue AttributeValue::List(std::vector<AttributeValue> values) {
  AttributeValue v;
  v.type_ = Type::kList;
  v.list_ = std::move(values);
  return v;
}

AttributeValue AttributeValue::Map(Item values) {
  AttributeValue v;
  v.type_ = Type::kMap;
  v.map_ = std::make_shared<const Item>(std::move(values));
  return v;
}

const Item& AttributeValue::map() const {
  static const Item kEmpty;
  return map_ ? *map_ : kEmpty;
}

std::optional<int64_t> AttributeValue::AsInt64() const {
  if (type_ != Type::kNumber) return std::nullopt;
  int64_t out = 0;
  const char* end = text_.data() + text_.size();
  auto [ptr, error] = std::from_chars(text_.data(), end, out);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return out;
}

bool operator==(const AttributeValue& a, const AttributeValue& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case AttributeValue::Type::kNull:
      return true;
    case AttributeValue::Type::kString:
    case AttributeValue::Type::kNumber:
      return a.text_ == b.text_;
    case AttributeValue::Type::kBool:
      return a.bool_ == b.bool_;
    case AttributeValue::Type::kList:
      return a.list_ == b.list_;
    case AttributeValue::Type::kMap:
      return a.map() == b.map();
  }
  return false;
}

std::optional<std::string> GetString(const Item& item, std::string_view name) {
  auto it = item.find(std::string(name));
  if (it == item.end() || it->second.type() != AttributeValue::Type::kString) return std::nullopt;
  return it->second.string_value();
}

std::string ToJson(const AttributeValue& value) {
  // Invalid UTF-8 cannot be JSON; replacing it keeps this total (a request
  // built from such a value is refused in dynamodb_json.cc instead).
  return wire::EncodeValue(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string ToJson(const Item& item) {
  return wire::EncodeItem(item).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<AttributeValue> AttributeValueFromJson(std::string_view text) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return InvalidArgumentError("attribute value: not valid JSON");
  return wire::DecodeValue(parsed, "attribute value");
}

StatusOr<Item> ItemFromJson(std::string_view text) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return InvalidArgumentError("item: not valid JSON");
  return wire::DecodeItem(parsed, "item");
}

}  // namespace deltacommit::dynamodb
