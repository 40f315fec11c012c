// Fuzz target: the commit service's DynamoDB state table as the DynamoDB
// state store reads it (service/state/dynamodb_state_items.cc): items from
// a GetItem reply (the head, version -1, or one commit item), from a Query
// reply (commit items) or as DynamoDB JSON, decoded by HeadFromItem and
// RecordFromCommitItem. Invariants: a refused item is kDataLoss naming the
// DynamoDB table; an accepted record is a valid CommitRecord whose
// `published` follows published_through and whose CommitItem reads back as
// it; an accepted head has -1 <= published_through <= latest, its record is
// version latest, and what the store writes next reads back as documented:
// FirstHeadRequest's item as the same head, AdvanceHeadRequest's SET applied
// to the item as the head of latest + 1 (published_through and the other
// applications' txns kept), MarkPublishedRequest's as published through
// latest. Then DynamoDbStateStore itself over a DynamoDB endpoint that
// answers GetItem and the first Query with the input (writes succeed): every
// call ends in a Status, and Latest and Get(latest) give the head's record.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/dynamodb/attribute_value.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/dynamodb/dynamodb_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/testing/fake_clock.h"
#include "fuzz_check.h"
#include "service/state/dynamodb_state_items.h"
#include "service/state/dynamodb_state_store.h"

namespace {

using namespace deltacommit;
using namespace deltacommit::service;
using dynamodb::AttributeValue;
using dynamodb::Item;

constexpr char kDynamoTable[] = "deltacommit_service";
constexpr char kUuid[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

void CheckRefusal(const Status& status) {
  FUZZ_CHECK(status.code() == StatusCode::kDataLoss);
  FUZZ_CHECK(status.message().starts_with(std::string("DynamoDB table ") +
                                          kDynamoTable + " "));
}

void CheckRecord(const Item& item, Version published_through) {
  StatusOr<CommitRecord> record =
      RecordFromCommitItem(item, kDynamoTable, published_through);
  if (!record.ok()) {
    CheckRefusal(record.status());
    return;
  }
  FUZZ_CHECK(ValidateCommitRecord(*record).ok());
  FUZZ_CHECK(item.at(kVersionAttribute).AsInt64() == record->version);
  FUZZ_CHECK(record->published == (record->version <= published_through));
  FUZZ_CHECK(record->app_txns.empty());
  StatusOr<CommitRecord> reread = RecordFromCommitItem(
      CommitItem(*record), kDynamoTable, published_through);
  FUZZ_CHECK(reread.ok());
  FUZZ_CHECK(*reread == *record);
}

// `item` with the update's "SET #n = :v, ..." applied (as DynamoDB would:
// placeholders resolved through the update's maps). The state items write
// only that form; anything else is a mistake of this target.
Item ApplySet(Item item, const dynamodb::Expression& update) {
  std::string_view text = update.text;
  FUZZ_CHECK(text.starts_with("SET "));
  text.remove_prefix(4);
  while (!text.empty()) {
    const size_t comma = text.find(", ");
    const std::string_view assignment = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size()
                                                       : comma + 2);
    const size_t equals = assignment.find(" = ");
    FUZZ_CHECK(equals != std::string_view::npos);
    const std::string name(assignment.substr(0, equals));
    const std::string value(assignment.substr(equals + 3));
    FUZZ_CHECK(update.names.contains(name) && update.values.contains(value));
    item[update.names.at(name)] = update.values.at(value);
  }
  return item;
}

// The head the store writes when it ratifies the first version: the same
// record and latest, published_through latest - 1, the applications whose
// txn landed in latest.
void CheckFirstHead(const TableHead& head) {
  CommitRecord record = head.latest_record;
  std::map<std::string, AppliedTxn, std::less<>> expected_txns;
  for (const auto& [app, applied] : head.app_txns) {
    if (applied.commit_version != head.latest) continue;
    record.app_txns.push_back({app, applied.txn_version});
    expected_txns[app] = applied;
  }
  StatusOr<TableHead> first =
      HeadFromItem(FirstHeadRequest(kDynamoTable, record).item, kDynamoTable);
  FUZZ_CHECK(first.ok());
  FUZZ_CHECK(first->latest == head.latest);
  FUZZ_CHECK(first->published_through == head.latest - 1);
  CommitRecord unpublished = head.latest_record;
  unpublished.published = false;
  FUZZ_CHECK(first->latest_record == unpublished);
  FUZZ_CHECK(first->app_txns == expected_txns);
}

// Ratifying latest + 1 on this head: the condition holds on the item, and
// the item updated is the head of the new version.
void CheckAdvance(const Item& item, const TableHead& head) {
  if (head.latest == std::numeric_limits<Version>::max()) return;
  CommitRecord next = head.latest_record;
  next.version = head.latest + 1;
  next.staged_file = StagedCommitPath(next.version, kUuid);
  next.published = false;
  next.app_txns = {{"fuzz-app", 7}};
  if (!head.app_txns.empty() && !head.app_txns.begin()->first.empty() &&
      head.app_txns.begin()->first != "fuzz-app") {
    next.app_txns.push_back({head.app_txns.begin()->first, 1});
  }
  FUZZ_CHECK(ValidateCommitRecord(next).ok());
  const dynamodb::UpdateItemRequest request =
      AdvanceHeadRequest(kDynamoTable, next);
  FUZZ_CHECK(request.table == kDynamoTable);
  FUZZ_CHECK(request.key == ItemKey(next.table, kHeadVersion));
  FUZZ_CHECK(request.condition.text == "#l = :previous");
  FUZZ_CHECK(item.at(request.condition.names.at("#l")).AsInt64() ==
             request.condition.values.at(":previous").AsInt64());
  StatusOr<TableHead> moved =
      HeadFromItem(ApplySet(item, request.update), kDynamoTable);
  FUZZ_CHECK(moved.ok());
  FUZZ_CHECK(moved->latest == next.version);
  FUZZ_CHECK(moved->published_through == head.published_through);
  CommitRecord read_back = next;
  read_back.app_txns.clear();
  FUZZ_CHECK(moved->latest_record == read_back);
  std::map<std::string, AppliedTxn, std::less<>> txns = head.app_txns;
  for (const AppTxn& txn : next.app_txns)
    txns[txn.app_id] = {txn.txn_version, next.version};
  FUZZ_CHECK(moved->app_txns == txns);
}

// Marking latest published: the update reads back as published through it.
void CheckMarkPublished(const Item& item, const TableHead& head) {
  if (head.published_through == head.latest) return;  // the condition fails
  const dynamodb::UpdateItemRequest request =
      MarkPublishedRequest(kDynamoTable, head.latest_record.table, head.latest);
  FUZZ_CHECK(request.key == ItemKey(head.latest_record.table, kHeadVersion));
  StatusOr<TableHead> marked =
      HeadFromItem(ApplySet(item, request.update), kDynamoTable);
  FUZZ_CHECK(marked.ok());
  FUZZ_CHECK(marked->published_through == head.latest);
  FUZZ_CHECK(marked->latest_record.published);
  FUZZ_CHECK(marked->app_txns == head.app_txns);
}

void CheckHead(const Item& item) {
  StatusOr<TableHead> head = HeadFromItem(item, kDynamoTable);
  if (!head.ok()) {
    CheckRefusal(head.status());
    return;
  }
  FUZZ_CHECK(head->latest >= 0);
  FUZZ_CHECK(head->published_through >= -1 &&
             head->published_through <= head->latest);
  FUZZ_CHECK(head->latest_record.version == head->latest);
  FUZZ_CHECK(head->latest_record.published ==
             (head->published_through == head->latest));
  FUZZ_CHECK(head->latest_record.app_txns.empty());
  FUZZ_CHECK(ValidateCommitRecord(head->latest_record).ok());
  CheckFirstHead(*head);
  CheckAdvance(item, *head);
  CheckMarkPublished(item, *head);
}

void CheckItem(const Item& item) {
  CheckHead(item);
  for (Version published_through :
       {Version{-1}, Version{5}, std::numeric_limits<Version>::max()}) {
    CheckRecord(item, published_through);
  }
}

// ---- the store over a DynamoDB endpoint that answers the input ------------

constexpr char kTable[] = "s3://lake/sales/orders";
constexpr int64_t kNowMs = 1'700'000'000'000;

// GetItem answers `body`; a call's first Query too, later pages are empty
// (the same LastEvaluatedKey for ever would be an endpoint's loop, not the
// store's); writes succeed.
class AnsweringDynamoDb : public aws::HttpClient {
 public:
  explicit AnsweringDynamoDb(std::string_view body) : body_(body) {}
  void NewCall() { queried_ = false; }
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override {
    std::string target;
    for (const auto& [name, value] : request.headers) {
      if (name == "X-Amz-Target") target = value;
    }
    aws::HttpResponse response;
    response.status = 200;
    response.body = "{}";
    if (target.ends_with(".GetItem")) response.body = body_;
    if (target.ends_with(".Query") && !std::exchange(queried_, true))
      response.body = body_;
    return response;
  }

 private:
  std::string body_;
  bool queried_ = false;
};

void CheckStore(std::string_view body, const std::optional<TableHead>& head) {
  FakeClock clock(kNowMs);  // never advanced: every input sees one time
  RecordingSleeper sleeper;  // returns at once
  AnsweringDynamoDb http(body);
  std::unique_ptr<aws::CredentialsProvider> credentials =
      aws::StaticCredentialsProvider(
          {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "", std::nullopt, "fuzz"},
          clock);
  dynamodb::DynamoDbClientConfig config;
  config.service.region = "us-east-1";
  config.service.endpoint_url = "http://127.0.0.1:8000";
  config.service.allow_http = true;
  config.retry.max_attempts = 1;
  dynamodb::DynamoDbClient client(config, http, *credentials, clock, sleeper);
  DynamoDbStateStore store(client, kDynamoTable);

  http.NewCall();
  StatusOr<std::optional<CommitRecord>> latest = store.Latest(kTable);
  if (head) {
    FUZZ_CHECK(latest.ok() && latest->has_value());
    FUZZ_CHECK(**latest == head->latest_record);
    http.NewCall();
    StatusOr<std::optional<CommitRecord>> at_latest =
        store.Get(kTable, head->latest);
    FUZZ_CHECK(at_latest.ok() && at_latest->has_value());
    FUZZ_CHECK(**at_latest == head->latest_record);
  }
  http.NewCall();
  (void)store.Get(kTable, 3);
  http.NewCall();
  (void)store.ListFrom(kTable, 0, 100);
  http.NewCall();
  (void)store.Unpublished(kTable, 100);
  http.NewCall();
  (void)store.LatestAppTxn(kTable, "stream-a");
  http.NewCall();
  (void)store.MarkPublishedThrough(kTable, 5);
  http.NewCall();
  (void)store.ForgetPublishedBefore(kTable, 5);
  CommitRecord next{kTable, 0,     "", std::string(64, 'a'), 10, kNowMs,
                    kNowMs, false, {}};
  if (head && head->latest < std::numeric_limits<Version>::max())
    next.version = head->latest + 1;
  next.staged_file = StagedCommitPath(next.version, kUuid);
  RatifyConflict conflict;
  http.NewCall();
  (void)store.Ratify(next, &conflict);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  // ReadHead and ReadRecord: GetItem; QueryRecords: a Query page.
  StatusOr<std::optional<Item>> got = dynamodb::wire::ParseGetItemReply(body);
  if (got.ok() && got->has_value()) CheckItem(**got);
  StatusOr<dynamodb::QueryResult> page = dynamodb::wire::ParseQueryReply(body);
  if (page.ok()) {
    for (const Item& item : page->items) CheckItem(item);
  }
  StatusOr<Item> item = dynamodb::ItemFromJson(body);
  if (item.ok()) CheckItem(*item);
  std::optional<TableHead> head;
  if (got.ok() && got->has_value()) {
    StatusOr<TableHead> decoded = HeadFromItem(**got, kDynamoTable);
    if (decoded.ok()) head = std::move(decoded).value();
  }
  CheckStore(body, head);
  return 0;
}
