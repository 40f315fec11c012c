#include "service/api/replies.h"

namespace deltacommit::service {

int HttpStatusFor(CommitOutcome outcome) {
  switch (outcome) {
    case CommitOutcome::kOk: return 200;
    case CommitOutcome::kVersionTaken:
    case CommitOutcome::kVersionAhead:
    case CommitOutcome::kMetadataChanged:
    case CommitOutcome::kTxnConflict:
    case CommitOutcome::kAppendUnavailable: return 409;
    case CommitOutcome::kBadRequest: return 400;
    case CommitOutcome::kTooLarge: return 413;
    case CommitOutcome::kCredentialsInvalid: return 422;
    case CommitOutcome::kCredentialsRejected: return 424;
    case CommitOutcome::kForbidden: return 403;
    case CommitOutcome::kTooManyUnpublished: return 429;
    case CommitOutcome::kUnavailable: return 503;
    case CommitOutcome::kLogInconsistent: return 500;
  }
  return 500;
}

ApiError ErrorFor(const Status& status) {
  auto error = [&status](int http_status, const char* code) {
    return ApiError{http_status, {code, status.message(), {}, {}}};
  };
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return error(400, "bad_request");
    case StatusCode::kUnauthenticated: return error(401, "unauthenticated");
    case StatusCode::kPermissionDenied: return error(403, "forbidden");
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnknownOutcome: return error(503, "unavailable");
    default: return error(500, "internal");
  }
}

ApiError ErrorFor(const CommitReply& reply) {
  const bool conflict = reply.outcome == CommitOutcome::kVersionTaken ||
                        reply.outcome == CommitOutcome::kVersionAhead ||
                        reply.outcome == CommitOutcome::kMetadataChanged;
  return {HttpStatusFor(reply.outcome),
          {std::string(CommitOutcomeName(reply.outcome)), reply.message,
           conflict ? std::optional<Version>(reply.latest.value_or(-1)) : std::nullopt,
           reply.reason}};
}

http::Response ErrorAnswer(const ApiError& error) {
  http::Response response =
      http::Response::Json(error.status, service_wire::SerializeErrorBody(error.body));
  if (error.status == 401) {
    response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"deltacommit\"");
  }
  if (error.status == 503) response.headers.emplace_back("Retry-After", "1");
  return response;
}

http::Response CommitReplyResponse(const CommitReply& reply) {
  if (!reply.ok()) return ErrorAnswer(ErrorFor(reply));
  service_wire::CommitAnswer answer;
  answer.version = reply.version;
  answer.published = reply.published;
  answer.merged = reply.merged;
  answer.duplicate = reply.duplicate;
  answer.in_commit_timestamp = reply.in_commit_timestamp;
  return http::Response::Json(200, service_wire::SerializeCommitAnswer(answer));
}

}  // namespace deltacommit::service
