#include "deltacommit/aws/sts_client.h"

#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/testing/scripted_http_client.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::HeaderOf;
using testing::ScriptedHttpClient;

constexpr char kSessionSecret[] = "sessionSECRETsessionSECRETsessionSECRET1";
constexpr char kSessionToken[] = "FwoGZXIvYXdzEBYaDSESSIONTOKENvalue+/==";
constexpr char kLongTermSecret[] = "LONGtermSECRETlongTERMsecretLONGterm0000";

std::string Reply(const std::string& credentials, bool with_namespace = false) {
  return std::string("<GetSessionTokenResponse") +
         (with_namespace ? " xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"" : "") +
         "><GetSessionTokenResult><Credentials>" + credentials +
         "</Credentials></GetSessionTokenResult><ResponseMetadata><RequestId>req-1</RequestId>"
         "</ResponseMetadata></GetSessionTokenResponse>";
}

std::string AllFields(const std::string& expiration = "2026-11-30T02:06:37.985813739Z") {
  return std::string("<AccessKeyId>ASIATEMPKEY123456789</AccessKeyId><Expiration>") +
         expiration + "</Expiration><SecretAccessKey>" + kSessionSecret +
         "</SecretAccessKey><SessionToken>" + kSessionToken + "</SessionToken>";
}

HttpResponse Response(long status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse ErrorReply(long status, const std::string& code) {
  return Response(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
                              "</Code><Message></Message><RequestId>tx-9</RequestId></Error>");
}

Credentials LongTerm() {
  return {"AKIALONGTERMKEY12345", kLongTermSecret, "", std::nullopt,
          "environment (AWS_ACCESS_KEY_ID)"};
}

// Neither the long-term nor the session's secrets, in any message.
void ExpectNoSecret(const std::string& text) {
  for (const char* secret : {kSessionSecret, kSessionToken, kLongTermSecret}) {
    EXPECT_THAT(text, Not(HasSubstr(secret)));
  }
}

TEST(ParseStsCredentialsTest, ReadsRgwsAndAwssReplies) {
  for (bool ns : {false, true}) {
    StatusOr<Credentials> c = ParseStsCredentials(Reply(AllFields(), ns), "GetSessionToken", "sts");
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->access_key_id, "ASIATEMPKEY123456789");
    EXPECT_EQ(c->secret_access_key, kSessionSecret);
    EXPECT_EQ(c->session_token, kSessionToken);
    EXPECT_EQ(c->expiration_ms, internal::ParseIso8601("2026-11-30T02:06:37.985Z"));
    EXPECT_EQ(c->source, "sts");
  }
}

TEST(ParseStsCredentialsTest, MalformedRepliesNameWhatIsMissingAndNoSecret) {
  struct Case {
    std::string body;
    std::string says;
  } cases[] = {
      {"not xml <<<", "not XML"},
      {"", "not XML"},
      {"<Other/>", "no GetSessionTokenResponse/GetSessionTokenResult/Credentials"},
      {Reply("<AccessKeyId>A</AccessKeyId>"), "has no SecretAccessKey"},
      {Reply(std::string("<AccessKeyId>A</AccessKeyId><SecretAccessKey>") + kSessionSecret +
             "</SecretAccessKey><Expiration>2026-11-30T02:06:37Z</Expiration>"),
       "has no SessionToken"},
      {Reply(std::string("<AccessKeyId>A</AccessKeyId><SecretAccessKey>") + kSessionSecret +
             "</SecretAccessKey><SessionToken>" + kSessionToken + "</SessionToken>"),
       "has no Expiration"},
      {Reply(AllFields("tomorrow")), "Expiration \"tomorrow\" is not an ISO 8601 time"},
  };
  for (const Case& c : cases) {
    StatusOr<Credentials> got = ParseStsCredentials(c.body, "GetSessionToken", "sts");
    ASSERT_FALSE(got.ok()) << c.body;
    EXPECT_EQ(got.status().code(), StatusCode::kInternal);
    EXPECT_THAT(got.status().message(), HasSubstr(c.says));
    ExpectNoSecret(got.status().message());
  }
}

class StsClientTest : public ::testing::Test {
 protected:
  StsClient Client() {
    AwsServiceConfig service;
    service.region = "eu-west-1";
    service.endpoint_url = "https://sts.eu-west-1.amazonaws.com";
    return StsClient({service, {3, std::chrono::milliseconds(10), std::chrono::milliseconds(20)}},
                     http_, clock_, sleeper_);
  }

  ScriptedHttpClient http_;
  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
};

TEST_F(StsClientTest, SendsASignedQueryApiPost) {
  http_.Script({Response(200, Reply(AllFields()))});
  StatusOr<Credentials> got = Client().GetSessionToken(LongTerm(), 1800);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->session_token, kSessionToken);
  EXPECT_THAT(got->source, HasSubstr("STS GetSessionToken at https://sts.eu-west-1.amazonaws.com"));
  EXPECT_THAT(got->source, HasSubstr("AKIA\u20262345 from environment (AWS_ACCESS_KEY_ID)"));
  ASSERT_EQ(http_.sent().size(), 1u);
  const HttpRequest& sent = http_.sent()[0];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "https://sts.eu-west-1.amazonaws.com/");
  EXPECT_EQ(sent.body, "Action=GetSessionToken&Version=2011-06-15&DurationSeconds=1800");
  EXPECT_THAT(HeaderOf(sent, "Content-Type"), HasSubstr("application/x-www-form-urlencoded"));
  EXPECT_THAT(HeaderOf(sent, "Authorization"),
              HasSubstr("Credential=AKIALONGTERMKEY12345/20231114/eu-west-1/sts/aws4_request"));
  EXPECT_EQ(HeaderOf(sent, "x-amz-security-token"), "<absent>");
}

TEST_F(StsClientTest, RetriesThrottlingAndServerErrors) {
  http_.Script({ErrorReply(503, "ServiceUnavailable"), Response(500, ""),
                Response(200, Reply(AllFields()))});
  StatusOr<Credentials> got = Client().GetSessionToken(LongTerm(), 900);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(http_.sent().size(), 3u);
  EXPECT_EQ(sleeper_.sleeps().size(), 2u);
}

TEST_F(StsClientTest, AccessDeniedSaysTheServiceNeedsTemporaryCredentialsAndWhatToDo) {
  http_.Script({ErrorReply(403, "AccessDenied")});
  Status s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  for (const char* part :
       {"STS GetSessionToken", "AccessDenied (HTTP 403)", "https://sts.eu-west-1.amazonaws.com",
        "request id tx-9", "key AKIA\u20262345 from environment (AWS_ACCESS_KEY_ID)",
        "commit service needs temporary credentials", "may not call sts:GetSessionToken",
        "grant them sts:GetSessionToken", "role or SSO profile", "credential_process",
        "AWS_SESSION_TOKEN with AWS_CREDENTIAL_EXPIRATION"}) {
    EXPECT_THAT(s.message(), HasSubstr(part));
  }
  ExpectNoSecret(s.message());
  EXPECT_EQ(http_.sent().size(), 1u);  // a refusal is not retried
}

TEST_F(StsClientTest, AnUnknownKeyOrBadSignatureIsUnauthenticated) {
  for (const char* code : {"InvalidClientTokenId", "SignatureDoesNotMatch"}) {
    http_.Script({ErrorReply(403, code)});
    Status s = Client().GetSessionToken(LongTerm(), 3600).status();
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated) << code;
    EXPECT_THAT(s.message(), HasSubstr(code));
    ExpectNoSecret(s.message());
  }
}

TEST_F(StsClientTest, PersistentFailuresAreUnavailableAfterAllAttempts) {
  http_.Script({ErrorReply(503, "ServiceUnavailable")});
  Status s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("still failing after all attempts"));
  EXPECT_EQ(http_.sent().size(), 3u);
  http_.Script({UnknownOutcomeError("connection lost after sending")});
  s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("STS GetSessionToken at https://sts.eu-west-1"));
}

TEST_F(StsClientTest, AMalformedSuccessNamesTheEndpointAndNoSecret) {
  http_.Script({Response(200, Reply("<AccessKeyId>A</AccessKeyId>"))});
  Status s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("STS GetSessionToken at https://sts.eu-west-1"));
  EXPECT_THAT(s.message(), HasSubstr("has no SecretAccessKey"));
}

// A store may quote what it was sent, or what it knows, in its error text.
TEST_F(StsClientTest, AnErrorQuotingTheLongTermKeysIsRedacted) {
  http_.Script({Response(403, std::string("<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code>"
                                          "<Message>key AKIALONGTERMKEY12345, secret ") +
                                  kLongTermSecret +
                                  "</Message></Error><RequestId>r-1</RequestId></ErrorResponse>")});
  Status s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(s.message(),
              HasSubstr("server says: key AKIA\u20262345, secret [redacted secret access key]"));
  EXPECT_THAT(s.message(), Not(HasSubstr("AKIALONGTERMKEY12345")));
  ExpectNoSecret(s.message());
  http_.Script({Response(200, Reply(AllFields(kLongTermSecret)))});  // quoted as Expiration
  s = Client().GetSessionToken(LongTerm(), 3600).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("Expiration \"[redacted secret access key]\""));
  ExpectNoSecret(s.message());
}

TEST_F(StsClientTest, ADurationOutsideStssBoundsIsRefusedBeforeSending) {
  for (int64_t seconds : {int64_t{0}, int64_t{899}, int64_t{129'601}}) {
    Status s = Client().GetSessionToken(LongTerm(), seconds).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("900 to 129600 seconds"));
  }
  EXPECT_TRUE(http_.sent().empty());
}

// ---- AssumeRole ----------------------------------------------------------------

std::string AssumeRoleReply() {
  return "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
         "<AssumeRoleResult><Credentials>" +
         AllFields() +
         "</Credentials><AssumedRoleUser><Arn>arn:aws:sts:::assumed-role/vend/s1</Arn>"
         "</AssumedRoleUser></AssumeRoleResult></AssumeRoleResponse>";
}

AssumeRoleRequest Role() {
  AssumeRoleRequest r;
  r.role_arn = "arn:aws:iam::123456789012:role/deltacommit-vend";
  r.session_name = "deltacommit-t1";
  r.policy = R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject",)"
             R"("Resource":"arn:aws:s3:::b/t/*"}]})";
  r.duration_seconds = 1200;
  return r;
}

TEST_F(StsClientTest, AssumeRoleSendsTheRoleSessionNameAndEncodedPolicy) {
  http_.Script({Response(200, AssumeRoleReply())});
  AssumeRoleRequest request = Role();
  request.external_id = "ext 1";
  StatusOr<Credentials> got = Client().AssumeRole(LongTerm(), request);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->access_key_id, "ASIATEMPKEY123456789");
  EXPECT_EQ(got->session_token, kSessionToken);
  EXPECT_TRUE(got->expiration_ms.has_value());
  EXPECT_THAT(got->source, HasSubstr("STS AssumeRole of arn:aws:iam::123456789012:role/"
                                     "deltacommit-vend at https://sts.eu-west-1.amazonaws.com"));
  ASSERT_EQ(http_.sent().size(), 1u);
  const std::string& body = http_.sent()[0].body;
  EXPECT_EQ(body,
            "Action=AssumeRole&Version=2011-06-15"
            "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fdeltacommit-vend"
            "&RoleSessionName=deltacommit-t1&DurationSeconds=1200"
            "&Policy=%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%5B%7B%22Effect%22"
            "%3A%22Allow%22%2C%22Action%22%3A%22s3%3AGetObject%22%2C%22Resource%22%3A%22arn%3Aaws"
            "%3As3%3A%3A%3Ab%2Ft%2F%2A%22%7D%5D%7D"
            "&ExternalId=ext%201");
  EXPECT_THAT(HeaderOf(http_.sent()[0], "Authorization"), HasSubstr("/eu-west-1/sts/aws4_request"));
}

TEST_F(StsClientTest, AssumeRoleWithoutPolicyOrExternalIdSendsNeither) {
  http_.Script({Response(200, AssumeRoleReply())});
  AssumeRoleRequest request = Role();
  request.policy.clear();
  ASSERT_TRUE(Client().AssumeRole(LongTerm(), request).ok());
  EXPECT_THAT(http_.sent()[0].body, Not(HasSubstr("Policy=")));
  EXPECT_THAT(http_.sent()[0].body, Not(HasSubstr("ExternalId=")));
}

TEST_F(StsClientTest, AssumeRoleRefusesABadRequestBeforeSending) {
  struct Case {
    void (*change)(AssumeRoleRequest&);
    const char* says;
  } cases[] = {
      {[](AssumeRoleRequest& r) { r.duration_seconds = 899; }, "900 to 43200 seconds"},
      {[](AssumeRoleRequest& r) { r.duration_seconds = 43'201; }, "900 to 43200 seconds"},
      {[](AssumeRoleRequest& r) { r.role_arn = "deltacommit-vend"; }, "is not an IAM role ARN"},
      {[](AssumeRoleRequest& r) { r.role_arn = "arn:aws:iam::1:user/x"; },
       "is not an IAM role ARN"},
      {[](AssumeRoleRequest& r) { r.role_arn = "arn:aws:iam:::role/"; }, "is not an IAM role ARN"},
      {[](AssumeRoleRequest& r) { r.session_name = "x"; }, "must be 2 to 64"},
      {[](AssumeRoleRequest& r) { r.session_name = "a b"; }, "must be 2 to 64"},
      {[](AssumeRoleRequest& r) { r.session_name = std::string(65, 'a'); }, "must be 2 to 64"},
      {[](AssumeRoleRequest& r) { r.policy = std::string(2049, ' '); }, "at most 2048"},
  };
  for (const Case& c : cases) {
    AssumeRoleRequest request = Role();
    c.change(request);
    Status s = Client().AssumeRole(LongTerm(), request).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.says;
    EXPECT_THAT(s.message(), HasSubstr(c.says));
  }
  EXPECT_TRUE(http_.sent().empty());
  AssumeRoleRequest rgw = Role();
  rgw.role_arn = "arn:aws:iam:::role/deltacommit-vend";  // RGW's: no account
  EXPECT_TRUE(CheckAssumeRoleRequest(rgw).ok());
}

TEST_F(StsClientTest, AssumeRoleDeniedSaysWhatTheTrustPolicyNeeds) {
  http_.Script({ErrorReply(403, "AccessDenied")});
  Status s = Client().AssumeRole(LongTerm(), Role()).status();
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  for (const char* part : {"STS AssumeRole", "(role arn:aws:iam::123456789012:role/deltacommit-vend)",
                           "AccessDenied (HTTP 403)", "trust policy must allow sts:AssumeRole",
                           "key AKIA\u20262345 from environment (AWS_ACCESS_KEY_ID)"}) {
    EXPECT_THAT(s.message(), HasSubstr(part));
  }
  EXPECT_THAT(s.message(), Not(HasSubstr("GetSessionToken")));
  ExpectNoSecret(s.message());
}

TEST_F(StsClientTest, AssumeRoleParsesItsOwnResponseOnly) {
  // A GetSessionToken-shaped reply to AssumeRole is not the credentials.
  http_.Script({Response(200, Reply(AllFields()))});
  Status s = Client().AssumeRole(LongTerm(), Role()).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("no AssumeRoleResponse/AssumeRoleResult/Credentials"));
  EXPECT_THAT(s.message(), HasSubstr("STS AssumeRole at https://sts.eu-west-1"));
}

// ---- ResolveStsConfig -----------------------------------------------------------

class ResolveStsConfigTest : public ::testing::Test {
 protected:
  StatusOr<AwsServiceConfig> Resolve() {
    return ResolveStsConfig(overrides_, s3_, AwsConfigSources{&env_, "/nonexistent-home"});
  }
  AwsServiceConfig S3(const std::string& url, const std::string& source) {
    AwsServiceConfig c;
    c.region = "eu-west-1";
    c.endpoint_url = url;
    c.endpoint_source = source;
    c.allow_http = true;
    return c;
  }

  std::map<std::string, std::string> env_{{"AWS_REGION", "eu-west-1"}};
  AwsConfigOverrides overrides_;
  AwsServiceConfig s3_ = S3("https://s3.eu-west-1.amazonaws.com", kAwsDefaultEndpointSource);
};

TEST_F(ResolveStsConfigTest, OnAwsItIsTheRegionsStsEndpoint) {
  StatusOr<AwsServiceConfig> c = Resolve();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint_url, "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(c->region, "eu-west-1");
  // An S3 endpoint overridden to an AWS host (a VPC endpoint) is no STS.
  s3_ = S3("https://bucket.vpce-1.s3.eu-west-1.vpce.amazonaws.com", "AWS_ENDPOINT_URL_S3");
  EXPECT_EQ(Resolve()->endpoint_url, "https://sts.eu-west-1.amazonaws.com");
}

TEST_F(ResolveStsConfigTest, AnS3CompatibleStoreServesStsOnItsS3Endpoint) {
  s3_ = S3("http://127.0.0.1:7480", "AWS_ENDPOINT_URL_S3");
  StatusOr<AwsServiceConfig> c = Resolve();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint_url, "http://127.0.0.1:7480");
  EXPECT_EQ(c->endpoint_source, "the table's S3 endpoint (from AWS_ENDPOINT_URL_S3)");
  EXPECT_TRUE(c->allow_http);
}

TEST_F(ResolveStsConfigTest, ItsOwnSettingsWin) {
  s3_ = S3("http://127.0.0.1:7480", "AWS_ENDPOINT_URL_S3");
  env_["AWS_ENDPOINT_URL_STS"] = "https://sts.example.com";
  EXPECT_EQ(Resolve()->endpoint_url, "https://sts.example.com");
  EXPECT_EQ(Resolve()->endpoint_source, "AWS_ENDPOINT_URL_STS");
  overrides_.endpoint_url = "https://sts-option.example.com/";
  EXPECT_EQ(Resolve()->endpoint_url, "https://sts-option.example.com");
  overrides_.endpoint_url = "ftp://nope";
  EXPECT_EQ(Resolve().status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace deltacommit::aws
