// SendWithRetry with a scripted HttpClient and a RecordingSleeper: which
// failures are retried for idempotent and non-idempotent requests, how long
// it backs off, and how many times it sends.
#include "deltacommit/aws/retry.h"

#include <chrono>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::aws {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

HttpResponse Response(long status, HttpHeaders headers = {}) {
  HttpResponse response;
  response.status = status;
  response.headers = std::move(headers);
  return response;
}

// Replays scripted results in order (the last one repeats) and records what
// it was sent.
class ScriptedHttpClient : public HttpClient {
 public:
  explicit ScriptedHttpClient(std::vector<StatusOr<HttpResponse>> script)
      : script_(script.begin(), script.end()) {}

  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    sent_.push_back(request);
    StatusOr<HttpResponse> next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }

  const std::vector<HttpRequest>& sent() const { return sent_; }

 private:
  std::deque<StatusOr<HttpResponse>> script_;
  std::vector<HttpRequest> sent_;
};

class SendWithRetryTest : public ::testing::Test {
 protected:
  StatusOr<HttpResponse> Run(
      ScriptedHttpClient& client, bool idempotent,
      const ResponseRetryPredicate& retryable = IsTransientResponse) {
    RequestBuilder build = [this]() -> StatusOr<HttpRequest> {
      ++builds_;
      HttpRequest request;
      request.method = "PUT";
      request.url = "http://s3.local/b/k";
      request.headers = {{"x-amz-date", "attempt-" + std::to_string(builds_)}};
      return request;
    };
    return SendWithRetry(client, build, idempotent, policy_, sleeper_, random_,
                         retryable);
  }

  RetryPolicy policy_;
  RecordingSleeper sleeper_;
  std::mt19937_64 random_{42};
  int builds_ = 0;
};

TEST_F(SendWithRetryTest, SuccessOnFirstAttemptDoesNotSleep) {
  ScriptedHttpClient client({Response(200)});
  auto result = Run(client, /*idempotent=*/false);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(client.sent().size(), 1u);
  EXPECT_TRUE(sleeper_.sleeps().empty());
}

// One row per (failure, idempotency): whether the first failure is retried.
struct Case {
  const char* name;
  StatusOr<HttpResponse> first;
  bool idempotent;
  bool retried;
};

class ClassificationTest : public SendWithRetryTest,
                           public ::testing::WithParamInterface<Case> {};

TEST_P(ClassificationTest, RetriesExactlyTheSafeFailures) {
  const Case& c = GetParam();
  ScriptedHttpClient client({c.first, Response(200)});
  ResponseRetryPredicate retryable =
      c.idempotent ? IsTransientResponse : IsRejectedBeforeApplied;
  auto result = Run(client, c.idempotent, retryable);
  EXPECT_EQ(client.sent().size(), c.retried ? 2u : 1u);
  EXPECT_EQ(sleeper_.sleeps().size(), c.retried ? 1u : 0u);
  if (c.retried) {
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->status, 200);
  } else if (c.first.ok()) {
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->status, c.first->status);
  } else {
    EXPECT_EQ(result.status().code(), c.first.status().code());
    EXPECT_THAT(result.status().message(), HasSubstr("(1 attempt)"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllClasses, ClassificationTest,
    ::testing::Values(
        Case{"UnavailableIdempotent", UnavailableError("refused"), true, true},
        Case{"UnavailableNonIdempotent", UnavailableError("refused"), false,
             true},
        Case{"UnknownOutcomeIdempotent", UnknownOutcomeError("timeout"), true,
             true},
        Case{"UnknownOutcomeNonIdempotent", UnknownOutcomeError("timeout"),
             false, false},
        Case{"InternalIdempotent", InternalError("bad url"), true, false},
        Case{"InternalNonIdempotent", InternalError("bad url"), false, false},
        Case{"Http500Idempotent", Response(500), true, true},
        Case{"Http500NonIdempotent", Response(500), false, false},
        Case{"Http503Idempotent", Response(503), true, true},
        Case{"Http503NonIdempotent", Response(503), false, true},
        Case{"Http429NonIdempotent", Response(429), false, true},
        Case{"Http504NonIdempotent", Response(504), false, false},
        Case{"Http404Idempotent", Response(404), true, false},
        Case{"Http412NonIdempotent", Response(412), false, false}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      return std::string(param_info.param.name);
    });

TEST_F(SendWithRetryTest, LostReplyOfNonIdempotentWriteIsNotResent) {
  ScriptedHttpClient client(
      {UnknownOutcomeError("PUT http://s3.local/b/k: no reply"),
       Response(200)});
  auto result = Run(client, /*idempotent=*/false);
  EXPECT_TRUE(result.status().IsUnknownOutcome());
  EXPECT_THAT(result.status().message(), HasSubstr("no reply"));
  EXPECT_EQ(client.sent().size(), 1u);
  EXPECT_EQ(builds_, 1);
}

TEST_F(SendWithRetryTest, GivesUpAfterMaxAttemptsAndSaysHowMany) {
  policy_.max_attempts = 4;
  ScriptedHttpClient client(
      {UnavailableError("request not sent: could not connect")});
  auto result = Run(client, /*idempotent=*/true);
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(result.status().message(),
              HasSubstr("could not connect (4 attempts)"));
  EXPECT_EQ(client.sent().size(), 4u);
  EXPECT_EQ(sleeper_.sleeps().size(), 3u);  // none after the last attempt
}

TEST_F(SendWithRetryTest, ExhaustedRetryableResponseIsReturnedToTheCaller) {
  policy_.max_attempts = 3;
  ScriptedHttpClient client({Response(503)});
  auto result = Run(client, /*idempotent=*/true);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 503);
  EXPECT_EQ(client.sent().size(), 3u);
}

TEST_F(SendWithRetryTest, EachAttemptIsBuiltAndSignedAfresh) {
  ScriptedHttpClient client(
      {UnavailableError("x"), UnavailableError("x"), Response(200)});
  ASSERT_TRUE(Run(client, /*idempotent=*/true).ok());
  ASSERT_EQ(client.sent().size(), 3u);
  EXPECT_EQ(builds_, 3);
  EXPECT_EQ(client.sent()[2].headers[0].second, "attempt-3");
}

TEST_F(SendWithRetryTest, BuildErrorIsReturnedWithoutSending) {
  ScriptedHttpClient client({Response(200)});
  RequestBuilder build = []() -> StatusOr<HttpRequest> {
    return UnauthenticatedError("no credentials");
  };
  auto result = SendWithRetry(client, build, true, policy_, sleeper_, random_,
                              IsTransientResponse);
  EXPECT_EQ(result.status(), UnauthenticatedError("no credentials"));
  EXPECT_TRUE(client.sent().empty());
}

TEST_F(SendWithRetryTest, MaxAttemptsBelowOneStillSendsOnce) {
  policy_.max_attempts = 0;
  ScriptedHttpClient client({UnavailableError("x")});
  auto result = Run(client, /*idempotent=*/true);
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(client.sent().size(), 1u);
}

TEST_F(SendWithRetryTest, BackoffBoundDoublesUpToTheCap) {
  RetryPolicy policy{
      .max_attempts = 10, .base = milliseconds(50), .cap = milliseconds(300)};
  EXPECT_EQ(BackoffBound(policy, 1), milliseconds(50));
  EXPECT_EQ(BackoffBound(policy, 2), milliseconds(100));
  EXPECT_EQ(BackoffBound(policy, 3), milliseconds(200));
  EXPECT_EQ(BackoffBound(policy, 4), milliseconds(300));
  EXPECT_EQ(BackoffBound(policy, 1000), milliseconds(300));  // no overflow
}

TEST_F(SendWithRetryTest, SleepsAreFullJitterWithinTheBounds) {
  policy_ = {
      .max_attempts = 6, .base = milliseconds(100), .cap = milliseconds(1000)};
  std::vector<milliseconds> largest(5, milliseconds(0));
  for (int run = 0; run < 200; ++run) {
    sleeper_.Clear();
    ScriptedHttpClient client({UnavailableError("x")});
    (void)Run(client, /*idempotent=*/true);
    auto sleeps = sleeper_.sleeps();
    ASSERT_EQ(sleeps.size(), 5u);
    for (size_t i = 0; i < sleeps.size(); ++i) {
      milliseconds bound = BackoffBound(policy_, static_cast<int>(i) + 1);
      EXPECT_GE(sleeps[i], milliseconds(0));
      EXPECT_LE(sleeps[i], bound);
      largest[i] = std::max(largest[i], sleeps[i]);
    }
  }
  // Full jitter spans the whole range: over 200 runs the largest sleep comes
  // close to each bound (100, 200, 400, 800, 1000).
  for (size_t i = 0; i < largest.size(); ++i) {
    EXPECT_GE(largest[i] * 10,
              BackoffBound(policy_, static_cast<int>(i) + 1) * 9)
        << i;
  }
}

TEST_F(SendWithRetryTest, RetryAfterIsHonouredAndBoundedByTheCap) {
  policy_.cap = milliseconds(5000);
  ScriptedHttpClient client({Response(503, {{"retry-after", "2"}}),
                             Response(503, {{"retry-after", "60"}}),
                             Response(503, {{"retry-after", "soon"}}),
                             Response(200)});
  auto result = Run(client, /*idempotent=*/false, IsRejectedBeforeApplied);
  ASSERT_TRUE(result.ok());
  auto sleeps = sleeper_.sleeps();
  ASSERT_EQ(sleeps.size(), 3u);
  EXPECT_EQ(sleeps[0], milliseconds(2000));
  EXPECT_EQ(sleeps[1], milliseconds(5000));
  EXPECT_LE(sleeps[2], BackoffBound(policy_, 3));  // unparseable: jitter
}

TEST(ResponsePredicatesTest, TransientAndRejectedStatuses) {
  for (long status : {408L, 429L, 500L, 502L, 503L, 504L}) {
    EXPECT_TRUE(IsTransientResponse(Response(status))) << status;
  }
  for (long status : {200L, 400L, 403L, 404L, 409L, 412L, 501L}) {
    EXPECT_FALSE(IsTransientResponse(Response(status))) << status;
  }
  EXPECT_TRUE(IsRejectedBeforeApplied(Response(429)));
  EXPECT_TRUE(IsRejectedBeforeApplied(Response(503)));
  EXPECT_FALSE(IsRejectedBeforeApplied(Response(500)));
  EXPECT_FALSE(IsRejectedBeforeApplied(Response(504)));
}

}  // namespace
}  // namespace deltacommit::aws
