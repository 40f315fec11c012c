// SendWithRetry: the retry loop for AWS calls = retry policy (how many
// attempts) x backoff (exponential, full jitter, through an injected Sleeper)
// x idempotency (which failures may be sent again).
//
// What is retried:
//   kUnavailable     always: the request was certainly not sent.
//   kUnknownOutcome  only when `idempotent`; otherwise it is returned after
//                    one send and the caller must read back (a conditional
//                    PUT resent after it was applied would report a lost race).
//   a response       only when `is_retryable_response` says so. The caller
//                    decides, because only it knows both the request and the
//                    service: for an idempotent request any transient status
//                    (IsTransientResponse); for a non-idempotent one only a
//                    rejection the server issues *before* applying anything
//                    (IsRejectedBeforeApplied: 429, 503 SlowDown). A 500/502/
//                    504 on a write may have been applied, so it is not.
//   anything else    returned at once (including errors from `build`).
//
// Thread-safety: SendWithRetry may run concurrently if each call has its own
// `random` (it is used without locking); `client` and `sleeper` must be safe
// for concurrent use, as their ports require.
#pragma once

#include <chrono>
#include <functional>
#include <random>

#include "deltacommit/aws/http.h"
#include "deltacommit/clock.h"
#include "deltacommit/status.h"

namespace deltacommit::aws {

struct RetryPolicy {
  int max_attempts = 5;  // total sends, including the first; < 1 counts as 1
  std::chrono::milliseconds base{50};
  std::chrono::milliseconds cap{5000};
};

// Builds (and signs) the request for one attempt. Called once per attempt,
// because a SigV4 signature is bound to a timestamp and may expire.
using RequestBuilder = std::function<StatusOr<HttpRequest>()>;

// True if `response` may be sent again for this request (see above).
using ResponseRetryPredicate = std::function<bool(const HttpResponse&)>;

// Sends the request built by `build` up to `policy.max_attempts` times.
// Before retry k (1-based) sleeps uniform(0, min(cap, base * 2^(k-1))), or
// the response's Retry-After seconds bounded by `cap` when it has one.
//
// Returns the first response that is not retried, or the last response when
// attempts run out (the caller maps its status). Transport errors keep their
// code; their message ends with how many attempts were made. Errors from
// `build` are returned unchanged.
StatusOr<HttpResponse> SendWithRetry(
    HttpClient& client, const RequestBuilder& build, bool idempotent,
    const RetryPolicy& policy, Sleeper& sleeper, std::mt19937_64& random,
    const ResponseRetryPredicate& is_retryable_response);

// 408, 429, 500, 502, 503, 504: worth retrying an idempotent request.
bool IsTransientResponse(const HttpResponse& response);

// 429 and 503: the server refused the request without applying it (S3 and
// RGW answer SlowDown/throttling before doing any work), so even a
// non-idempotent request may be retried. Service-specific throttling codes
// (DynamoDB's 400 ThrottlingException) are the caller's to add.
bool IsRejectedBeforeApplied(const HttpResponse& response);

// The upper bound of the jittered sleep before retry `retry` (1-based).
std::chrono::milliseconds BackoffBound(const RetryPolicy& policy, int retry);

}  // namespace deltacommit::aws
