#include "service/state/dynamodb_state_items.h"

#include <string_view>
#include <utility>

namespace deltacommit::service {

using dynamodb::AttributeValue;
using dynamodb::Item;

namespace {

constexpr char kStagedFile[] = "staged_file";
constexpr char kContentSha256[] = "content_sha256";
constexpr char kSize[] = "size";
constexpr char kRatifiedAtMs[] = "ratified_at_ms";
constexpr char kCommitTimestampMs[] = "commit_timestamp_ms";
constexpr char kLatest[] = "latest";
constexpr char kPublishedThrough[] = "published_through";
constexpr std::string_view kAppPrefix = "app:";
constexpr char kTxnVersion[] = "txn_version";
constexpr char kCommitVersion[] = "commit_version";

AttributeValue AppliedTxnValue(const AppTxn& txn, Version commit_version) {
  return AttributeValue::Map(Item{{kTxnVersion, AttributeValue::Number(txn.txn_version)},
                                  {kCommitVersion, AttributeValue::Number(commit_version)}});
}

// "SET ..., #a0 = :a0, ..." for each of the record's txns.
void AddAppTxnUpdates(const CommitRecord& record, dynamodb::Expression& update) {
  for (size_t i = 0; i < record.app_txns.size(); ++i) {
    const std::string name = "#a" + std::to_string(i), value = ":a" + std::to_string(i);
    update.text += ", " + name + " = " + value;
    update.names[name] = std::string(kAppPrefix) + record.app_txns[i].app_id;
    update.values[value] = AppliedTxnValue(record.app_txns[i], record.version);
  }
}

// The record's attributes other than the key, shared by both item kinds.
void AddRecordAttributes(const CommitRecord& record, Item& item) {
  item[kStagedFile] = AttributeValue::String(record.staged_file);
  item[kContentSha256] = AttributeValue::String(record.content_sha256);
  item[kSize] = AttributeValue::Number(record.size);
  item[kRatifiedAtMs] = AttributeValue::Number(record.ratified_at_ms);
  item[kCommitTimestampMs] = AttributeValue::Number(record.commit_timestamp_ms);
}

std::string KeyText(const Item& item) {
  auto version = item.find(kVersionAttribute);
  return std::string(kTableUriAttribute) + " " +
         dynamodb::GetString(item, kTableUriAttribute)
             .value_or("<not a string>") +
         ", " + kVersionAttribute + " " +
         (version != item.end() &&
                  version->second.type() == AttributeValue::Type::kNumber
              ? version->second.number_text()
              : "<not a number>");
}

Status Malformed(const Item& item, const std::string& dynamodb_table,
                 std::string_view problem) {
  return DataLossError(
      "DynamoDB table " + dynamodb_table + " item (" + KeyText(item) +
      "): " + std::string(problem) +
      "; deltacommit did not write it so (another program did, or it was "
      "damaged)");
}

StatusOr<std::string> RequiredString(const Item& item,
                                     const std::string& dynamodb_table,
                                     const char* name) {
  if (auto value = dynamodb::GetString(item, name)) return *value;
  return Malformed(
      item, dynamodb_table,
      "attribute " + std::string(name) + " is missing or not a string (S)");
}

StatusOr<int64_t> RequiredInt64(const Item& item,
                                const std::string& dynamodb_table,
                                const char* name) {
  auto it = item.find(name);
  if (it != item.end()) {
    if (auto value = it->second.AsInt64()) return *value;
  }
  return Malformed(
      item, dynamodb_table,
      "attribute " + std::string(name) + " is missing or not an integer (N)");
}

StatusOr<CommitRecord> DecodeRecord(const Item& item,
                                    const std::string& dynamodb_table,
                                    Version version,
                                    Version published_through) {
  CommitRecord record;
  DC_ASSIGN_OR_RETURN(record.table,
                      RequiredString(item, dynamodb_table, kTableUriAttribute));
  record.version = version;
  DC_ASSIGN_OR_RETURN(record.staged_file,
                      RequiredString(item, dynamodb_table, kStagedFile));
  DC_ASSIGN_OR_RETURN(record.content_sha256,
                      RequiredString(item, dynamodb_table, kContentSha256));
  DC_ASSIGN_OR_RETURN(record.size, RequiredInt64(item, dynamodb_table, kSize));
  DC_ASSIGN_OR_RETURN(record.ratified_at_ms,
                      RequiredInt64(item, dynamodb_table, kRatifiedAtMs));
  DC_ASSIGN_OR_RETURN(record.commit_timestamp_ms,
                      RequiredInt64(item, dynamodb_table, kCommitTimestampMs));
  record.published = version <= published_through;
  Status valid = ValidateCommitRecord(record);
  if (!valid.ok()) return Malformed(item, dynamodb_table, valid.message());
  return record;
}

}  // namespace

Item ItemKey(const std::string& table, Version version) {
  return {{kTableUriAttribute, AttributeValue::String(table)},
          {kVersionAttribute, AttributeValue::Number(version)}};
}

Item CommitItem(const CommitRecord& record) {
  Item item = ItemKey(record.table, record.version);
  AddRecordAttributes(record, item);
  return item;
}

dynamodb::PutItemRequest FirstHeadRequest(const std::string& dynamodb_table,
                                          const CommitRecord& record) {
  Item item = ItemKey(record.table, kHeadVersion);
  AddRecordAttributes(record, item);
  item[kLatest] = AttributeValue::Number(record.version);
  item[kPublishedThrough] = AttributeValue::Number(record.version - 1);
  for (const AppTxn& txn : record.app_txns) {
    item[std::string(kAppPrefix) + txn.app_id] = AppliedTxnValue(txn, record.version);
  }
  return {dynamodb_table,
          std::move(item),
          {"attribute_not_exists(#v)", {{"#v", kVersionAttribute}}}};
}

dynamodb::UpdateItemRequest AdvanceHeadRequest(
    const std::string& dynamodb_table, const CommitRecord& record) {
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table;
  request.key = ItemKey(record.table, kHeadVersion);
  // Placeholders for every name: `size` is reserved in expressions.
  request.update = {
      "SET #l = :v, #f = :f, #h = :h, #s = :s, #r = :r, #c = :c",
      {{"#l", kLatest},
       {"#f", kStagedFile},
       {"#h", kContentSha256},
       {"#s", kSize},
       {"#r", kRatifiedAtMs},
       {"#c", kCommitTimestampMs}},
      {{":v", AttributeValue::Number(record.version)},
       {":f", AttributeValue::String(record.staged_file)},
       {":h", AttributeValue::String(record.content_sha256)},
       {":s", AttributeValue::Number(record.size)},
       {":r", AttributeValue::Number(record.ratified_at_ms)},
       {":c", AttributeValue::Number(record.commit_timestamp_ms)}}};
  AddAppTxnUpdates(record, request.update);
  request.condition = {
      "#l = :previous",
      {{"#l", kLatest}},
      {{":previous", AttributeValue::Number(record.version - 1)}}};
  return request;
}

dynamodb::UpdateItemRequest MarkPublishedRequest(
    const std::string& dynamodb_table, const std::string& table,
    Version version) {
  dynamodb::UpdateItemRequest request;
  request.table = dynamodb_table;
  request.key = ItemKey(table, kHeadVersion);
  request.update = {"SET #p = :v",
                    {{"#p", kPublishedThrough}},
                    {{":v", AttributeValue::Number(version)}}};
  // On a missing head `latest` is absent and the condition fails: no item
  // is created.
  request.condition = {"#l >= :v AND #p < :v",
                       {{"#l", kLatest}, {"#p", kPublishedThrough}}};
  return request;
}

StatusOr<CommitRecord> RecordFromCommitItem(const Item& item,
                                            const std::string& dynamodb_table,
                                            Version published_through) {
  DC_ASSIGN_OR_RETURN(int64_t version,
                      RequiredInt64(item, dynamodb_table, kVersionAttribute));
  return DecodeRecord(item, dynamodb_table, version, published_through);
}

StatusOr<TableHead> HeadFromItem(const Item& item,
                                 const std::string& dynamodb_table) {
  TableHead head;
  DC_ASSIGN_OR_RETURN(head.latest,
                      RequiredInt64(item, dynamodb_table, kLatest));
  DC_ASSIGN_OR_RETURN(head.published_through,
                      RequiredInt64(item, dynamodb_table, kPublishedThrough));
  if (head.published_through > head.latest || head.published_through < -1) {
    return Malformed(
        item, dynamodb_table,
        "published_through " + std::to_string(head.published_through) +
            " is not between -1 and latest " + std::to_string(head.latest));
  }
  DC_ASSIGN_OR_RETURN(
      head.latest_record,
      DecodeRecord(item, dynamodb_table, head.latest, head.published_through));
  for (const auto& [name, value] : item) {
    if (!std::string_view(name).starts_with(kAppPrefix)) continue;
    std::optional<int64_t> txn, commit;
    if (value.type() == AttributeValue::Type::kMap) {
      auto t = value.map().find(kTxnVersion);
      auto c = value.map().find(kCommitVersion);
      if (t != value.map().end()) txn = t->second.AsInt64();
      if (c != value.map().end()) commit = c->second.AsInt64();
    }
    if (!txn || !commit) {
      return Malformed(item, dynamodb_table,
                       "attribute " + name + " is not a map of integers " + kTxnVersion +
                           " and " + kCommitVersion);
    }
    head.app_txns[name.substr(kAppPrefix.size())] = AppliedTxn{*txn, *commit};
  }
  return head;
}

}  // namespace deltacommit::service
