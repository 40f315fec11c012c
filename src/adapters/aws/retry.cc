#include "deltacommit/aws/retry.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace deltacommit::aws {
namespace {

using std::chrono::milliseconds;

// Retry-After as delta-seconds. The HTTP-date form is ignored: judging it
// needs a clock we trust to agree with the server's, and AWS sends seconds.
std::optional<milliseconds> RetryAfter(const HttpResponse& response) {
  std::string value = response.Header("retry-after");
  int64_t seconds = 0;
  auto [end, error] =
      std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || error != std::errc() ||
      end != value.data() + value.size() || seconds < 0) {
    return std::nullopt;
  }
  // Bounded before converting so a huge value cannot overflow.
  constexpr int64_t kMaxSeconds = int64_t{24} * 3600;
  return milliseconds(std::min(seconds, kMaxSeconds) * 1000);
}

milliseconds JitteredDelay(const RetryPolicy& policy, int retry,
                           std::mt19937_64& random) {
  std::uniform_int_distribution<int64_t> uniform(
      0, BackoffBound(policy, retry).count());
  return milliseconds(uniform(random));
}

milliseconds DelayAfterResponse(const RetryPolicy& policy, int retry,
                                const HttpResponse& response,
                                std::mt19937_64& random) {
  if (auto after = RetryAfter(response)) {
    return std::min(*after, std::max(policy.cap, milliseconds(0)));
  }
  return JitteredDelay(policy, retry, random);
}

Status WithAttempts(const Status& status, int attempts) {
  std::string message = status.message() + " (" + std::to_string(attempts) +
                        (attempts == 1 ? " attempt)" : " attempts)");
  return Status(status.code(), std::move(message));
}

bool IsRetryableTransportError(const Status& status, bool idempotent) {
  if (status.code() == StatusCode::kUnavailable) return true;
  return idempotent && status.IsUnknownOutcome();
}

}  // namespace

milliseconds BackoffBound(const RetryPolicy& policy, int retry) {
  const milliseconds cap = std::max(policy.cap, milliseconds(0));
  milliseconds bound = std::clamp(policy.base, milliseconds(0), cap);
  // Doubling one step at a time and stopping at the cap cannot overflow.
  for (int i = 1; i < retry && bound < cap; ++i)
    bound = std::min(cap, bound * 2);
  return bound;
}

StatusOr<HttpResponse> SendWithRetry(
    HttpClient& client, const RequestBuilder& build, bool idempotent,
    const RetryPolicy& policy, Sleeper& sleeper, std::mt19937_64& random,
    const ResponseRetryPredicate& is_retryable_response) {
  const int max_attempts = std::max(policy.max_attempts, 1);
  for (int attempt = 1;; ++attempt) {
    DC_ASSIGN_OR_RETURN(HttpRequest request, build());
    StatusOr<HttpResponse> result = client.Send(request);
    const bool last = attempt >= max_attempts;
    if (result.ok()) {
      if (last || !is_retryable_response(*result)) return result;
      sleeper.Sleep(DelayAfterResponse(policy, attempt, *result, random));
      continue;
    }
    if (last || !IsRetryableTransportError(result.status(), idempotent)) {
      return WithAttempts(result.status(), attempt);
    }
    sleeper.Sleep(JitteredDelay(policy, attempt, random));
  }
}

bool IsTransientResponse(const HttpResponse& response) {
  switch (response.status) {
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

bool IsRejectedBeforeApplied(const HttpResponse& response) {
  return response.status == 429 || response.status == 503;
}

}  // namespace deltacommit::aws
