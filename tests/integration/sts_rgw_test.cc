// StsClient against Ceph RGW's STS (GetSessionToken on the S3 endpoint, as
// scripts/test-servers configures it): the sessions it returns work for S3,
// RGW refuses a tampered session token, and a user without the STS policy
// gets AccessDenied with what to do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/test_servers.h"
#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/sts_client.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "deltacommit/s3/s3_object_store.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

class StsRgwTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_STS();
    auto service = aws::ResolveServiceConfig("sts", {});
    ASSERT_TRUE(service.ok()) << service.status().ToString();
    sts_ = std::make_unique<aws::StsClient>(aws::StsClientConfig{*service, {}}, *http_);
    auto long_term = aws::DefaultCredentialsChain({})->GetCredentials();
    ASSERT_TRUE(long_term.ok()) << long_term.status().ToString();
    long_term_ = *long_term;
    ASSERT_TRUE(long_term_.session_token.empty()) << "the test user's keys are long-term";
  }

  // An object store on the test bucket under a fresh prefix, signing with
  // `credentials` only.
  struct Store {
    std::unique_ptr<aws::CredentialsProvider> credentials;
    std::unique_ptr<S3ObjectStore> store;
  };
  Store StoreWith(const aws::Credentials& credentials, const std::string& prefix) {
    S3StoreConfig config;
    config.bucket = Env("DELTACOMMIT_TEST_BUCKET");
    config.key_prefix = prefix;
    config.service = *aws::ResolveServiceConfig("s3", {});
    Store s;
    s.credentials = aws::StaticCredentialsProvider(credentials);
    s.store = std::make_unique<S3ObjectStore>(config, *http_, *s.credentials);
    return s;
  }

  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
  std::unique_ptr<aws::StsClient> sts_;
  aws::Credentials long_term_;
  const std::string prefix_ = "tests/sts-" + NewUuid();
};

TEST_F(StsRgwTest, GetSessionTokenGivesTemporaryCredentialsThatWorkForS3) {
  const int64_t before = SystemClock().NowMillis();
  StatusOr<aws::Credentials> session = sts_->GetSessionToken(long_term_, 900);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_NE(session->access_key_id, long_term_.access_key_id);
  EXPECT_NE(session->secret_access_key, long_term_.secret_access_key);
  EXPECT_FALSE(session->session_token.empty());
  ASSERT_TRUE(session->expiration_ms.has_value());
  // 900 s from now, give or take clock skew and the round trip.
  EXPECT_GT(*session->expiration_ms, before + 880'000);
  EXPECT_LT(*session->expiration_ms, SystemClock().NowMillis() + 920'000);

  Store s = StoreWith(*session, prefix_);
  const std::string key = CommitPath(0);
  ASSERT_TRUE(s.store->Put(key, "{\"commitInfo\":{}}\n").ok());
  StatusOr<std::string> read = s.store->Get(key);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, "{\"commitInfo\":{}}\n");
}

TEST_F(StsRgwTest, RgwRefusesATamperedSessionTokenAndTheErrorNamesItsCode) {
  StatusOr<aws::Credentials> session = sts_->GetSessionToken(long_term_, 900);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  aws::Credentials tampered = *session;
  char& c = tampered.session_token[tampered.session_token.size() / 2];
  c = c == 'A' ? 'B' : 'A';
  Store s = StoreWith(tampered, prefix_);
  Status put = s.store->Put(CommitPath(0), "{}\n");
  // RGW (long-term keys checked first, scripts/test-servers) finds no such
  // key and cannot decrypt the token: InvalidAccessKeyId. (With STS first
  // it answers 400 InvalidArgument; AWS answers InvalidToken.)
  EXPECT_EQ(put.code(), StatusCode::kUnauthenticated) << put.ToString();
  EXPECT_THAT(put.message(), HasSubstr("InvalidAccessKeyId (HTTP 403)"));
  EXPECT_THAT(put.message(), HasSubstr("PutObject"));
  // RGW's "not known" hides the cause; the message says the token is the
  // likely one, where it came from and which endpoint's STS to ask.
  EXPECT_THAT(put.message(), HasSubstr("the request carried temporary credentials (a session "
                                       "token) from STS GetSessionToken at "));
  EXPECT_THAT(put.message(), HasSubstr("issued by another endpoint's STS"));
  EXPECT_THAT(put.message(), HasSubstr("from the STS that serves " +
                                       s.store->config().service.endpoint_url));
  EXPECT_THAT(put.message(), Not(HasSubstr(tampered.session_token)));
  EXPECT_THAT(put.message(), Not(HasSubstr(tampered.secret_access_key)));

  // Another session's valid token with this session's key and secret.
  StatusOr<aws::Credentials> other = sts_->GetSessionToken(long_term_, 900);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  aws::Credentials mixed = *session;
  mixed.session_token = other->session_token;
  Status mixed_put = StoreWith(mixed, prefix_).store->Put(CommitPath(0), "{}\n");
  EXPECT_EQ(mixed_put.code(), StatusCode::kUnauthenticated) << mixed_put.ToString();
  EXPECT_THAT(mixed_put.message(), HasSubstr("InvalidAccessKeyId (HTTP 403)"));
  // Neither wrote anything.
  EXPECT_TRUE(StoreWith(*session, prefix_).store->Head(CommitPath(0)).status().IsNotFound());
}

TEST_F(StsRgwTest, AUserWithoutTheStsPolicyIsToldWhatToDo) {
  const std::string key = Env("DELTACOMMIT_TEST_NOSTS_ACCESS_KEY_ID");
  const std::string secret = Env("DELTACOMMIT_TEST_NOSTS_SECRET_ACCESS_KEY");
  if (key.empty() || secret.empty()) {
    DC_REQUIRE_SERVER(std::optional<std::string>(
        "DELTACOMMIT_TEST_NOSTS_ACCESS_KEY_ID/SECRET_ACCESS_KEY not set: restart the servers "
        "with the current scripts/test-servers"));
  }
  aws::Credentials no_sts{key, secret, "", std::nullopt, "the test user without STS"};
  Status s = sts_->GetSessionToken(no_sts, 900).status();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  for (const char* part : {"STS GetSessionToken", "AccessDenied (HTTP 403)",
                           "commit service needs temporary credentials",
                           "may not call sts:GetSessionToken", "the test user without STS",
                           "AWS_SESSION_TOKEN with AWS_CREDENTIAL_EXPIRATION"}) {
    EXPECT_THAT(s.message(), HasSubstr(part));
  }
  EXPECT_THAT(s.message(), HasSubstr(Env("AWS_ENDPOINT_URL_STS")));
  EXPECT_THAT(s.message(), Not(HasSubstr(secret)));
  EXPECT_THAT(s.message(), Not(HasSubstr(key)));  // only the redacted id
}

}  // namespace
}  // namespace deltacommit
