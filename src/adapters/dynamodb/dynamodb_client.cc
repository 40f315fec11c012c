#include "deltacommit/dynamodb/dynamodb_client.h"

#include <algorithm>
#include <random>
#include <string_view>
#include <utility>

#include "deltacommit/aws/errors.h"
#include "deltacommit/aws/sigv4.h"
#include "deltacommit/dynamodb/dynamodb_json.h"

namespace deltacommit::dynamodb {
namespace {

using std::chrono::milliseconds;

constexpr char kTargetPrefix[] = "DynamoDB_20120810.";

std::mt19937_64& ThreadRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// DynamoDB answers these with HTTP 400 and refuses the request before
// applying anything (throttling; an item locked by a transaction), so any
// operation, a write included, may be sent again.
bool IsRejectionCode(const std::string& code) {
  return code == "ProvisionedThroughputExceededException" || code == "ThrottlingException" ||
         code == "RequestLimitExceeded" || code == "TransactionConflictException";
}

bool RejectedBeforeApplied(const aws::HttpResponse& r) {
  if (aws::IsRejectedBeforeApplied(r)) return true;  // 429, 503
  return r.status == 400 && IsRejectionCode(aws::ParseJsonError(r).code);
}

// This layer knows what to do about a missing table, which ErrorToStatus
// cannot: say where we looked and how to create it.
Status TableNotFound(const std::string& table, const aws::AwsServiceConfig& service,
                     const Status& base) {
  return NotFoundError("DynamoDB table " + table + " not found in region " + service.region +
                       " at endpoint " + service.endpoint_url +
                       ": create it with `deltacommit dynamodb create-table` or grant "
                       "dynamodb:CreateTable; " +
                       base.message());
}

// ResourceInUseException: CreateTable of an existing table, or a table
// operation while the table changes state.
Status TableInUse(std::string_view action, const std::string& table, const Status& base) {
  if (action == "CreateTable") {
    return AlreadyExistsError("DynamoDB table " + table + " already exists; " + base.message());
  }
  return FailedPreconditionError("DynamoDB table " + table +
                                 " is being created, updated or deleted: wait until it is "
                                 "ACTIVE; " +
                                 base.message());
}

Status InCall(const Status& status, const char* action, const std::string& table) {
  return status.WithContext("DynamoDB " + std::string(action) + " table " + table);
}

template <typename T>
StatusOr<T> InCall(StatusOr<T> result, const char* action, const std::string& table) {
  if (!result.ok()) return InCall(result.status(), action, table);
  return result;
}

}  // namespace

// One DynamoDB call: what it is, for signing, retrying and error messages.
struct DynamoDbClient::Call {
  const char* action;  // "PutItem", ...
  std::string table;
  std::string body;
  bool idempotent;
};

// Who signed a call, for error messages (never the secret), and the
// credentials themselves, whose values are removed from the server's text.
struct DynamoDbClient::Signer {
  std::string source;
  std::string key_id;  // redacted
  aws::Credentials credentials;
};

DynamoDbClient::DynamoDbClient(DynamoDbClientConfig config, aws::HttpClient& http,
                               aws::CredentialsProvider& credentials, Clock& clock,
                               Sleeper& sleeper)
    : config_(std::move(config)),
      http_(http),
      credentials_(credentials),
      clock_(clock),
      sleeper_(sleeper) {}

StatusOr<aws::HttpResponse> DynamoDbClient::Exchange(const Call& call) {
  Signer signer;
  auto build = [&]() -> StatusOr<aws::HttpRequest> {
    DC_ASSIGN_OR_RETURN(aws::Credentials creds, credentials_.GetCredentials());
    const int64_t now_ms = clock_.NowMillis();
    DC_RETURN_IF_ERROR(aws::CheckNotExpired(creds, now_ms));
    signer.source = creds.source;
    signer.key_id = creds.RedactedKeyId();
    signer.credentials = creds;
    aws::HttpRequest request;
    request.method = "POST";
    request.url = config_.service.endpoint_url + "/";
    request.headers = {{"Content-Type", "application/x-amz-json-1.0"},
                       {"X-Amz-Target", kTargetPrefix + std::string(call.action)}};
    request.body = call.body;
    aws::SigningParams params;
    params.region = config_.service.region;
    params.service = "dynamodb";
    params.now_ms = now_ms;
    aws::SignRequest(request, creds, params);
    return request;
  };
  auto retryable = [&](const aws::HttpResponse& r) {
    return RejectedBeforeApplied(r) || (call.idempotent && aws::IsTransientResponse(r));
  };
  std::mt19937_64 rng(ThreadRng()());
  auto response =
      aws::SendWithRetry(http_, build, call.idempotent, config_.retry, sleeper_, rng, retryable);
  if (!response.ok()) return TransportError(call, response.status());
  if (response->status == 200) return response;
  return ErrorFor(call, *response, signer);
}

Status DynamoDbClient::TransportError(const Call& call, const Status& status) const {
  std::string message = "DynamoDB " + std::string(call.action) + " table " + call.table + " at " +
                        config_.service.endpoint_url + ": " + status.message();
  if (!status.IsUnknownOutcome()) return Status(status.code(), std::move(message));
  // Only reads are idempotent here, and a read whose reply was lost changed
  // nothing: the server is just unreachable.
  if (call.idempotent) return UnavailableError(std::move(message));
  return UnknownOutcomeError(
      message + "; the write may or may not have been applied: read the item back before retrying");
}

Status DynamoDbClient::ErrorFor(const Call& call, const aws::HttpResponse& response,
                                const Signer& signer) const {
  const aws::AwsError error = aws::ParseJsonError(response);
  const std::string& endpoint = config_.service.endpoint_url;
  const aws::AwsErrorContext context{"DynamoDB",    call.action,   "table " + call.table,
                                     endpoint,      signer.source, signer.key_id,
                                     &signer.credentials};
  const Status base = aws::ErrorToStatus(error, context);
  const std::string& code = error.code;
  if (code == "ResourceNotFoundException") return TableNotFound(call.table, config_.service, base);
  if (code == "UnknownOperationException") {
    return UnimplementedError("DynamoDB " + std::string(call.action) +
                              " is not supported by the server at " + endpoint + "; " +
                              base.message());
  }
  if (code == "ResourceInUseException") return TableInUse(call.action, call.table, base);
  if (IsRejectionCode(code)) {
    return UnavailableError(base.message() + "; still refused after all attempts");
  }
  // 503 is a refusal before applying; other server errors may come after a
  // write was applied.
  if (!call.idempotent && response.status >= 500 && response.status != 503) {
    return UnknownOutcomeError(base.message() +
                               "; the write may or may not have been applied: read the item "
                               "back before retrying");
  }
  if (base.code() == StatusCode::kPermissionDenied) {
    return PermissionDeniedError(base.message() + "; IAM action dynamodb:" + call.action);
  }
  return base;
}

StatusOr<std::optional<Item>> DynamoDbClient::GetItem(const GetItemRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::GetItemBody(request), "GetItem", request.table));
  DC_ASSIGN_OR_RETURN(aws::HttpResponse reply,
                      Exchange({"GetItem", request.table, std::move(body), true}));
  return InCall(wire::ParseGetItemReply(reply.body), "GetItem", request.table);
}

Status DynamoDbClient::PutItem(const PutItemRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::PutItemBody(request), "PutItem", request.table));
  return Exchange({"PutItem", request.table, std::move(body), false}).status();
}

Status DynamoDbClient::UpdateItem(const UpdateItemRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::UpdateItemBody(request), "UpdateItem", request.table));
  return Exchange({"UpdateItem", request.table, std::move(body), false}).status();
}

Status DynamoDbClient::DeleteItem(const DeleteItemRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::DeleteItemBody(request), "DeleteItem", request.table));
  return Exchange({"DeleteItem", request.table, std::move(body), false}).status();
}

StatusOr<QueryResult> DynamoDbClient::Query(const QueryRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body, InCall(wire::QueryBody(request), "Query", request.table));
  DC_ASSIGN_OR_RETURN(aws::HttpResponse reply,
                      Exchange({"Query", request.table, std::move(body), true}));
  return InCall(wire::ParseQueryReply(reply.body), "Query", request.table);
}

StatusOr<TableDescription> DynamoDbClient::CreateTable(const CreateTableRequest& request) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::CreateTableBody(request), "CreateTable", request.table));
  // Not idempotent: sent again after it was applied, it would report that
  // the table already exists.
  DC_ASSIGN_OR_RETURN(aws::HttpResponse reply,
                      Exchange({"CreateTable", request.table, std::move(body), false}));
  return InCall(wire::ParseTableReply(reply.body, "TableDescription"), "CreateTable",
                request.table);
}

StatusOr<TableDescription> DynamoDbClient::DescribeTable(const std::string& table) {
  DC_ASSIGN_OR_RETURN(std::string body, InCall(wire::TableNameBody(table), "DescribeTable", table));
  DC_ASSIGN_OR_RETURN(aws::HttpResponse reply,
                      Exchange({"DescribeTable", table, std::move(body), true}));
  return InCall(wire::ParseTableReply(reply.body, "Table"), "DescribeTable", table);
}

Status DynamoDbClient::UpdateTimeToLive(const std::string& table, const std::string& attribute,
                                        bool enabled) {
  DC_ASSIGN_OR_RETURN(
      std::string body,
      InCall(wire::UpdateTimeToLiveBody(table, attribute, enabled), "UpdateTimeToLive", table));
  // Not idempotent: enabling twice is a ValidationException.
  return Exchange({"UpdateTimeToLive", table, std::move(body), false}).status();
}

StatusOr<TimeToLiveDescription> DynamoDbClient::DescribeTimeToLive(const std::string& table) {
  DC_ASSIGN_OR_RETURN(std::string body,
                      InCall(wire::TableNameBody(table), "DescribeTimeToLive", table));
  DC_ASSIGN_OR_RETURN(aws::HttpResponse reply,
                      Exchange({"DescribeTimeToLive", table, std::move(body), true}));
  return InCall(wire::ParseTimeToLiveReply(reply.body), "DescribeTimeToLive", table);
}

Status DynamoDbClient::WaitForTableActive(const std::string& table, milliseconds timeout) {
  const int64_t deadline_ms = clock_.NowMillis() + timeout.count();
  milliseconds delay{50};
  for (;;) {
    StatusOr<TableDescription> d = DescribeTable(table);
    Status last;
    if (d.ok()) {
      if (d->status == "ACTIVE") return OkStatus();
      if (d->status != "CREATING" && d->status != "UPDATING") {
        return FailedPreconditionError("DynamoDB table " + table + " is " + d->status +
                                       ", not ACTIVE, at " + config_.service.endpoint_url);
      }
      last = DeadlineExceededError("DynamoDB table " + table + " is still " + d->status +
                                   " after " + std::to_string(timeout.count()) + " ms at " +
                                   config_.service.endpoint_url);
    } else if (d.status().IsNotFound()) {
      last = d.status();  // a new table may not be visible at once
    } else {
      return d.status();
    }
    const int64_t left_ms = deadline_ms - clock_.NowMillis();
    if (left_ms <= 0) return last;
    sleeper_.Sleep(std::min(delay, milliseconds(left_ms)));
    delay = std::min(delay * 2, milliseconds(1000));
  }
}

}  // namespace deltacommit::dynamodb
