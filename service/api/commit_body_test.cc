// ParseCommitBody: the strict reading of POST /v1/commits bodies.
#include "service/api/commit_body.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";
constexpr char kToken[] = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN";

std::string Credentials(const std::string& extra = "") {
  return std::string(R"({"access_key_id":"ASIAEXAMPLEKEY123456","secret_access_key":")") +
         kSecret + R"(","session_token":")" + kToken +
         R"(","expiration":"2030-01-02T03:04:05Z")" + extra + "}";
}

std::string Body(const std::string& fields) {
  return R"({"table":"s3://bucket/t","version":7,)" + fields +
         R"(,"credentials":)" + Credentials() + "}";
}

std::string Refusal(const std::string& body) {
  StatusOr<CommitBody> parsed = ParseCommitBody(body);
  EXPECT_FALSE(parsed.ok()) << "accepted: " << body;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr(kSecret)));
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr(kToken)));
  return parsed.status().message();
}

TEST(ParseCommitBodyTest, ServiceModeBody) {
  StatusOr<CommitBody> body =
      ParseCommitBody(Body(R"("actions":"{\"commitInfo\":{}}\n","endpoint":"eu-minio")"));
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(body->table, "s3://bucket/t");
  EXPECT_EQ(body->version, 7);
  EXPECT_EQ(body->actions, "{\"commitInfo\":{}}\n");
  EXPECT_FALSE(body->staged_file.has_value());
  EXPECT_EQ(body->endpoint, "eu-minio");
  EXPECT_EQ(body->credentials.access_key_id, "ASIAEXAMPLEKEY123456");
  EXPECT_EQ(body->credentials.secret_access_key, kSecret);
  EXPECT_EQ(body->credentials.session_token, kToken);
  EXPECT_EQ(body->credentials.expiration_ms, 1'893'553'445'000);
  EXPECT_EQ(body->credentials.source, "request");
  EXPECT_FALSE(body->credentials_problem.has_value());
}

TEST(ParseCommitBodyTest, CoordinatedModeBody) {
  StatusOr<CommitBody> body = ParseCommitBody(Body(R"("staged_file":"_delta_log/x.json")"));
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(body->staged_file, "_delta_log/x.json");
  EXPECT_FALSE(body->actions.has_value());
  EXPECT_TRUE(body->endpoint.empty());
}

TEST(ParseCommitBodyTest, AppendBody) {
  StatusOr<CommitBody> body = ParseCommitBody(
      R"({"table":"s3://bucket/t","append":true,"read_version":4,"actions":"x\n","credentials":)" +
      Credentials() + "}");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_TRUE(body->append);
  EXPECT_EQ(body->read_version, 4);
  EXPECT_EQ(body->version, -1);
  EXPECT_EQ(body->actions, "x\n");
}

TEST(ParseCommitBodyTest, AppendsAreRefusedWhenTheirFieldsDoNotFit) {
  EXPECT_THAT(Refusal(Body(R"("append":true,"read_version":1,"actions":"")")),
              HasSubstr("has no field \"version\": the service assigns it"));
  EXPECT_THAT(Refusal(R"({"table":"s3://b/t","append":true,"actions":""})"),
              HasSubstr("missing field \"read_version\""));
  EXPECT_THAT(Refusal(R"({"table":"s3://b/t","append":true,"read_version":1,"staged_file":"s"})"),
              HasSubstr("in field \"actions\""));
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","append":"yes","read_version":1,"actions":""})"),
            "field \"append\" must be true or false, not a string");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","append":true,"read_version":-2,"actions":""})"),
            "field \"read_version\" is -2; versions start at 0");
  EXPECT_THAT(Refusal(Body(R"("read_version":1,"actions":"")")),
              HasSubstr("\"read_version\" is for an append"));
}

// Credentials missing or incomplete are the commit service's 422, not 400;
// an expiration that is no time is kept as a problem for the same answer.
TEST(ParseCommitBodyTest, CredentialProblemsAreLeftForThe422) {
  StatusOr<CommitBody> none = ParseCommitBody(R"({"table":"s3://b/t","version":0,"actions":""})");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->credentials.access_key_id.empty());
  StatusOr<CommitBody> no_expiry = ParseCommitBody(
      R"({"table":"s3://b/t","version":0,"actions":"","credentials":{"access_key_id":"A"}})");
  ASSERT_TRUE(no_expiry.ok());
  EXPECT_FALSE(no_expiry->credentials.expiration_ms.has_value());
  StatusOr<CommitBody> bad_time = ParseCommitBody(
      R"({"table":"s3://b/t","version":0,"actions":"","credentials":{"expiration":"tomorrow"}})");
  ASSERT_TRUE(bad_time.ok());
  EXPECT_EQ(bad_time->credentials_problem,
            "credentials.expiration \"tomorrow\" is not an RFC 3339 time such as "
            "2026-11-29T23:00:00Z");
}

TEST(ParseCommitBodyTest, MalformedJsonNamesOnlyThePosition) {
  std::string body = Body(R"("actions":"x")");
  body.pop_back();  // unterminated
  EXPECT_THAT(Refusal(body), HasSubstr("the body is not valid JSON (it ends early, after"));
  EXPECT_THAT(Refusal("{\"table\" 1}"), HasSubstr("(error at byte 10 of 11)"));
  // The text around the error (here the secret) is never quoted.
  std::string broken = R"({"credentials":{"secret_access_key":")" + std::string(kSecret) +
                       R"(" "session_token":")" + kToken + "\"}}";
  EXPECT_THAT(Refusal(broken), HasSubstr("not valid JSON"));
  EXPECT_EQ(Refusal(""),
            "the body is not valid JSON (it ends early, after 0 bytes); send one JSON object "
            "(Content-Type: application/json)");
  EXPECT_EQ(Refusal("[1]"), "the body must be a JSON object, not an array");
  EXPECT_THAT(Refusal("6e424242"), HasSubstr("the body holds a number out of range"));
  EXPECT_THAT(Refusal(Body(R"("version":1e999)")), HasSubstr("a number out of range"));
}

TEST(ParseCommitBodyTest, UnknownFieldsAreNamed) {
  EXPECT_EQ(Refusal(Body(R"("actions":"x","stagedFile":"y")")),
            "unknown field \"stagedFile\" (a commit takes: table, version, actions or "
            "staged_file, credentials, endpoint; append and read_version for an append)");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":1,"actions":"",)"
                    R"("credentials":{"secret_key":"hidden"}})"),
            "unknown field credentials.\"secret_key\" (credentials take: access_key_id, "
            "secret_access_key, session_token, expiration)");
}

TEST(ParseCommitBodyTest, MissingFieldsAreNamed) {
  EXPECT_EQ(Refusal(R"({"version":1,"actions":""})"), "missing field \"table\"");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","actions":""})"), "missing field \"version\"");
  EXPECT_THAT(Refusal(R"({"table":"s3://b/t","version":1})"),
              HasSubstr("missing field \"actions\" (service mode"));
  EXPECT_THAT(Refusal(Body(R"("actions":"","staged_file":"s")")),
              HasSubstr("not both"));
}

TEST(ParseCommitBodyTest, WrongTypesAreNamedWithoutTheirValues) {
  EXPECT_EQ(Refusal(Body(R"("actions":5)")), "field \"actions\" must be a string, not an integer");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":"7","actions":""})"),
            "field \"version\" must be an integer, not a string");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":7.5,"actions":""})"),
            "field \"version\" must be an integer, not a fraction");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":-1,"actions":""})"),
            "field \"version\" is -1; versions start at 0");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":18446744073709551615,"actions":""})"),
            "field \"version\" is too large");
  EXPECT_EQ(Refusal(R"({"table":["s3://b/t"],"version":1,"actions":""})"),
            "field \"table\" must be a string, not an array");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":1,"actions":"","credentials":"k:s"})"),
            "field \"credentials\" must be an object, not a string");
  EXPECT_EQ(Refusal(std::string(R"({"table":"s3://b/t","version":1,"actions":"",)") +
                    R"("credentials":{"secret_access_key":12345}})"),
            "field \"credentials.secret_access_key\" must be a string, not an integer");
}

TEST(ParseCommitBodyTest, RepeatedKeysAndDeepNestingAreRefused) {
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","table":"s3://b/u","version":1,"actions":""})"),
            "field \"table\" appears more than once");
  EXPECT_EQ(Refusal(R"({"table":"s3://b/t","version":1,"actions":"","credentials":)"
                    R"({"access_key_id":"a","access_key_id":"b"}})"),
            "field \"access_key_id\" appears more than once");
  std::string deep = R"({"table":"s3://b/t","version":1,"actions":"","x":)" +
                     std::string(1000, '[') + std::string(1000, ']') + "}";
  EXPECT_THAT(Refusal(deep), HasSubstr("nests objects or arrays more than 4 deep"));
}

}  // namespace
}  // namespace deltacommit::service
