#include "deltacommit/aws/errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/aws/sigv4.h"

namespace deltacommit::aws {
namespace {

HttpResponse Xml(long status, const std::string& code, const std::string& message = "") {
  HttpResponse r;
  r.status = status;
  r.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" +
           message + "</Message><RequestId>tx0001</RequestId></Error>";
  return r;
}

AwsErrorContext Context() {
  return {"S3", "PutObject", "s3://bucket/t/_delta_log/00000000000000000001.json",
          "http://127.0.0.1:7480", "environment (AWS_ACCESS_KEY_ID)", "AKID…MPLE"};
}

TEST(AwsErrorsTest, ParsesRgwXmlWithEmptyMessage) {
  AwsError e = ParseXmlError(Xml(412, "PreconditionFailed"));
  EXPECT_EQ(e.code, "PreconditionFailed");
  EXPECT_EQ(e.message, "");
  EXPECT_EQ(e.request_id, "tx0001");
  EXPECT_EQ(ErrorToStatus(e, Context()).code(), StatusCode::kAlreadyExists);
}

TEST(AwsErrorsTest, ParsesTheQueryProtocolsErrorResponse) {
  HttpResponse r;
  r.status = 403;
  r.body =
      "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error>"
      "<Type>Sender</Type><Code>InvalidClientTokenId</Code><Message>The security token "
      "included in the request is invalid.</Message></Error><RequestId>req-7</RequestId>"
      "</ErrorResponse>";
  AwsError e = ParseXmlError(r);
  EXPECT_EQ(e.code, "InvalidClientTokenId");
  EXPECT_EQ(e.message, "The security token included in the request is invalid.");
  EXPECT_EQ(e.request_id, "req-7");
  Status s = ErrorToStatus(e, Context());
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_NE(s.message().find("not known to this endpoint"), std::string::npos) << s.message();
}

// A store that does not recognise credentials with a session token says
// nothing of the token (RGW: InvalidAccessKeyId); the message does.
TEST(AwsErrorsTest, RefusedTemporaryCredentialsNameTheTokenItsSourceAndTheSts) {
  Credentials c;
  c.access_key_id = "ASIAEXAMPLEKEY000001";
  c.secret_access_key = "secret-of-the-session";
  c.session_token = "token-of-the-session";
  c.expiration_ms = 1'800'000'000'000;
  c.source = "STS GetSessionToken at http://sts.example:7480";
  AwsErrorContext context = Context();
  context.credentials = &c;
  for (const char* code : {"InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
                           "SignatureDoesNotMatch", "InvalidClientTokenId"}) {
    const std::string m = ErrorToStatus(ParseXmlError(Xml(403, code)), context).message();
    EXPECT_THAT(m, ::testing::HasSubstr("temporary credentials (a session token) from STS "
                                        "GetSessionToken at http://sts.example:7480, valid "
                                        "until 2027-01-15T08:00:00Z"));
    EXPECT_THAT(m, ::testing::HasSubstr("invalid, expired or revoked, or issued by another "
                                        "endpoint's STS"));
    EXPECT_THAT(m, ::testing::HasSubstr("from the STS that serves http://127.0.0.1:7480"));
    EXPECT_THAT(m, ::testing::Not(::testing::HasSubstr(c.session_token)));
  }
  // Long-term keys, or another refusal, get no such advice.
  EXPECT_THAT(ErrorToStatus(ParseXmlError(Xml(403, "AccessDenied")), context).message(),
              ::testing::Not(::testing::HasSubstr("session token")));
  Credentials long_term = c;
  long_term.session_token.clear();
  context.credentials = &long_term;
  EXPECT_THAT(ErrorToStatus(ParseXmlError(Xml(403, "InvalidAccessKeyId")), context).message(),
              ::testing::Not(::testing::HasSubstr("session token")));
}

TEST(AwsErrorsTest, BodylessHeadReplyGetsCodeFromStatus) {
  HttpResponse r;
  r.status = 404;
  r.headers = {{"x-amz-request-id", "tx0002"}};
  AwsError e = ParseXmlError(r);
  EXPECT_EQ(e.code, "NotFound");
  EXPECT_EQ(e.request_id, "tx0002");
  EXPECT_EQ(ErrorToStatus(e, Context()).code(), StatusCode::kNotFound);
}

TEST(AwsErrorsTest, CredentialErrorsNameSourceAndWhatToDo) {
  struct Case {
    std::string code;
    long http;
    StatusCode status;
    std::string needle;
  } cases[] = {
      {"InvalidAccessKeyId", 403, StatusCode::kUnauthenticated, "not known to this endpoint"},
      {"SignatureDoesNotMatch", 403, StatusCode::kUnauthenticated, "secret access key does not match"},
      {"ExpiredToken", 400, StatusCode::kUnauthenticated, "session token has expired"},
      {"InvalidToken", 400, StatusCode::kUnauthenticated, "security token included in the request is invalid"},
      {"RequestTimeTooSkewed", 403, StatusCode::kUnauthenticated, "clock"},
      {"AccessDenied", 403, StatusCode::kPermissionDenied, "grant these credentials"},
  };
  for (const Case& c : cases) {
    Status s = ErrorToStatus(ParseXmlError(Xml(c.http, c.code)), Context());
    EXPECT_EQ(s.code(), c.status) << c.code;
    EXPECT_NE(s.message().find(c.needle), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("environment (AWS_ACCESS_KEY_ID)"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("PutObject s3://bucket/t/_delta_log"), std::string::npos);
    EXPECT_NE(s.message().find("request id tx0001"), std::string::npos);
  }
}

TEST(AwsErrorsTest, NotFoundDoesNotMentionCredentials) {
  Status s = ErrorToStatus(ParseXmlError(Xml(404, "NoSuchBucket")), Context());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message().find("credentials:"), std::string::npos);
  EXPECT_NE(s.message().find("bucket does not exist"), std::string::npos);
}

TEST(AwsErrorsTest, ThrottlingAndServerErrorsAreRetryable) {
  EXPECT_TRUE(IsRetryableError(ParseXmlError(Xml(503, "SlowDown"))));
  EXPECT_TRUE(IsRetryableError(ParseXmlError(Xml(500, "InternalError"))));
  EXPECT_TRUE(IsRetryableError(ParseXmlError(Xml(409, "ConditionalRequestConflict"))));
  EXPECT_TRUE(IsRetryableError(ParseXmlError(Xml(502, "BadGateway"))));
  EXPECT_FALSE(IsRetryableError(ParseXmlError(Xml(403, "AccessDenied"))));
  EXPECT_FALSE(IsRetryableError(ParseXmlError(Xml(412, "PreconditionFailed"))));
}

TEST(AwsErrorsTest, ParsesDynamoDbJsonErrors) {
  HttpResponse r;
  r.status = 400;
  r.body = R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"})";
  r.headers = {{"x-amzn-requestid", "rq1"}};
  AwsError e = ParseJsonError(r);
  EXPECT_EQ(e.code, "ConditionalCheckFailedException");
  EXPECT_EQ(e.message, "The conditional request failed");
  EXPECT_EQ(e.request_id, "rq1");
  EXPECT_EQ(ErrorToStatus(e, Context()).code(), StatusCode::kAlreadyExists);
  r.body = R"({"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"})";
  EXPECT_TRUE(IsRetryableError(ParseJsonError(r)));
}

TEST(AwsErrorsTest, GarbageBodiesNeverCrash) {
  HttpResponse r;
  r.status = 500;
  for (std::string body : {"", "<", "<Error>", "{", "null", "[1,2]", "<Error><Code></Code></Error>"}) {
    r.body = body;
    EXPECT_FALSE(ParseXmlError(r).code.empty());
    EXPECT_FALSE(ParseJsonError(r).code.empty());
  }
}

// Found by tests/fuzz/dynamodb_json_fuzz.cc: json::value() threw on these.
TEST(AwsErrorsTest, JsonErrorMembersOfAnotherTypeAreIgnored) {
  HttpResponse r;
  r.status = 400;
  r.body = R"({"__type":1,"message":{"text":"x"}})";
  AwsError e = ParseJsonError(r);
  EXPECT_EQ(e.code, "BadRequest");
  EXPECT_EQ(e.message, "");
  r.body = R"({"__type":"x#ThrottlingException","Message":[1]})";
  e = ParseJsonError(r);
  EXPECT_EQ(e.code, "ThrottlingException");
  EXPECT_EQ(e.message, "");
}

constexpr char kKeyId[] = "ASIAECHOEDKEYID12345";
constexpr char kSecret[] = "echoedSECRET/echoed+SECRETechoedSECRET00";
constexpr char kToken[] = "IQoJb3JpZ2luX2VjEEchoed/Session+Token==";

Credentials Echoed() { return {kKeyId, kSecret, kToken, std::nullopt, "request"}; }

TEST(RedactCredentialsTest, ReplacesEachValueAndKeepsTheRest) {
  const std::string text = std::string("key ") + kKeyId + ", secret " + kSecret + ", token " +
                           kToken + "; again " + kToken + ".";
  EXPECT_EQ(RedactCredentials(text, Echoed()),
            "key ASIA\u20262345, secret [redacted secret access key], token [redacted session "
            "token]; again [redacted session token].");
  EXPECT_EQ(RedactCredentials("nothing to see", Echoed()), "nothing to see");
  EXPECT_EQ(RedactCredentials("", Echoed()), "");
}

TEST(RedactCredentialsTest, ReplacesPercentEncodedValues) {
  for (bool encode_slash : {true, false}) {
    const std::string text = "GET /?X-Amz-Security-Token=" + UriEncode(kToken, encode_slash) +
                             "&X-Amz-Credential=" + UriEncode(std::string(kKeyId) + "/20260101",
                                                              encode_slash);
    const std::string out = RedactCredentials(text, Echoed());
    EXPECT_THAT(out, ::testing::HasSubstr("Token=[redacted session token]&")) << out;
    EXPECT_THAT(out, ::testing::HasSubstr("Credential=ASIA\u20262345")) << out;
  }
}

TEST(RedactCredentialsTest, AValueInsideAnotherGoesWhole) {
  Credentials c = Echoed();
  c.session_token = std::string("token-around-") + kKeyId + "-the-key";
  EXPECT_EQ(RedactCredentials("<" + c.session_token + "> <" + kKeyId + ">", c),
            "<[redacted session token]> <ASIA\u20262345>");
}

TEST(RedactCredentialsTest, EmptyValuesAreSkippedAndShortKeyIdsHidden) {
  Credentials c{"AKIDSHORT", "", "", std::nullopt, "explicit options"};
  EXPECT_EQ(RedactCredentials("key AKIDSHORT here", c), "key \u2026 here");
}

TEST(AwsErrorsTest, ServerTextQuotingTheCredentialsIsRedacted) {
  const Credentials c = Echoed();
  AwsErrorContext context = Context();
  context.credentials = &c;
  const std::string echo = std::string("key ") + kKeyId + " token " + kToken + " secret " + kSecret;
  HttpResponse xml = Xml(403, "AccessDenied", echo);
  xml.body.replace(xml.body.find("tx0001"), 6, kToken);  // in the request id too
  HttpResponse json;
  json.status = 400;
  json.body = R"({"__type":"x#UnrecognizedClientException","message":")" + echo + "\"}";
  for (const AwsError& error : {ParseXmlError(xml), ParseJsonError(json)}) {
    const std::string message = ErrorToStatus(error, context).message();
    EXPECT_THAT(message, ::testing::HasSubstr(
                             "server says: key ASIA\u20262345 token [redacted session token] "
                             "secret [redacted secret access key]"));
    for (const char* value : {kKeyId, kSecret, kToken}) {
      EXPECT_THAT(message, ::testing::Not(::testing::HasSubstr(value))) << message;
    }
  }
  // Without the credentials nothing is known to remove: the text is quoted.
  EXPECT_THAT(ErrorToStatus(ParseXmlError(xml), Context()).message(),
              ::testing::HasSubstr(kToken));
}

}  // namespace
}  // namespace deltacommit::aws
