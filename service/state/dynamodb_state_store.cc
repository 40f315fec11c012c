#include "service/state/dynamodb_state_store.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace deltacommit::service {

using dynamodb::AttributeValue;
using dynamodb::Item;

namespace {

// A lost compare-and-swap is followed by a read that reports the conflict,
// so a second attempt almost always ends; more would mean a head moving
// backwards, which no writer does.
constexpr int kMaxRatifyAttempts = 3;

// Items asked for per Query page (DynamoDB also stops a page at 1 MB).
constexpr int64_t kQueryPageItems = 1000;

}  // namespace

DynamoDbStateStore::DynamoDbStateStore(dynamodb::DynamoDbClient& client,
                                       std::string dynamodb_table)
    : client_(client), dynamodb_table_(std::move(dynamodb_table)) {}

std::string DynamoDbStateStore::Describe() const {
  const aws::AwsServiceConfig& service = client_.config().service;
  return "DynamoDB table " + dynamodb_table_ + " (" + service.region + ", " +
         service.endpoint_url + ")";
}

StatusOr<std::optional<TableHead>> DynamoDbStateStore::ReadHead(
    const std::string& table) {
  StatusOr<std::optional<Item>> item =
      client_.GetItem({dynamodb_table_, ItemKey(table, kHeadVersion), true});
  if (!item.ok())
    return item.status().WithContext("reading the state of table " + table);
  if (!item->has_value()) return std::optional<TableHead>();
  DC_ASSIGN_OR_RETURN(TableHead head, HeadFromItem(**item, dynamodb_table_));
  return std::optional<TableHead>(std::move(head));
}

// The head is never deleted, so commit items without one mean someone
// deleted it: starting the table afresh could ratify a version twice.
Status DynamoDbStateStore::CheckNoCommitItems(const std::string& table) {
  dynamodb::QueryRequest request;
  request.table = dynamodb_table_;
  request.key_condition = {
      "#t = :t AND #v >= :zero",
      {{"#t", kTableUriAttribute}, {"#v", kVersionAttribute}},
      {{":t", AttributeValue::String(table)},
       {":zero", AttributeValue::Number(0)}}};
  request.limit = 1;
  StatusOr<dynamodb::QueryResult> page = client_.Query(request);
  if (!page.ok())
    return page.status().WithContext("reading the commits of " + table);
  if (page->items.empty()) return OkStatus();
  return DataLossError(
      Describe() + " has commit items of " + table +
      " but no head item (version -1): it was deleted; restore it (latest "
      "and published_through) before committing to the table again");
}

Status DynamoDbStateStore::MoveHead(const TableHead& head,
                                    const CommitRecord& record) {
  // Step 3. Nothing is ratified yet, so a lost reply here is not the
  // ratification's unknown outcome.
  Status kept =
      client_.PutItem({dynamodb_table_, CommitItem(head.latest_record), {}});
  if (kept.IsUnknownOutcome()) kept = UnavailableError(kept.message());
  if (!kept.ok()) {
    return kept.WithContext("keeping the record of version " +
                            std::to_string(head.latest) + " before ratifying " +
                            DescribeCommit(record) + " (nothing was ratified)");
  }
  // Step 4: the commit point.
  return client_.UpdateItem(AdvanceHeadRequest(dynamodb_table_, record));
}

Status DynamoDbStateStore::Ratify(const CommitRecord& record,
                                  RatifyConflict* conflict) {
  DC_RETURN_IF_ERROR(ValidateCommitRecord(record));
  for (int attempt = 0; attempt < kMaxRatifyAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(record.table));
    if (head && record.version <= head->latest) {
      DC_ASSIGN_OR_RETURN(std::optional<CommitRecord> existing,
                          ReadRecord(*head, record.version));
      return VersionTaken(record, head->latest, std::move(existing), conflict);
    }
    if (head && record.version != head->latest + 1) {
      return NotNextVersion(record, head->latest, conflict);
    }
    if (!head) {
      Status fresh = CheckNoCommitItems(record.table);
      if (fresh.code() == StatusCode::kDataLoss) {
        // Commit items are written only after the head exists: if the head
        // is there now, another instance created and moved it since we
        // read it (a race, not a deleted head).
        DC_ASSIGN_OR_RETURN(std::optional<TableHead> again, ReadHead(record.table));
        if (again) continue;
      }
      DC_RETURN_IF_ERROR(fresh);
    }
    Status written =
        head ? MoveHead(*head, record)
             : client_.PutItem(FirstHeadRequest(dynamodb_table_, record));
    if (!written.IsAlreadyExists()) {
      return written.WithContext("ratifying " + DescribeCommit(record) +
                                 " in " + Describe());
    }
    // Another instance moved the head first: read it again to report how.
  }
  return UnavailableError("ratifying " + DescribeCommit(record) + " in " +
                          Describe() +
                          ": the table's state changed under each of " +
                          std::to_string(kMaxRatifyAttempts) + " attempts");
}

StatusOr<std::optional<CommitRecord>> DynamoDbStateStore::ReadRecord(
    const TableHead& head, Version version) {
  if (version > head.latest) return std::optional<CommitRecord>();
  if (version == head.latest)
    return std::optional<CommitRecord>(head.latest_record);
  const std::string& table = head.latest_record.table;
  StatusOr<std::optional<Item>> item =
      client_.GetItem({dynamodb_table_, ItemKey(table, version), true});
  if (!item.ok()) {
    return item.status().WithContext("reading version " +
                                     std::to_string(version) + " of " + table);
  }
  if (!item->has_value()) return std::optional<CommitRecord>();  // forgotten
  DC_ASSIGN_OR_RETURN(
      CommitRecord record,
      RecordFromCommitItem(**item, dynamodb_table_, head.published_through));
  return std::optional<CommitRecord>(std::move(record));
}

StatusOr<std::optional<CommitRecord>> DynamoDbStateStore::Get(
    const std::string& table, Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) return std::optional<CommitRecord>();
  return ReadRecord(*head, version);
}

StatusOr<std::optional<CommitRecord>> DynamoDbStateStore::Latest(
    const std::string& table) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) return std::optional<CommitRecord>();
  return std::optional<CommitRecord>(head->latest_record);
}

StatusOr<std::vector<CommitRecord>> DynamoDbStateStore::QueryRecords(
    const TableHead& head, Version start, Version last, int64_t limit) {
  const std::string& table = head.latest_record.table;
  dynamodb::QueryRequest request;
  request.table = dynamodb_table_;
  request.key_condition = {
      "#t = :t AND #v BETWEEN :start AND :last",
      {{"#t", kTableUriAttribute}, {"#v", kVersionAttribute}},
      {{":t", AttributeValue::String(table)},
       {":start", AttributeValue::Number(start)},
       {":last", AttributeValue::Number(last)}}};
  std::vector<CommitRecord> records;
  while (static_cast<int64_t>(records.size()) < limit) {
    request.limit =
        std::min(limit - static_cast<int64_t>(records.size()), kQueryPageItems);
    StatusOr<dynamodb::QueryResult> page = client_.Query(request);
    if (!page.ok())
      return page.status().WithContext("listing the commits of " + table);
    for (const Item& item : page->items) {
      DC_ASSIGN_OR_RETURN(
          CommitRecord record,
          RecordFromCommitItem(item, dynamodb_table_, head.published_through));
      records.push_back(std::move(record));
    }
    if (!page->last_evaluated_key) break;
    request.exclusive_start_key = std::move(page->last_evaluated_key);
  }
  return records;
}

// Versions below latest from their commit items, latest from the head (its
// commit item is written only when the head moves on).
StatusOr<std::vector<CommitRecord>> DynamoDbStateStore::ListFromHead(
    const TableHead& head, Version start, int64_t limit) {
  std::vector<CommitRecord> records;
  if (start > head.latest) return records;
  if (start < head.latest) {
    DC_ASSIGN_OR_RETURN(records,
                        QueryRecords(head, start, head.latest - 1, limit));
  }
  if (static_cast<int64_t>(records.size()) < limit)
    records.push_back(head.latest_record);
  return records;
}

StatusOr<std::vector<CommitRecord>> DynamoDbStateStore::ListFrom(
    const std::string& table, Version start, int64_t limit) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, start));
  DC_RETURN_IF_ERROR(CheckStateLimit(limit));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) return std::vector<CommitRecord>();
  return ListFromHead(*head, start, limit);
}

namespace {

// The version after `v`; the item's numbers come from the table as read, so
// one may be the largest int64 (then nothing comes after it).
Version After(Version v) { return v == std::numeric_limits<Version>::max() ? v : v + 1; }

}  // namespace

StatusOr<std::vector<CommitRecord>> DynamoDbStateStore::Unpublished(
    const std::string& table, int64_t limit) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  DC_RETURN_IF_ERROR(CheckStateLimit(limit));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head || head->published_through == std::numeric_limits<Version>::max()) {
    return std::vector<CommitRecord>();
  }
  return ListFromHead(*head, head->published_through + 1, limit);
}

Status DynamoDbStateStore::MarkPublishedThrough(const std::string& table,
                                                Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  Status updated =
      client_.UpdateItem(MarkPublishedRequest(dynamodb_table_, table, version));
  if (!updated.IsAlreadyExists()) {
    return updated.WithContext("marking version " + std::to_string(version) +
                               " of " + table + " published in " + Describe());
  }
  // The condition failed: already published that far (success), or no
  // such version.
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) {
    return FailedPreconditionError(
        "cannot mark version " + std::to_string(version) + " of " + table +
        " published: the table has no ratified commits in " + Describe());
  }
  if (version > head->latest) {
    return FailedPreconditionError(
        "cannot mark version " + std::to_string(version) + " of " + table +
        " published: the latest ratified version is " +
        std::to_string(head->latest));
  }
  return OkStatus();
}

StatusOr<int64_t> DynamoDbStateStore::ForgetPublishedBefore(
    const std::string& table, Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) return int64_t{0};
  // Only published records, and never the latest one.
  const Version bound =
      std::min({version, After(head->published_through), head->latest});
  if (bound <= 0) return int64_t{0};
  DC_ASSIGN_OR_RETURN(
      std::vector<CommitRecord> records,
      QueryRecords(*head, 0, bound - 1, std::numeric_limits<int64_t>::max()));
  for (const CommitRecord& record : records) {
    Status deleted = client_.DeleteItem(
        {dynamodb_table_, ItemKey(table, record.version), {}});
    if (!deleted.ok()) {
      return deleted.WithContext("forgetting version " +
                                 std::to_string(record.version) + " of " +
                                 table + " in " + Describe());
    }
  }
  return static_cast<int64_t>(records.size());
}

Status CreateServiceStateTable(dynamodb::DynamoDbClient& client,
                               const std::string& name,
                               const dynamodb::DeltaLogTableBilling& billing) {
  dynamodb::CreateTableRequest request{
      name,
      {kTableUriAttribute, dynamodb::ScalarType::kString},
      dynamodb::KeyAttribute{kVersionAttribute, dynamodb::ScalarType::kNumber},
      billing.mode,
      billing.read_capacity_units,
      billing.write_capacity_units};
  DC_RETURN_IF_ERROR(client.CreateTable(request).status());
  return client.WaitForTableActive(name, kServiceStateTableActiveTimeout);
}

StatusOr<std::optional<AppliedTxn>> DynamoDbStateStore::LatestAppTxn(
    const std::string& table, std::string_view app_id) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  DC_ASSIGN_OR_RETURN(std::optional<TableHead> head, ReadHead(table));
  if (!head) return std::optional<AppliedTxn>();
  auto it = head->app_txns.find(app_id);
  if (it == head->app_txns.end()) return std::optional<AppliedTxn>();
  return std::optional<AppliedTxn>(it->second);
}

}  // namespace deltacommit::service
