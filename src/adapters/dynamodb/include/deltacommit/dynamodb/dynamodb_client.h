// DynamoDbClient: a small typed client for DynamoDB's JSON protocol (POST /,
// X-Amz-Target: DynamoDB_20120810.<Op>, SigV4 service "dynamodb"), with the
// operations the s3-dynamodb log store and the coordinator need.
//
// Every request is built, and signed with credentials asked of the provider,
// per attempt. Retries (full-jitter backoff through the injected Sleeper):
//   - reads (GetItem, Query, Describe*) are idempotent: lost replies, 408,
//     429, 5xx and throttling are retried;
//   - writes (PutItem, UpdateItem, DeleteItem, CreateTable, UpdateTimeToLive)
//     are sent again only when DynamoDB certainly did not apply them:
//     throttling (ProvisionedThroughputExceededException, ThrottlingException,
//     RequestLimitExceeded, all HTTP 400; TransactionConflictException), 429,
//     503 and connection failures before sending. A lost reply, or a 500/502/
//     504, on a write returns kUnknownOutcome: a conditional PutItem sent
//     again after it was applied would report a lost race, so the caller
//     reads the item back instead.
//
// Errors (messages name the action, table, endpoint, request id and, for
// credential problems, the credential source and redacted key id):
//   kAlreadyExists     ConditionalCheckFailedException (the protocol's
//                      conflict); CreateTable of an existing table
//   kNotFound          the table does not exist (with how to create it)
//   kUnauthenticated   unknown key, bad signature, expired token or
//                      credentials expired before sending
//   kPermissionDenied  AccessDeniedException (names the IAM action)
//   kUnimplemented     the server lacks the operation (dynalite:
//                      UpdateTimeToLive)
//   kFailedPrecondition  the table is being created, updated or deleted
//   kInvalidArgument   ValidationException and other client errors
//   kUnavailable       throttled or failing after all attempts; connection
//                      refused; a read whose replies were all lost
//   kUnknownOutcome    a write whose outcome is unknown (above)
//   kInternal          a reply that cannot be decoded
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/clock.h"
#include "deltacommit/dynamodb/attribute_value.h"
#include "deltacommit/status.h"

namespace deltacommit::dynamodb {

// ConditionExpression / UpdateExpression placeholders: "#n" -> attribute
// name, ":v" -> value. Empty maps are not sent (DynamoDB rejects them).
struct Expression {
  Expression() = default;
  Expression(std::string expression, std::map<std::string, std::string> name_map = {},  // NOLINT
             Item value_map = {})
      : text(std::move(expression)), names(std::move(name_map)), values(std::move(value_map)) {}

  std::string text;  // empty: none
  std::map<std::string, std::string> names;
  Item values;
};

struct GetItemRequest {
  std::string table;
  Item key;
  bool consistent_read = true;
};

struct PutItemRequest {
  std::string table;
  Item item;
  Expression condition;  // e.g. "attribute_not_exists(fileName)"
};

struct UpdateItemRequest {
  std::string table;
  Item key;
  Expression update;  // "SET #c = :c, #e = :e"
  // Its placeholders are merged with the update's into one set of maps: a
  // placeholder used by both must mean the same (else kInvalidArgument).
  Expression condition;
};

struct DeleteItemRequest {
  std::string table;
  Item key;
  Expression condition;
};

struct QueryRequest {
  std::string table;
  Expression key_condition;        // "tablePath = :p"
  bool scan_index_forward = true;  // false: descending by range key
  std::optional<int64_t> limit;
  bool consistent_read = true;
  std::optional<Item> exclusive_start_key;  // a previous last_evaluated_key
};

struct QueryResult {
  std::vector<Item> items;
  std::optional<Item> last_evaluated_key;  // set when more items may follow
};

enum class ScalarType { kString, kNumber, kBinary };  // "S", "N", "B"

struct KeyAttribute {
  std::string name;
  ScalarType type = ScalarType::kString;
};

enum class BillingMode { kPayPerRequest, kProvisioned };

struct CreateTableRequest {
  std::string table;
  KeyAttribute hash_key;                  // delta_log: tablePath
  std::optional<KeyAttribute> range_key;  // delta_log: fileName
  BillingMode billing_mode = BillingMode::kPayPerRequest;
  int64_t read_capacity_units = 5;  // kProvisioned only
  int64_t write_capacity_units = 5;
};

struct TableDescription {
  std::string name;
  std::string status;  // "CREATING", "ACTIVE", "UPDATING", "DELETING", ...
  std::string hash_key;
  std::string range_key;     // empty when the table has none
  std::string hash_key_type;   // "S", "N" or "B" (AttributeDefinitions); empty if not given
  std::string range_key_type;  // likewise; empty when there is no range key
  std::string billing_mode;  // "PAY_PER_REQUEST" or "PROVISIONED"
};

struct TimeToLiveDescription {
  std::string status;          // "ENABLED", "DISABLED", "ENABLING", "DISABLING"
  std::string attribute_name;  // empty when disabled
};

struct DynamoDbClientConfig {
  aws::AwsServiceConfig service;  // endpoint and region
  aws::RetryPolicy retry;
};

class DynamoDbClient {
 public:
  // `http`, `credentials`, `clock` and `sleeper` must outlive the client.
  DynamoDbClient(DynamoDbClientConfig config, aws::HttpClient& http,
                 aws::CredentialsProvider& credentials, Clock& clock = SystemClock(),
                 Sleeper& sleeper = RealSleeper());

  // The item, or nullopt when there is none (kNotFound means no table).
  StatusOr<std::optional<Item>> GetItem(const GetItemRequest& request);
  Status PutItem(const PutItemRequest& request);
  Status UpdateItem(const UpdateItemRequest& request);
  Status DeleteItem(const DeleteItemRequest& request);
  // One page; follow last_evaluated_key for more.
  StatusOr<QueryResult> Query(const QueryRequest& request);

  // The table as created (usually CREATING: see WaitForTableActive).
  StatusOr<TableDescription> CreateTable(const CreateTableRequest& request);
  StatusOr<TableDescription> DescribeTable(const std::string& table);
  Status UpdateTimeToLive(const std::string& table, const std::string& attribute, bool enabled);
  StatusOr<TimeToLiveDescription> DescribeTimeToLive(const std::string& table);

  // Polls DescribeTable (50 ms doubling to 1 s, through the Sleeper) until
  // the table is ACTIVE. A missing table is waited for too (DynamoDB may not
  // show a new table at once). kDeadlineExceeded when still CREATING or
  // UPDATING at the deadline; kNotFound when still missing;
  // kFailedPrecondition when it is being deleted or archived; other errors
  // of DescribeTable as they come.
  Status WaitForTableActive(const std::string& table, std::chrono::milliseconds timeout);

  const DynamoDbClientConfig& config() const { return config_; }

 private:
  struct Call;
  struct Signer;
  // Sends `call` (signed per attempt, retried as allowed) and maps any reply
  // but 200 into a Status.
  StatusOr<aws::HttpResponse> Exchange(const Call& call);
  Status ErrorFor(const Call& call, const aws::HttpResponse& response, const Signer& signer) const;
  Status TransportError(const Call& call, const Status& status) const;

  DynamoDbClientConfig config_;
  aws::HttpClient& http_;
  aws::CredentialsProvider& credentials_;
  Clock& clock_;
  Sleeper& sleeper_;
};

}  // namespace deltacommit::dynamodb
