// The answers of the commit service's HTTP API (docs/api.md): the status
// code of each refusal and of each commit outcome; the bodies are
// service_wire's (ErrorBody: latest_version only on 409, on 424 a reason).
// 401 carries `WWW-Authenticate: Bearer`, 503 `Retry-After: 1`.
//
// Thread-safety: pure functions.
#pragma once

#include "deltacommit/service_wire/answers.h"
#include "deltacommit/status.h"
#include "service/commits/commit_types.h"
#include "service/http/http_message.h"

namespace deltacommit::service {

struct ApiError {
  int status = 500;
  service_wire::ErrorBody body;
};

// 200, 409, 409, 400, 413, 422, 424, 503, 500 (log_inconsistent).
int HttpStatusFor(CommitOutcome outcome);

// The refusal of a Status that stopped a request before the commit logic:
// kInvalidArgument 400 bad_request, kUnauthenticated 401 unauthenticated,
// kPermissionDenied 403 forbidden, kUnavailable (and kDeadlineExceeded,
// kUnknownOutcome) 503 unavailable, anything else 500 internal.
ApiError ErrorFor(const Status& status);

// The refusal of a commit reply that is not OK.
ApiError ErrorFor(const CommitReply& reply);

http::Response ErrorAnswer(const ApiError& error);

// 200 {"version": v, "published": b, "merged"?, "duplicate"?,
// "in_commit_timestamp"?}, or
// ErrorAnswer(ErrorFor(reply)).
http::Response CommitReplyResponse(const CommitReply& reply);

}  // namespace deltacommit::service
