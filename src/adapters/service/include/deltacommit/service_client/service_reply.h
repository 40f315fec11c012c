// The commit service's answers (docs/api.md) mapped into Status: the HTTP
// status and `error.code` decide the code, the service's own message is kept,
// and secrets (the bearer token, the AWS secret key and session token) are
// cut out of anything that goes into a message.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/aws/http.h"
#include "deltacommit/service_wire/answers.h"
#include "deltacommit/status.h"

namespace deltacommit::service_client {

// An error answer: its status, and its body {"error": {"code", "message",
// "latest_version"?, "reason"?}} read leniently (service_wire::ParseErrorBody:
// a body that is not the API's, such as a proxy's HTML page, leaves `code`
// empty and puts a short, escaped excerpt into `message`).
struct ServiceError : service_wire::ErrorBody {
  long http_status = 0;
  std::string request_id;  // X-Request-Id of the answer, for the service's logs
};

ServiceError ParseServiceError(const aws::HttpResponse& response);

// The Status for an error answer, "<context>: <status> <code>: <message>
// (request id ...)" plus what to do:
//   400 -> kInvalidArgument     401 -> kUnauthenticated   403 -> kPermissionDenied
//   404, 405 -> kFailedPrecondition (not a commit service, or an older one)
//   409 version_taken -> kAlreadyExists; other 409 -> kFailedPrecondition
//   413 -> kInvalidArgument     422 -> kUnauthenticated
//   424 -> kPermissionDenied when the reason is access_denied (S3 accepted
//          the credentials, they lack a permission), else kUnauthenticated
//          (unknown key, bad signature, invalid or expired session token);
//          the hint names the reason's fix
//   500 log_inconsistent -> kDataLoss (the service stopped committing to
//          the table until an operator repairs its log: not retried)
//   429, other 5xx -> kUnavailable    anything else -> kInternal
Status ServiceErrorToStatus(const ServiceError& error, std::string_view context);

// Answers worth sending again after a pause: throttling and server-side
// failures (429, 500, 502, 503, 504), except log_inconsistent.
bool IsRetryableAnswer(const ServiceError& error);
bool IsRetryableHttpStatus(long http_status);

// `text` with every non-empty secret replaced by "[REDACTED]".
std::string Redact(std::string text, const std::vector<std::string_view>& secrets);

}  // namespace deltacommit::service_client
