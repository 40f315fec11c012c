#include "deltacommit/service_client/service_reply.h"

#include "deltacommit/core/message_quote.h"

namespace deltacommit::service_client {
namespace {

// What the writer can do about each refusal.
std::string_view Hint(const ServiceError& e) {
  // The 424 reason says which of the two the writer has to fix, so say only that.
  if (e.http_status == 424 && e.reason == "invalid_credentials") {
    return "; S3 did not accept the writer's AWS credentials (an unknown access key id, a "
           "wrong secret, or an invalid or expired session token): refresh them (its profile, "
           "environment or credential_process)";
  }
  if (e.http_status == 424 && e.reason == "access_denied") {
    return "; S3 accepted the writer's AWS credentials, but they lack a permission: grant them "
           "access to the table's _delta_log/";
  }
  switch (e.http_status) {
    case 401:
      return "; check --service-token (or DELTACOMMIT_SERVICE_TOKEN)";
    case 403:
      return "; the service's configuration must allow this token to use the table "
             "(and the endpoint, if --service-endpoint names one)";
    case 413:
      return "; the commit is larger than the service accepts (its max_body_bytes)";
    case 422:
    case 424:
      return "; these are the writer's AWS credentials (its profile, environment or "
             "credential_process): refresh them or grant them access to the table's _delta_log/";
    case 429:
    case 503:
      return "; retry later";
    default:
      return "";
  }
}

StatusCode CodeFor(const ServiceError& e) {
  switch (e.http_status) {
    case 400:
    case 413:
      return StatusCode::kInvalidArgument;
    case 401:
    case 422:
      return StatusCode::kUnauthenticated;
    case 403:
      return StatusCode::kPermissionDenied;
    case 404:
    case 405:
      return StatusCode::kFailedPrecondition;
    case 409:
      return e.code == "version_taken" ? StatusCode::kAlreadyExists
                                       : StatusCode::kFailedPrecondition;
    case 424:
      return e.reason == "access_denied" ? StatusCode::kPermissionDenied
                                         : StatusCode::kUnauthenticated;
    case 500:
      if (e.code == "log_inconsistent") return StatusCode::kDataLoss;
      return StatusCode::kUnavailable;
    default:
      if (IsRetryableHttpStatus(e.http_status)) return StatusCode::kUnavailable;
      return StatusCode::kInternal;
  }
}

}  // namespace

std::string Redact(std::string text, const std::vector<std::string_view>& secrets) {
  static constexpr std::string_view kMark = "[REDACTED]";
  for (std::string_view secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kMark.size())) {
      text.replace(at, secret.size(), kMark);
    }
  }
  return text;
}

bool IsRetryableAnswer(const ServiceError& error) {
  return IsRetryableHttpStatus(error.http_status) && error.code != "log_inconsistent";
}

bool IsRetryableHttpStatus(long http_status) {
  return http_status == 429 || http_status == 500 || http_status == 502 ||
         http_status == 503 || http_status == 504;
}

ServiceError ParseServiceError(const aws::HttpResponse& response) {
  return {service_wire::ParseErrorBody(response.body), response.status,
          Excerpt(response.Header("x-request-id"), 64)};
}

Status ServiceErrorToStatus(const ServiceError& e, std::string_view context) {
  std::string message(context);
  message += ": HTTP " + std::to_string(e.http_status);
  if (!e.code.empty()) message += " " + e.code;
  if (!e.message.empty()) message += ": " + e.message;
  if (e.latest_version) message += " (the service's latest version is " +
                                   std::to_string(*e.latest_version) + ")";
  if (e.http_status == 404 || e.http_status == 405) {
    message += "; is --service-url the address of a deltacommit commit service?";
  }
  message += Hint(e);
  if (!e.request_id.empty()) message += " [request id " + e.request_id + "]";
  return Status(CodeFor(e), std::move(message));
}

}  // namespace deltacommit::service_client
