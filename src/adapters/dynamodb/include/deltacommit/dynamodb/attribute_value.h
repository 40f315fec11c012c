// AttributeValue and Item: DynamoDB's typed values, as much of them as the
// commit protocols need. S (string), N (number, kept as the decimal text
// DynamoDB sends, so no precision is lost), BOOL and NULL hold the
// s3-dynamodb items of docs/protocols/s3-dynamodb.md; L and M hold Delta
// Spark's coordinator item (a list of commit maps). Binary and set types are
// not supported: decoding them is kUnimplemented.
//
// The wire form is DynamoDB's JSON: {"S":"x"}, {"N":"7"}, {"BOOL":true},
// {"NULL":true}, {"L":[...]}, {"M":{...}}.
//
// Thread-safety: values; const methods are safe to call concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit::dynamodb {

class AttributeValue;

// An item, a key, or expression attribute values: attribute name -> value.
using Item = std::map<std::string, AttributeValue>;

class AttributeValue {
 public:
  enum class Type { kNull, kString, kNumber, kBool, kList, kMap };

  AttributeValue() = default;  // NULL

  static AttributeValue String(std::string value);
  // `decimal` is sent as given; DynamoDB rejects text that is not a number.
  static AttributeValue Number(std::string decimal);
  static AttributeValue Number(int64_t value);
  static AttributeValue Bool(bool value);
  static AttributeValue Null() { return AttributeValue(); }
  static AttributeValue List(std::vector<AttributeValue> values);
  static AttributeValue Map(Item values);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }

  // REQUIRES: type() == kString.
  const std::string& string_value() const { return text_; }
  // REQUIRES: type() == kNumber. The decimal text ("1700000000", "1.5").
  const std::string& number_text() const { return text_; }
  // The number when it is an integer that fits; nullopt otherwise (also for
  // any other type).
  std::optional<int64_t> AsInt64() const;
  // REQUIRES: type() == kBool.
  bool bool_value() const { return bool_; }
  // REQUIRES: type() == kList.
  const std::vector<AttributeValue>& list() const { return list_; }
  // REQUIRES: type() == kMap.
  const Item& map() const;

  friend bool operator==(const AttributeValue& a, const AttributeValue& b);

 private:
  Type type_ = Type::kNull;
  std::string text_;  // S or N
  bool bool_ = false;
  std::vector<AttributeValue> list_;
  std::shared_ptr<const Item> map_;  // immutable, so sharing it on copy is safe
};

// The string of an S attribute `name` of `item`, or nullopt when it is
// missing or of another type.
std::optional<std::string> GetString(const Item& item, std::string_view name);

// DynamoDB JSON text ({"S":"x"}; an item is {"name":{"S":"x"},...}).
std::string ToJson(const AttributeValue& value);
std::string ToJson(const Item& item);
// kInvalidArgument for malformed JSON or a malformed value (not an object
// with exactly one type key, wrong member type, nesting deeper than 32);
// kUnimplemented for binary and set types.
StatusOr<AttributeValue> AttributeValueFromJson(std::string_view json);
StatusOr<Item> ItemFromJson(std::string_view json);

}  // namespace deltacommit::dynamodb
