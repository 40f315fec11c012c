// AWS error replies mapped into Status with the service's error code, the
// request id, the endpoint and a human explanation of what to do.
// Credentials never appear: only their source and a redacted key id, also
// when the server's own text quotes them (RedactCredentials).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/status.h"

namespace deltacommit::aws {

struct AwsError {
  long http_status = 0;
  std::string code;        // "NoSuchKey", "ConditionalCheckFailedException", ...
  std::string message;     // the server's text (RGW sends none)
  std::string request_id;
};

// What the caller was doing, for the message.
struct AwsErrorContext {
  std::string service;            // "S3", "DynamoDB"
  std::string action;             // "PutObject", "GetItem"
  std::string resource;           // "s3://bucket/key", "table delta_log"
  std::string endpoint;           // "http://127.0.0.1:7480"
  std::string credential_source;  // Credentials::source
  std::string key_id;             // Credentials::RedactedKeyId()
  // The credentials the request was signed with (null: unknown). Never
  // shown: their values are removed from the server's text.
  const Credentials* credentials = nullptr;
};

// `server_text` (an error message, code or request id quoted from a reply)
// without `credentials`' values: a store may echo what the request carried
// (its key id, its session token) or what it knows (the secret), and the
// text ends up in replies to clients and in logs. The key id becomes its
// redacted form (RedactedKeyId), the secret "[redacted secret access key]",
// the token "[redacted session token]"; each also when percent-encoded.
// Every adapter that quotes server text passes it through here (through
// ErrorToStatus when it can).
std::string RedactCredentials(std::string_view server_text, const Credentials& credentials);

// S3's XML error body (<Error><Code>…), or the Query protocol's (STS, IAM:
// <ErrorResponse><Error><Code>…); a body-less reply (HEAD) gets a code from
// its HTTP status ("NotFound", "Forbidden", ...).
AwsError ParseXmlError(const HttpResponse& response);
// The JSON protocol's error body ({"__type": "...#Code", "message": ...}).
AwsError ParseJsonError(const HttpResponse& response);

// The Status for `error`: code mapping (NoSuchKey/NoSuchBucket/
// ResourceNotFound -> kNotFound; PreconditionFailed -> kAlreadyExists;
// credential problems -> kUnauthenticated; AccessDenied -> kPermissionDenied;
// throttling and 5xx -> kUnavailable; ...) and a message naming the action,
// resource, endpoint, request id and what to do. The server's text in it
// goes through RedactCredentials when context.credentials is set.
Status ErrorToStatus(const AwsError& error, const AwsErrorContext& context);

// Throttling or a server-side failure that is worth retrying.
bool IsRetryableError(const AwsError& error);

}  // namespace deltacommit::aws
