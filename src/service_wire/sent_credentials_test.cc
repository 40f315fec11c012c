// The writer's credential headers: what the client writes is what the
// service reads, and every incomplete or stale set is refused by name.
#include "deltacommit/service_wire/sent_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "deltacommit/aws/credentials_internal.h"

namespace deltacommit::service_wire {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kNow = 1'764'700'000'000;

aws::Credentials Temporary() {
  aws::Credentials c;
  c.access_key_id = "ASIAWRITER0000000001";
  c.secret_access_key = "writerSECRETwriterSECRET";
  c.session_token = "writer-session-token";
  c.expiration_ms = kNow + 3'600'000;
  c.source = "the environment";
  return c;
}

// The headers as a server's case-insensitive lookup finds them.
SentCredentials Received(const aws::HttpHeaders& headers) {
  std::map<std::string, std::string> lower;
  for (const auto& [name, value] : headers) {
    std::string key;
    for (char ch : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    lower[key] = value;
  }
  return ReadSentCredentials([&](std::string_view name) -> std::optional<std::string_view> {
    std::string key;
    for (char ch : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto it = lower.find(key);
    if (it == lower.end()) return std::nullopt;
    return it->second;
  });
}

TEST(SentCredentialsTest, WhatTheClientSendsTheServiceReadsUnchanged) {
  StatusOr<aws::HttpHeaders> headers = SentCredentialHeaders(Temporary());
  ASSERT_TRUE(headers.ok()) << headers.status().ToString();
  ASSERT_EQ(headers->size(), 4u);
  StatusOr<aws::Credentials> read = ParseSentCredentials(Received(*headers), kNow, "passed");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->access_key_id, Temporary().access_key_id);
  EXPECT_EQ(read->secret_access_key, Temporary().secret_access_key);
  EXPECT_EQ(read->session_token, Temporary().session_token);
  // RFC 3339 to the second.
  EXPECT_EQ(read->expiration_ms, Temporary().expiration_ms);
  EXPECT_EQ(read->source, "passed");
}

TEST(SentCredentialsTest, ALongTermKeyIsNeverSent) {
  aws::Credentials long_term = Temporary();
  long_term.session_token.clear();
  long_term.expiration_ms.reset();
  StatusOr<aws::HttpHeaders> headers = SentCredentialHeaders(long_term);
  ASSERT_FALSE(headers.ok());
  EXPECT_EQ(headers.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(headers.status().message(),
              AllOf(HasSubstr("the environment"), HasSubstr("not temporary"),
                    Not(HasSubstr(long_term.secret_access_key))));
  aws::Credentials no_expiry = Temporary();
  no_expiry.expiration_ms.reset();
  EXPECT_FALSE(SentCredentialHeaders(no_expiry).ok());
}

TEST(SentCredentialsTest, NoneSentIsAPreconditionNamingTheHeaders) {
  StatusOr<aws::Credentials> read = ParseSentCredentials({}, kNow, "passed");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(read.status().message(),
              AllOf(HasSubstr("X-Deltacommit-Access-Key-Id"),
                    HasSubstr("X-Deltacommit-Credentials-Expiration")));
}

TEST(SentCredentialsTest, EachMissingHeaderIsNamed) {
  const SentCredentials full = Received(*SentCredentialHeaders(Temporary()));
  const std::pair<std::string_view, std::string SentCredentials::*> fields[] = {
      {kSentAccessKeyIdHeader, &SentCredentials::access_key_id},
      {kSentSecretAccessKeyHeader, &SentCredentials::secret_access_key},
      {kSentSessionTokenHeader, &SentCredentials::session_token},
      {kSentExpirationHeader, &SentCredentials::expiration}};
  for (const auto& [name, field] : fields) {
    SentCredentials partial = full;
    partial.*field = "";
    StatusOr<aws::Credentials> read = ParseSentCredentials(partial, kNow, "passed");
    ASSERT_FALSE(read.ok()) << name;
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(read.status().message(), HasSubstr("header " + std::string(name) + " is missing"));
    EXPECT_THAT(read.status().message(), Not(HasSubstr(full.secret_access_key)));
  }
}

TEST(SentCredentialsTest, ABadOrPastExpirationIsRefused) {
  SentCredentials sent = Received(*SentCredentialHeaders(Temporary()));
  sent.expiration = "tomorrow";
  StatusOr<aws::Credentials> bad = ParseSentCredentials(sent, kNow, "passed");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("\"tomorrow\" is not an RFC 3339 time"));

  sent.expiration = aws::internal::FormatUtc(kNow - 1000);
  StatusOr<aws::Credentials> expired = ParseSentCredentials(sent, kNow, "passed");
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(expired.status().message(),
              AllOf(HasSubstr("expired at " + sent.expiration), HasSubstr("send fresh ones"),
                    Not(HasSubstr(sent.access_key_id)), Not(HasSubstr(sent.secret_access_key))));
}

}  // namespace
}  // namespace deltacommit::service_wire
