// Fuzz target: the JSON a DynamoDB endpoint answers, as the DynamoDB adapter
// reads it: GetItem, Query, DescribeTable/CreateTable and DescribeTimeToLive
// replies (dynamodb::wire::Parse*Reply), DynamoDB JSON items
// (dynamodb::ItemFromJson), Delta's s3-dynamodb log entries in those items
// (dynamodb::EntryFromItem) and error bodies (aws::ParseJsonError).
// Invariants: an item written back (ToJson, ToItem) reads as the same item
// or entry; an error always has a code and maps to a non-OK Status.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/errors.h"
#include "deltacommit/dynamodb/attribute_value.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_json.h"
#include "fuzz_check.h"

namespace {

using namespace deltacommit;
using namespace deltacommit::dynamodb;

void CheckEntry(const Item& item) {
  StatusOr<ExternalCommitEntry> entry = EntryFromItem(item, "delta_log");
  if (!entry.ok()) {
    FUZZ_CHECK(entry.status().code() == StatusCode::kDataLoss);
    return;
  }
  StatusOr<ExternalCommitEntry> reread = EntryFromItem(ToItem(*entry), "delta_log");
  FUZZ_CHECK(reread.ok());
  FUZZ_CHECK(*reread == *entry);
}

void CheckItem(std::string_view json) {
  StatusOr<Item> item = ItemFromJson(json);
  if (!item.ok()) return;
  StatusOr<Item> reread = ItemFromJson(ToJson(*item));
  FUZZ_CHECK(reread.ok());
  FUZZ_CHECK(*reread == *item);
  CheckEntry(*item);
}

void CheckReplies(std::string_view body) {
  StatusOr<std::optional<Item>> got = wire::ParseGetItemReply(body);
  if (got.ok() && got->has_value()) CheckEntry(**got);
  StatusOr<QueryResult> query = wire::ParseQueryReply(body);
  if (query.ok()) {
    for (const Item& item : query->items) CheckEntry(item);
  }
  StatusOr<TableDescription> table = wire::ParseTableReply(body, "Table");
  if (table.ok()) FUZZ_CHECK(!table->status.empty() && !table->billing_mode.empty());
  (void)wire::ParseTableReply(body, "TableDescription");
  (void)wire::ParseTimeToLiveReply(body);
}

void CheckErrorBody(std::string_view body) {
  aws::HttpResponse response;
  response.status = 400;
  response.body.assign(body);
  const aws::AwsError error = aws::ParseJsonError(response);
  FUZZ_CHECK(!error.code.empty());
  const Status status = aws::ErrorToStatus(
      error, {"DynamoDB", "PutItem", "table delta_log", "http://127.0.0.1:8000", "environment",
              "AKIA****"});
  FUZZ_CHECK(!status.ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  CheckItem(body);
  CheckReplies(body);
  CheckErrorBody(body);
  return 0;
}
