#include "service/api/replies.h"

#include <nlohmann/json.hpp>

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
    case CommitOutcome::kUnavailable: return 503;
    case CommitOutcome::kLogInconsistent: return 500;
  }
  return 500;
}

ApiError ErrorFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return {400, "bad_request", status.message(), {}, {}};
    case StatusCode::kUnauthenticated: return {401, "unauthenticated", status.message(), {}, {}};
    case StatusCode::kPermissionDenied: return {403, "forbidden", status.message(), {}, {}};
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnknownOutcome: return {503, "unavailable", status.message(), {}, {}};
    default: return {500, "internal", status.message(), {}, {}};
  }
}

ApiError ErrorFor(const CommitReply& reply) {
  const bool conflict = reply.outcome == CommitOutcome::kVersionTaken ||
                        reply.outcome == CommitOutcome::kVersionAhead ||
                        reply.outcome == CommitOutcome::kMetadataChanged;
  return {HttpStatusFor(reply.outcome), std::string(CommitOutcomeName(reply.outcome)),
          reply.message, conflict ? std::optional<Version>(reply.latest.value_or(-1)) : std::nullopt,
          reply.reason};
}

http::Response ErrorAnswer(const ApiError& error) {
  nlohmann::json body = {{"code", error.code}, {"message", error.message}};
  if (error.latest.has_value()) body["latest_version"] = *error.latest;
  if (!error.reason.empty()) body["reason"] = error.reason;
  // Messages quote client input: replace invalid UTF-8 rather than throw.
  http::Response response = http::Response::Json(
      error.status, nlohmann::json{{"error", std::move(body)}}.dump(
                        -1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (error.status == 401) {
    response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"deltacommit\"");
  }
  if (error.status == 503) response.headers.emplace_back("Retry-After", "1");
  return response;
}

http::Response CommitReplyResponse(const CommitReply& reply) {
  if (!reply.ok()) return ErrorAnswer(ErrorFor(reply));
  nlohmann::json body = {{"version", reply.version}, {"published", reply.published}};
  if (reply.merged > 0) body["merged"] = reply.merged;
  if (reply.duplicate) body["duplicate"] = true;
  return http::Response::Json(200, body.dump());
}

}  // namespace deltacommit::service
