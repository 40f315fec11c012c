#include "deltacommit/aws/session_credentials.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using std::chrono::seconds;

constexpr char kLongTermSecret[] = "LONGtermSECRETlongTERMsecretLONGterm0000";
constexpr char kTokenFromEnv[] = "ENVsessionTOKENvalue0123456789";

// The writer's chain, as a test sets it.
class SettableProvider : public CredentialsProvider {
 public:
  std::string Name() const override { return "settable"; }
  StatusOr<Credentials> GetCredentials() override {
    std::lock_guard<std::mutex> lock(mu_);
    return next_;
  }
  void Set(StatusOr<Credentials> next) {
    std::lock_guard<std::mutex> lock(mu_);
    next_ = std::move(next);
  }

 private:
  std::mutex mu_;
  StatusOr<Credentials> next_ = InternalError("unset");
};

Credentials LongTerm(const std::string& key_id = "AKIALONGTERMKEY12345") {
  return {key_id, kLongTermSecret, "", std::nullopt, "environment (AWS_ACCESS_KEY_ID)"};
}

class SessionCredentialsTest : public ::testing::Test {
 protected:
  SessionCredentialsTest() { base_.Set(LongTerm()); }

  // A fake STS: session n (1-based) of the key, valid `duration` from now.
  StatusOr<Credentials> FakeSts(const Credentials& long_term, int64_t duration) {
    EXPECT_EQ(long_term.secret_access_key, kLongTermSecret);
    const int n = ++calls_;
    durations_.push_back(duration);
    if (!sts_error_.ok()) return sts_error_;
    return Credentials{"ASIASESSION" + std::to_string(n) + "-" + long_term.access_key_id,
                       "session-secret-" + std::to_string(n), "session-token-" + std::to_string(n),
                       clock_.NowMillis() + duration * 1000, "fake STS"};
  }

  SessionCredentialsProvider Provider(SessionCredentialsOptions options = {}) {
    return SessionCredentialsProvider(
        base_, [this](const Credentials& c, int64_t d) { return FakeSts(c, d); }, options, clock_);
  }

  FakeClock clock_;
  SettableProvider base_;
  std::atomic<int> calls_{0};
  std::vector<int64_t> durations_;
  Status sts_error_;
};

TEST_F(SessionCredentialsTest, TemporaryCredentialsPassThroughUnchanged) {
  Credentials temporary{"ASIAFROMROLE12345678", "role-secret", "role-token",
                        clock_.NowMillis() + 3'600'000, "credential_process of profile \"dev\""};
  base_.Set(temporary);
  SessionCredentialsProvider provider = Provider();
  StatusOr<Credentials> got = provider.GetCredentials();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, temporary.access_key_id);
  EXPECT_EQ(got->secret_access_key, temporary.secret_access_key);
  EXPECT_EQ(got->session_token, temporary.session_token);
  EXPECT_EQ(got->expiration_ms, temporary.expiration_ms);
  EXPECT_EQ(got->source, temporary.source);
  EXPECT_EQ(calls_, 0);
}

TEST_F(SessionCredentialsTest, ASessionTokenWithoutExpirationSaysHowToGiveIt) {
  base_.Set(Credentials{"ASIAFROMENV123456789", kLongTermSecret, kTokenFromEnv, std::nullopt,
                        "environment (AWS_ACCESS_KEY_ID)"});
  SessionCredentialsProvider provider = Provider();
  Status s = provider.GetCredentials().status();
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  for (const char* part : {"key ASIA\u20266789 from environment (AWS_ACCESS_KEY_ID)",
                           "session token but no expiration", "AWS_CREDENTIAL_EXPIRATION",
                           "credential_process reports Expiration", "long-term keys"}) {
    EXPECT_THAT(s.message(), HasSubstr(part));
  }
  EXPECT_THAT(s.message(), Not(HasSubstr(kLongTermSecret)));
  EXPECT_THAT(s.message(), Not(HasSubstr(kTokenFromEnv)));
  EXPECT_EQ(calls_, 0);
}

TEST_F(SessionCredentialsTest, LongTermKeysAreExchangedForACachedSession) {
  SessionCredentialsProvider provider = Provider();
  StatusOr<Credentials> first = provider.GetCredentials();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->access_key_id, "ASIASESSION1-AKIALONGTERMKEY12345");
  EXPECT_EQ(first->session_token, "session-token-1");
  EXPECT_NE(first->secret_access_key, kLongTermSecret);
  EXPECT_EQ(first->expiration_ms, clock_.NowMillis() + 3'600'000);
  EXPECT_EQ(durations_, std::vector<int64_t>{3600});
  clock_.Advance(seconds(60));
  EXPECT_EQ(provider.GetCredentials()->access_key_id, first->access_key_id);
  EXPECT_EQ(calls_, 1);
}

TEST_F(SessionCredentialsTest, TheSessionIsRenewedAheadOfItsExpiry) {
  SessionCredentialsProvider provider = Provider({900, 300'000});
  ASSERT_EQ(provider.GetCredentials()->session_token, "session-token-1");
  clock_.Advance(seconds(599));  // 301 s left: not yet
  EXPECT_EQ(provider.GetCredentials()->session_token, "session-token-1");
  clock_.Advance(seconds(1));  // 300 s left: renew
  EXPECT_EQ(provider.GetCredentials()->session_token, "session-token-2");
  EXPECT_EQ(durations_, (std::vector<int64_t>{900, 900}));
}

TEST_F(SessionCredentialsTest, AFailedEarlyRenewalKeepsTheValidSessionAndAnExpiredOneFails) {
  SessionCredentialsProvider provider = Provider({900, 300'000});
  ASSERT_TRUE(provider.GetCredentials().ok());
  sts_error_ = PermissionDeniedError("STS GetSessionToken: AccessDenied");
  clock_.Advance(seconds(700));  // 200 s left: renewal due but fails
  StatusOr<Credentials> still = provider.GetCredentials();
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(still->session_token, "session-token-1");
  clock_.Advance(seconds(200));  // expired
  Status s = provider.GetCredentials().status();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("AccessDenied"));
}

TEST_F(SessionCredentialsTest, RotatedKeysGetTheirOwnSession) {
  SessionCredentialsProvider provider = Provider();
  EXPECT_EQ(provider.GetCredentials()->access_key_id, "ASIASESSION1-AKIALONGTERMKEY12345");
  base_.Set(LongTerm("AKIAROTATEDKEY000000"));
  EXPECT_EQ(provider.GetCredentials()->access_key_id, "ASIASESSION2-AKIAROTATEDKEY000000");
  EXPECT_EQ(calls_, 2);
}

TEST_F(SessionCredentialsTest, ErrorsOfTheChainAndOfStsComeThrough) {
  base_.Set(UnauthenticatedError("no AWS credentials found; tried environment"));
  SessionCredentialsProvider provider = Provider();
  EXPECT_THAT(provider.GetCredentials().status().message(), HasSubstr("no AWS credentials found"));
  base_.Set(LongTerm());
  sts_error_ = PermissionDeniedError("STS GetSessionToken: AccessDenied");
  EXPECT_EQ(provider.GetCredentials().status().code(), StatusCode::kPermissionDenied);
}

TEST_F(SessionCredentialsTest, ConcurrentWritersShareOneSession) {
  SessionCredentialsProvider provider = Provider();
  std::vector<std::thread> writers;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        StatusOr<Credentials> c = provider.GetCredentials();
        if (c.ok() && c->session_token == "session-token-1") ++ok;
      }
    });
  }
  for (std::thread& w : writers) w.join();
  EXPECT_EQ(ok, 400);
  EXPECT_EQ(calls_, 1);
}

}  // namespace
}  // namespace deltacommit::aws
