#include "deltacommit/dynamodb/dynamodb_coordination_table.h"

#include <string_view>
#include <utility>

namespace deltacommit::dynamodb {
namespace {

constexpr char kTablePath[] = "tablePath";
constexpr char kFileName[] = "fileName";
constexpr char kTempPath[] = "tempPath";
constexpr char kComplete[] = "complete";
constexpr char kExpireTime[] = "expireTime";

std::string_view TypeName(AttributeValue::Type type) {
  switch (type) {
    case AttributeValue::Type::kNull:
      return "NULL";
    case AttributeValue::Type::kString:
      return "S";
    case AttributeValue::Type::kNumber:
      return "N";
    case AttributeValue::Type::kBool:
      return "BOOL";
    case AttributeValue::Type::kList:
      return "L";
    case AttributeValue::Type::kMap:
      return "M";
  }
  return "?";
}

std::string KeyText(const std::string& table_path, const std::string& file_name) {
  return "tablePath " + table_path + ", fileName " + file_name;
}

// The key of an item as far as it can be read, for messages about the item.
std::string ItemKeyText(const Item& item) {
  return KeyText(GetString(item, kTablePath).value_or("<not a string>"),
                 GetString(item, kFileName).value_or("<not a string>"));
}

Status Malformed(const Item& item, const std::string& table, std::string_view attribute,
                 std::string_view problem) {
  return DataLossError("DynamoDB table " + table + " item (" + ItemKeyText(item) + "): attribute " +
                       std::string(attribute) + " " + std::string(problem) +
                       "; it is not a Delta commit entry as Delta Spark and delta-rs write "
                       "them (another program wrote it, or it was damaged)");
}

// "is missing" or "is BOOL, expected S": the problem with a string attribute.
std::optional<std::string> StringProblem(const Item& item, const char* attribute) {
  auto it = item.find(attribute);
  if (it == item.end()) return "is missing";
  if (it->second.type() == AttributeValue::Type::kString) return std::nullopt;
  return "is " + std::string(TypeName(it->second.type())) + ", expected S";
}

StatusOr<std::string> RequiredString(const Item& item, const std::string& table,
                                     const char* attribute) {
  if (auto problem = StringProblem(item, attribute)) {
    return Malformed(item, table, attribute, *problem);
  }
  return item.at(attribute).string_value();
}

// Delta Spark writes Boolean.toString(complete); anything else is not theirs
// or ours, and guessing could skip the recovery of an incomplete commit.
StatusOr<bool> ParseComplete(const Item& item, const std::string& table) {
  DC_ASSIGN_OR_RETURN(std::string text, RequiredString(item, table, kComplete));
  if (text == "true") return true;
  if (text == "false") return false;
  return Malformed(item, table, kComplete, "is \"" + text + "\", expected \"true\" or \"false\"");
}

StatusOr<std::optional<int64_t>> ParseExpireTime(const Item& item, const std::string& table) {
  auto it = item.find(kExpireTime);
  if (it == item.end()) return std::optional<int64_t>();
  if (it->second.type() != AttributeValue::Type::kNumber) {
    return Malformed(item, table, kExpireTime,
                     "is " + std::string(TypeName(it->second.type())) + ", expected N");
  }
  std::optional<int64_t> seconds = it->second.AsInt64();
  if (!seconds) {
    return Malformed(item, table, kExpireTime,
                     "is " + it->second.number_text() + ", expected whole epoch seconds");
  }
  return seconds;
}

}  // namespace

Item ToItem(const ExternalCommitEntry& entry) {
  Item item{{kTablePath, AttributeValue::String(entry.table_path)},
            {kFileName, AttributeValue::String(entry.file_name)},
            {kTempPath, AttributeValue::String(entry.temp_path)},
            {kComplete, AttributeValue::String(entry.complete ? "true" : "false")}};
  if (entry.expire_time) item[kExpireTime] = AttributeValue::Number(*entry.expire_time);
  return item;
}

StatusOr<ExternalCommitEntry> EntryFromItem(const Item& item, const std::string& table) {
  ExternalCommitEntry entry;
  DC_ASSIGN_OR_RETURN(entry.table_path, RequiredString(item, table, kTablePath));
  DC_ASSIGN_OR_RETURN(entry.file_name, RequiredString(item, table, kFileName));
  DC_ASSIGN_OR_RETURN(entry.temp_path, RequiredString(item, table, kTempPath));
  DC_ASSIGN_OR_RETURN(entry.complete, ParseComplete(item, table));
  DC_ASSIGN_OR_RETURN(entry.expire_time, ParseExpireTime(item, table));
  return entry;
}

DynamoDbCoordinationTable::DynamoDbCoordinationTable(DynamoDbClient& client, std::string table)
    : client_(client), table_(std::move(table)) {}

std::string DynamoDbCoordinationTable::Describe() const {
  const aws::AwsServiceConfig& service = client_.config().service;
  return "DynamoDB table " + table_ + " (" + service.region + ", " + service.endpoint_url + ")";
}

Status DynamoDbCoordinationTable::PutIfAbsent(const ExternalCommitEntry& entry) {
  const std::string key = KeyText(entry.table_path, entry.file_name);
  // docs/protocols/s3-dynamodb.md step 3, the commit point: Delta Spark's
  // condition (expected fileName absent), so exactly one writer of a version
  // wins.
  Status s = client_.PutItem({table_, ToItem(entry), {"attribute_not_exists(fileName)"}});
  if (s.IsAlreadyExists()) {
    return AlreadyExistsError("DynamoDB table " + table_ + " already has the commit entry " + key +
                              " (another writer committed this version); " + s.message());
  }
  return s.WithContext("commit entry " + key);
}

Status DynamoDbCoordinationTable::Put(const ExternalCommitEntry& entry) {
  return client_.PutItem({table_, ToItem(entry), {}})
      .WithContext("commit entry " + KeyText(entry.table_path, entry.file_name));
}

StatusOr<std::optional<ExternalCommitEntry>> DynamoDbCoordinationTable::Get(
    const std::string& table_path, const std::string& file_name) {
  Item key{{kTablePath, AttributeValue::String(table_path)},
           {kFileName, AttributeValue::String(file_name)}};
  StatusOr<std::optional<Item>> item = client_.GetItem({table_, std::move(key), true});
  if (!item.ok()) {
    return item.status().WithContext("commit entry " + KeyText(table_path, file_name));
  }
  if (!item->has_value()) return std::optional<ExternalCommitEntry>();
  DC_ASSIGN_OR_RETURN(ExternalCommitEntry entry, EntryFromItem(**item, table_));
  return std::optional<ExternalCommitEntry>(std::move(entry));
}

StatusOr<std::optional<ExternalCommitEntry>> DynamoDbCoordinationTable::GetLatest(
    const std::string& table_path) {
  QueryRequest request;
  request.table = table_;
  request.key_condition = {"tablePath = :p", {}, {{":p", AttributeValue::String(table_path)}}};
  request.scan_index_forward = false;  // fileName descending: the latest version first
  request.limit = 1;
  request.consistent_read = true;
  StatusOr<QueryResult> result = client_.Query(request);
  if (!result.ok()) {
    return result.status().WithContext("latest commit entry of tablePath " + table_path);
  }
  if (result->items.empty()) return std::optional<ExternalCommitEntry>();
  DC_ASSIGN_OR_RETURN(ExternalCommitEntry entry, EntryFromItem(result->items.front(), table_));
  return std::optional<ExternalCommitEntry>(std::move(entry));
}

StatusOr<CommitEntryPage> DynamoDbCoordinationTable::ListPage(const std::string& table_path,
                                                              const std::string& start_after,
                                                              int limit) {
  const std::string what = "commit entries of tablePath " + table_path;
  if (limit <= 0) {
    return InvalidArgumentError("listing " + what + ": page limit " + std::to_string(limit) +
                                " is not positive");
  }
  QueryRequest request;
  request.table = table_;
  request.key_condition = {"tablePath = :p", {}, {{":p", AttributeValue::String(table_path)}}};
  request.scan_index_forward = true;  // fileName ascending: version order
  request.limit = limit;
  request.consistent_read = true;
  if (!start_after.empty()) {
    // Any key may start a page; it need not be an item.
    request.exclusive_start_key = Item{{kTablePath, AttributeValue::String(table_path)},
                                       {kFileName, AttributeValue::String(start_after)}};
  }
  StatusOr<QueryResult> result = client_.Query(request);
  if (!result.ok()) return result.status().WithContext(what);
  CommitEntryPage page;
  page.entries.reserve(result->items.size());
  for (const Item& item : result->items) {
    DC_ASSIGN_OR_RETURN(ExternalCommitEntry entry, EntryFromItem(item, table_));
    page.entries.push_back(std::move(entry));
  }
  if (result->last_evaluated_key) {
    page.next_start_after = GetString(*result->last_evaluated_key, kFileName);
    if (!page.next_start_after) {
      return InternalError("DynamoDB table " + table_ + ": the reply listing " + what +
                           " has a LastEvaluatedKey without a string fileName");
    }
  }
  return page;
}

StatusOr<std::vector<std::string>> CreateDeltaLogTable(DynamoDbClient& client,
                                                       const std::string& table,
                                                       const DeltaLogTableBilling& billing,
                                                       bool enable_ttl) {
  CreateTableRequest request{table,
                             {kTablePath},
                             KeyAttribute{kFileName},
                             billing.mode,
                             billing.read_capacity_units,
                             billing.write_capacity_units};
  DC_RETURN_IF_ERROR(client.CreateTable(request).status());
  DC_RETURN_IF_ERROR(client.WaitForTableActive(table, kDeltaLogTableActiveTimeout));
  std::vector<std::string> warnings;
  if (!enable_ttl) return warnings;
  Status ttl = client.UpdateTimeToLive(table, kExpireTime, true);
  if (ttl.code() == StatusCode::kUnimplemented) {
    warnings.push_back("DynamoDB table " + table + " was created without time to live on " +
                       kExpireTime +
                       ", so complete commit entries will not expire: " + ttl.message());
  } else if (!ttl.ok()) {
    return ttl.WithContext("DynamoDB table " + table +
                           " was created and is usable, but enabling time to live on " +
                           kExpireTime +
                           " failed (enable it later with `aws dynamodb "
                           "update-time-to-live`)");
  }
  return warnings;
}

}  // namespace deltacommit::dynamodb
