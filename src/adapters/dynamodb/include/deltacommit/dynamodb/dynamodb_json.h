// The JSON side of the DynamoDB client, internal to this folder: attribute
// values to and from nlohmann::json, the request body of each operation and
// the decoding of its reply. Nothing here does I/O or throws: nlohmann's
// exceptions are caught here and become Status.
//
// Bodies are serialised with sorted keys (nlohmann's default object), so a
// request's bytes are deterministic.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/dynamodb/attribute_value.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/status.h"

namespace deltacommit::dynamodb::wire {

nlohmann::json EncodeValue(const AttributeValue& value);
nlohmann::json EncodeItem(const Item& item);
// Errors as AttributeValueFromJson; `where` ("Item.fileName") names the
// place in messages.
StatusOr<AttributeValue> DecodeValue(const nlohmann::json& json, const std::string& where,
                                     int depth = 0);
StatusOr<Item> DecodeItem(const nlohmann::json& json, const std::string& where, int depth = 0);

// Request bodies. kInvalidArgument when a string is not valid UTF-8 (JSON
// cannot carry it), or when an UpdateItem's update and condition give one
// placeholder two meanings.
StatusOr<std::string> GetItemBody(const GetItemRequest& request);
StatusOr<std::string> PutItemBody(const PutItemRequest& request);
StatusOr<std::string> UpdateItemBody(const UpdateItemRequest& request);
StatusOr<std::string> DeleteItemBody(const DeleteItemRequest& request);
StatusOr<std::string> QueryBody(const QueryRequest& request);
StatusOr<std::string> CreateTableBody(const CreateTableRequest& request);
// DescribeTable, DescribeTimeToLive.
StatusOr<std::string> TableNameBody(const std::string& table);
StatusOr<std::string> UpdateTimeToLiveBody(const std::string& table, const std::string& attribute,
                                           bool enabled);
// `json` as text; kInvalidArgument for invalid UTF-8.
StatusOr<std::string> Dump(const nlohmann::json& json);

// Replies. kInternal (naming the operation) when the body is not the JSON
// DynamoDB documents; kUnimplemented for attribute types we do not support.
StatusOr<std::optional<Item>> ParseGetItemReply(std::string_view body);
StatusOr<QueryResult> ParseQueryReply(std::string_view body);
// CreateTable's "TableDescription" or DescribeTable's "Table".
StatusOr<TableDescription> ParseTableReply(std::string_view body, const char* member);
StatusOr<TimeToLiveDescription> ParseTimeToLiveReply(std::string_view body);

}  // namespace deltacommit::dynamodb::wire
