// StsCredentialVendor's logic over a scripted STS; tests/integration/
// serve_unity_credentials_test.cc runs it against Ceph RGW's STS.
#include "service/vend/sts_credential_vendor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/testing/scripted_http_client.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

constexpr char kServiceSecret[] = "SERVICEsecretSERVICEsecretSERVICEsecret1";
constexpr char kConfig[] = R"(
[s3]
endpoint = "http://127.0.0.1:7480"
allow_http = true
vend_credentials = "assume_role"
vend_role_arn = "arn:aws:iam:::role/vend"
vend_sts_endpoint = "http://127.0.0.1:7480"
vend_duration_seconds = 3600
[[s3.bucket]]
name = "plain"
vend_credentials = "none"
)";

std::string FormDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The value of `key` in a sent form body.
std::string FormValue(const std::string& body, const std::string& key) {
  const size_t at = body.find(key + "=");
  if (at == std::string::npos) return "<absent>";
  const size_t start = at + key.size() + 1;
  return FormDecode(body.substr(start, body.find('&', start) - start));
}

class StsCredentialVendorTest : public ::testing::Test {
 protected:
  StsCredentialVendorTest() {
    StatusOr<ServiceConfig> config = ParseServiceConfig(kConfig, "test.toml");
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    s3_ = config->s3;
  }

  aws::HttpResponse Session(int64_t lifetime_ms, const std::string& key = "ASIAVENDED") {
    aws::HttpResponse r;
    r.status = 200;
    r.body = "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>" + key +
             "</AccessKeyId><SecretAccessKey>vendedSECRET</SecretAccessKey><SessionToken>tok"
             "</SessionToken><Expiration>" +
             aws::internal::FormatUtc(clock_.NowMillis() + lifetime_ms) +
             "</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>";
    return r;
  }

  StatusOr<VendedCredentials> Vend(const std::string& uri, VendOperation op,
                                   const std::string& principal = "etl") {
    StatusOr<TableUri> location = NormalizeTableUri(uri);
    EXPECT_TRUE(location.ok());
    return vendor_.Vend({*location, op, principal, {}});
  }

  S3Config s3_;
  aws::testing::ScriptedHttpClient http_;
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  std::unique_ptr<aws::CredentialsProvider> service_credentials_ = aws::StaticCredentialsProvider(
      {"AKIASERVICEKEY000001", kServiceSecret, "", std::nullopt, "service config"}, clock_);
  StsCredentialVendor vendor_{
      s3_,
      http_,
      *service_credentials_,
      clock_,
      sleeper_,
      aws::RetryPolicy{2, std::chrono::milliseconds(1), std::chrono::milliseconds(2)}};
};

TEST_F(StsCredentialVendorTest, AssumesTheRoleWithAPolicyForTheLocation) {
  http_.Script({Session(3'600'000)});
  StatusOr<VendedCredentials> got = Vend("s3://lake/sales/orders", VendOperation::kReadWrite);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->credentials.access_key_id, "ASIAVENDED");
  EXPECT_EQ(got->credentials.session_token, "tok");
  EXPECT_EQ(got->url, "s3://lake/sales/orders");
  EXPECT_EQ(got->credentials.expiration_ms, clock_.NowMillis() / 1000 * 1000 + 3'600'000);
  EXPECT_THAT(got->credentials.source,
              HasSubstr("vended by this service for READ_WRITE on s3://lake/sales/orders"));
  ASSERT_EQ(http_.sent().size(), 1u);
  const aws::HttpRequest& sent = http_.sent()[0];
  EXPECT_EQ(sent.url, "http://127.0.0.1:7480/");
  EXPECT_EQ(FormValue(sent.body, "Action"), "AssumeRole");
  EXPECT_EQ(FormValue(sent.body, "RoleArn"), "arn:aws:iam:::role/vend");
  EXPECT_EQ(FormValue(sent.body, "DurationSeconds"), "3600");
  EXPECT_THAT(FormValue(sent.body, "RoleSessionName"), MatchesRegex("dc-etl-[0-9a-f]{8}"));
  nlohmann::json policy = nlohmann::json::parse(FormValue(sent.body, "Policy"));
  EXPECT_EQ(policy["Statement"][0]["Resource"][1], "arn:aws:s3:::lake/sales/orders/*");
  EXPECT_THAT(aws::testing::HeaderOf(sent, "Authorization"),
              HasSubstr("Credential=AKIASERVICEKEY000001/"));
}

TEST_F(StsCredentialVendorTest, KeepsASessionWhileMoreThanHalfOfItIsLeft) {
  http_.Script({Session(3'600'000, "ASIAFIRST"), Session(3'600'000, "ASIASECOND")});
  EXPECT_EQ(Vend("s3://lake/t", VendOperation::kRead)->credentials.access_key_id, "ASIAFIRST");
  clock_.Advance(std::chrono::minutes(29));
  EXPECT_EQ(Vend("s3://lake/t", VendOperation::kRead)->credentials.access_key_id, "ASIAFIRST");
  EXPECT_EQ(http_.sent().size(), 1u);
  // Another operation, location or principal is another session.
  EXPECT_EQ(Vend("s3://lake/t", VendOperation::kReadWrite)->credentials.access_key_id,
            "ASIASECOND");
  EXPECT_EQ(Vend("s3://lake/u", VendOperation::kRead)->credentials.access_key_id, "ASIASECOND");
  EXPECT_EQ(Vend("s3://lake/t", VendOperation::kRead, "bi")->credentials.access_key_id,
            "ASIASECOND");
  EXPECT_EQ(http_.sent().size(), 4u);
  clock_.Advance(std::chrono::minutes(2));  // 31 minutes old: less than half left
  EXPECT_EQ(Vend("s3://lake/t", VendOperation::kRead)->credentials.access_key_id, "ASIASECOND");
  EXPECT_EQ(http_.sent().size(), 5u);
}

TEST_F(StsCredentialVendorTest, RefusesWhatItMayNotVendBeforeAskingSts) {
  Status s = Vend("s3://plain/t", VendOperation::kRead).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("READ credentials for s3://plain/t"),
                                 HasSubstr("vends no credentials for bucket plain"),
                                 HasSubstr("vend_credentials = \"assume_role\"")));
  s = Vend("s3://lake", VendOperation::kRead).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("never vended"));
  s = Vend("file:///srv/t", VendOperation::kRead).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("only s3:// locations"));
  EXPECT_TRUE(http_.sent().empty());
}

TEST_F(StsCredentialVendorTest, StsRefusalsNameTheLocationAndNoSecret) {
  aws::HttpResponse denied{403,
                           {},
                           "<ErrorResponse><Error><Code>AccessDenied</Code></Error>"
                           "<RequestId>r-1</RequestId></ErrorResponse>"};
  http_.Script({denied});
  Status s = Vend("s3://lake/t", VendOperation::kRead).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("READ credentials for s3://lake/t"), HasSubstr("STS AssumeRole"),
                    HasSubstr("trust policy"), Not(HasSubstr(kServiceSecret))));
}

TEST_F(StsCredentialVendorTest, NamesTheServicesOwnCredentialsWhenItHasNone) {
  auto expired = aws::StaticCredentialsProvider(
      {"ASIAEXPIRED000000001", kServiceSecret, "tok", clock_.NowMillis() - 1, "environment"},
      clock_);
  StsCredentialVendor vendor(s3_, http_, *expired, clock_, sleeper_);
  Status s =
      vendor.Vend({*NormalizeTableUri("s3://lake/t"), VendOperation::kRead, "etl", {}}).status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("the service's own AWS credentials"));
  EXPECT_TRUE(http_.sent().empty());
}

TEST_F(StsCredentialVendorTest, APrefixTooLongForASessionPolicyIsTheClientsError) {
  Status s = Vend("s3://lake/" + std::string(500, 'p'), VendOperation::kRead).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("too long to scope a session policy to"));
  EXPECT_TRUE(http_.sent().empty());
}

TEST_F(StsCredentialVendorTest, AFullCacheDropsTheSessionClosestToExpiryNotAll) {
  http_.Script({Session(3'600'000)});
  for (size_t i = 0; i <= StsCredentialVendor::kMaxKeptSessions; ++i) {
    ASSERT_TRUE(Vend("s3://lake/t" + std::to_string(i), VendOperation::kRead).ok());
  }
  const size_t sent = http_.sent().size();
  // The newest and one from the middle are still kept.
  EXPECT_TRUE(Vend("s3://lake/t" + std::to_string(StsCredentialVendor::kMaxKeptSessions),
                   VendOperation::kRead)
                  .ok());
  EXPECT_EQ(http_.sent().size(), sent);
  EXPECT_TRUE(Vend("s3://lake/t2000", VendOperation::kRead).ok());
  EXPECT_EQ(http_.sent().size(), sent);
}

TEST(RoleSessionNameTest, IsWhatStsTakes) {
  EXPECT_THAT(RoleSessionName("etl job/1"), MatchesRegex("dc-etl_job_1-[0-9a-f]{8}"));
  EXPECT_EQ(RoleSessionName(std::string(100, 'x')).size(), 3u + 40u + 9u);
  EXPECT_NE(RoleSessionName("a"), RoleSessionName("a"));
}

}  // namespace
}  // namespace deltacommit::service
