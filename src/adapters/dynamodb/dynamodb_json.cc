#include "deltacommit/dynamodb/dynamodb_json.h"

#include <utility>
#include <vector>

namespace deltacommit::dynamodb::wire {

using nlohmann::json;

namespace {

// DynamoDB's own limit on nested attribute values.
constexpr int kMaxDepth = 32;

const char* TypeName(ScalarType type) {
  switch (type) {
    case ScalarType::kString:
      return "S";
    case ScalarType::kNumber:
      return "N";
    case ScalarType::kBinary:
      return "B";
  }
  return "S";
}

Status Malformed(const std::string& where, const std::string& what) {
  return InvalidArgumentError(where + ": " + what);
}

StatusOr<AttributeValue> DecodeList(const json& v, const std::string& where, int depth) {
  if (!v.is_array()) return Malformed(where, "L must be an array");
  std::vector<AttributeValue> values;
  values.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    DC_ASSIGN_OR_RETURN(AttributeValue e,
                        DecodeValue(v[i], where + "[" + std::to_string(i) + "]", depth + 1));
    values.push_back(std::move(e));
  }
  return AttributeValue::List(std::move(values));
}

StatusOr<AttributeValue> DecodeScalar(const std::string& type, const json& v,
                                      const std::string& where) {
  if (type == "S" || type == "N") {
    if (!v.is_string()) return Malformed(where, type + " must be a string");
    std::string text = v.get<std::string>();
    return type == "S" ? AttributeValue::String(std::move(text))
                       : AttributeValue::Number(std::move(text));
  }
  if (type == "BOOL") {
    if (!v.is_boolean()) return Malformed(where, "BOOL must be true or false");
    return AttributeValue::Bool(v.get<bool>());
  }
  if (type == "NULL") {
    if (!v.is_boolean() || !v.get<bool>()) return Malformed(where, "NULL must be true");
    return AttributeValue::Null();
  }
  if (type == "B" || type == "SS" || type == "NS" || type == "BS") {
    return UnimplementedError(where + ": DynamoDB attribute type " + type +
                              " is not supported by this client");
  }
  return Malformed(where, "unknown attribute type \"" + type + "\"");
}

// Adds ExpressionAttributeNames/Values when not empty (DynamoDB rejects
// empty maps).
void AddPlaceholders(json& body, const std::map<std::string, std::string>& names,
                     const Item& values) {
  if (!names.empty()) body["ExpressionAttributeNames"] = names;
  if (!values.empty()) body["ExpressionAttributeValues"] = EncodeItem(values);
}

void AddCondition(json& body, const Expression& condition) {
  if (!condition.text.empty()) body["ConditionExpression"] = condition.text;
  AddPlaceholders(body, condition.names, condition.values);
}

template <typename Map>
Status MergeInto(Map& into, const Map& from, const char* what) {
  for (const auto& [placeholder, value] : from) {
    auto [it, inserted] = into.emplace(placeholder, value);
    if (!inserted && !(it->second == value)) {
      return InvalidArgumentError("UpdateItem: " + std::string(what) + " " + placeholder +
                                  " means different things in the update and the condition");
    }
  }
  return OkStatus();
}

StatusOr<json> ParseReply(std::string_view body, const char* operation) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return InternalError("malformed DynamoDB " + std::string(operation) +
                         " reply: not a JSON object");
  }
  return parsed;
}

// A reply whose values do not decode is the server's fault, not the
// caller's: kInvalidArgument becomes kInternal; kUnimplemented stays.
Status ReplyError(const Status& status, const char* operation) {
  if (status.code() != StatusCode::kInvalidArgument) return status;
  return InternalError("malformed DynamoDB " + std::string(operation) +
                       " reply: " + status.message());
}

std::string StringMember(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json EncodeValue(const AttributeValue& value) {
  switch (value.type()) {
    case AttributeValue::Type::kNull:
      return {{"NULL", true}};
    case AttributeValue::Type::kString:
      return {{"S", value.string_value()}};
    case AttributeValue::Type::kNumber:
      return {{"N", value.number_text()}};
    case AttributeValue::Type::kBool:
      return {{"BOOL", value.bool_value()}};
    case AttributeValue::Type::kList: {
      json list = json::array();
      for (const AttributeValue& e : value.list()) list.push_back(EncodeValue(e));
      return {{"L", std::move(list)}};
    }
    case AttributeValue::Type::kMap:
      return {{"M", EncodeItem(value.map())}};
  }
  return {{"NULL", true}};
}

json EncodeItem(const Item& item) {
  json out = json::object();
  for (const auto& [name, value] : item) out[name] = EncodeValue(value);
  return out;
}

StatusOr<AttributeValue> DecodeValue(const json& value, const std::string& where, int depth) {
  if (depth > kMaxDepth) return Malformed(where, "nested deeper than 32 levels");
  if (!value.is_object() || value.size() != 1) {
    return Malformed(where, "an attribute value is an object with exactly one type key, got " +
                                std::string(value.type_name()));
  }
  const auto it = value.begin();
  if (it.key() == "L") return DecodeList(it.value(), where, depth);
  if (it.key() == "M") {
    DC_ASSIGN_OR_RETURN(Item map, DecodeItem(it.value(), where, depth + 1));
    return AttributeValue::Map(std::move(map));
  }
  return DecodeScalar(it.key(), it.value(), where);
}

StatusOr<Item> DecodeItem(const json& object, const std::string& where, int depth) {
  if (depth > kMaxDepth) return Malformed(where, "nested deeper than 32 levels");
  if (!object.is_object()) {
    return Malformed(where, "an item is a JSON object, got " + std::string(object.type_name()));
  }
  Item item;
  for (auto it = object.begin(); it != object.end(); ++it) {
    DC_ASSIGN_OR_RETURN(AttributeValue v, DecodeValue(it.value(), where + "." + it.key(), depth));
    item.emplace(it.key(), std::move(v));
  }
  return item;
}

StatusOr<std::string> Dump(const json& value) {
  try {
    return value.dump();
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("DynamoDB request cannot be encoded as JSON: ") +
                                e.what());
  }
}

StatusOr<std::string> GetItemBody(const GetItemRequest& request) {
  return Dump({{"TableName", request.table},
               {"Key", EncodeItem(request.key)},
               {"ConsistentRead", request.consistent_read}});
}

StatusOr<std::string> PutItemBody(const PutItemRequest& request) {
  json body = {{"TableName", request.table}, {"Item", EncodeItem(request.item)}};
  AddCondition(body, request.condition);
  return Dump(body);
}

StatusOr<std::string> UpdateItemBody(const UpdateItemRequest& request) {
  json body = {{"TableName", request.table}, {"Key", EncodeItem(request.key)}};
  if (!request.update.text.empty()) body["UpdateExpression"] = request.update.text;
  if (!request.condition.text.empty()) body["ConditionExpression"] = request.condition.text;
  std::map<std::string, std::string> names = request.update.names;
  Item values = request.update.values;
  DC_RETURN_IF_ERROR(MergeInto(names, request.condition.names, "attribute name"));
  DC_RETURN_IF_ERROR(MergeInto(values, request.condition.values, "attribute value"));
  AddPlaceholders(body, names, values);
  return Dump(body);
}

StatusOr<std::string> DeleteItemBody(const DeleteItemRequest& request) {
  json body = {{"TableName", request.table}, {"Key", EncodeItem(request.key)}};
  AddCondition(body, request.condition);
  return Dump(body);
}

StatusOr<std::string> QueryBody(const QueryRequest& request) {
  json body = {{"TableName", request.table},
               {"KeyConditionExpression", request.key_condition.text},
               {"ScanIndexForward", request.scan_index_forward},
               {"ConsistentRead", request.consistent_read}};
  AddPlaceholders(body, request.key_condition.names, request.key_condition.values);
  if (request.limit) body["Limit"] = *request.limit;
  if (request.exclusive_start_key)
    body["ExclusiveStartKey"] = EncodeItem(*request.exclusive_start_key);
  return Dump(body);
}

StatusOr<std::string> CreateTableBody(const CreateTableRequest& request) {
  json definitions = json::array();
  json schema = json::array();
  auto add = [&](const KeyAttribute& key, const char* key_type) {
    definitions.push_back({{"AttributeName", key.name}, {"AttributeType", TypeName(key.type)}});
    schema.push_back({{"AttributeName", key.name}, {"KeyType", key_type}});
  };
  add(request.hash_key, "HASH");
  if (request.range_key) add(*request.range_key, "RANGE");
  json body = {{"TableName", request.table},
               {"AttributeDefinitions", std::move(definitions)},
               {"KeySchema", std::move(schema)}};
  if (request.billing_mode == BillingMode::kPayPerRequest) {
    body["BillingMode"] = "PAY_PER_REQUEST";
  } else {
    body["BillingMode"] = "PROVISIONED";
    body["ProvisionedThroughput"] = {{"ReadCapacityUnits", request.read_capacity_units},
                                     {"WriteCapacityUnits", request.write_capacity_units}};
  }
  return Dump(body);
}

StatusOr<std::string> TableNameBody(const std::string& table) {
  return Dump({{"TableName", table}});
}

StatusOr<std::string> UpdateTimeToLiveBody(const std::string& table, const std::string& attribute,
                                           bool enabled) {
  return Dump({{"TableName", table},
               {"TimeToLiveSpecification", {{"AttributeName", attribute}, {"Enabled", enabled}}}});
}

StatusOr<std::optional<Item>> ParseGetItemReply(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json reply, ParseReply(body, "GetItem"));
  auto it = reply.find("Item");
  if (it == reply.end()) return std::optional<Item>();
  StatusOr<Item> item = DecodeItem(*it, "Item");
  if (!item.ok()) return ReplyError(item.status(), "GetItem");
  return std::optional<Item>(std::move(item).value());
}

StatusOr<QueryResult> ParseQueryReply(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json reply, ParseReply(body, "Query"));
  QueryResult result;
  auto items = reply.find("Items");
  if (items != reply.end()) {
    if (!items->is_array()) return InternalError("malformed DynamoDB Query reply: Items");
    for (size_t i = 0; i < items->size(); ++i) {
      StatusOr<Item> item = DecodeItem((*items)[i], "Items[" + std::to_string(i) + "]");
      if (!item.ok()) return ReplyError(item.status(), "Query");
      result.items.push_back(std::move(item).value());
    }
  }
  auto last = reply.find("LastEvaluatedKey");
  if (last != reply.end()) {
    StatusOr<Item> key = DecodeItem(*last, "LastEvaluatedKey");
    if (!key.ok()) return ReplyError(key.status(), "Query");
    result.last_evaluated_key = std::move(key).value();
  }
  return result;
}

StatusOr<TableDescription> ParseTableReply(std::string_view body, const char* member) {
  DC_ASSIGN_OR_RETURN(json reply, ParseReply(body, member));
  auto table = reply.find(member);
  if (table == reply.end() || !table->is_object()) {
    return InternalError("malformed DynamoDB reply: no " + std::string(member) + " object");
  }
  TableDescription d;
  d.name = StringMember(*table, "TableName");
  d.status = StringMember(*table, "TableStatus");
  auto schema = table->find("KeySchema");
  if (schema != table->end() && schema->is_array()) {
    for (const json& key : *schema) {
      if (!key.is_object()) continue;
      const std::string type = StringMember(key, "KeyType");
      (type == "HASH" ? d.hash_key : d.range_key) = StringMember(key, "AttributeName");
    }
  }
  auto definitions = table->find("AttributeDefinitions");
  if (definitions != table->end() && definitions->is_array()) {
    for (const json& attribute : *definitions) {
      if (!attribute.is_object()) continue;
      const std::string name = StringMember(attribute, "AttributeName");
      const std::string type = StringMember(attribute, "AttributeType");
      if (!name.empty() && name == d.hash_key) d.hash_key_type = type;
      if (!name.empty() && name == d.range_key) d.range_key_type = type;
    }
  }
  // No BillingModeSummary: a table that was always provisioned.
  d.billing_mode = "PROVISIONED";
  auto billing = table->find("BillingModeSummary");
  if (billing != table->end() && billing->is_object()) {
    std::string mode = StringMember(*billing, "BillingMode");
    if (!mode.empty()) d.billing_mode = std::move(mode);
  }
  if (d.status.empty()) {
    return InternalError("malformed DynamoDB reply: " + std::string(member) +
                         " has no TableStatus");
  }
  return d;
}

StatusOr<TimeToLiveDescription> ParseTimeToLiveReply(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json reply, ParseReply(body, "DescribeTimeToLive"));
  auto ttl = reply.find("TimeToLiveDescription");
  if (ttl == reply.end() || !ttl->is_object()) {
    return InternalError("malformed DynamoDB DescribeTimeToLive reply: no TimeToLiveDescription");
  }
  return TimeToLiveDescription{StringMember(*ttl, "TimeToLiveStatus"),
                               StringMember(*ttl, "AttributeName")};
}

}  // namespace deltacommit::dynamodb::wire
