// The body of POST /v1/commits: what the client writes, the service's
// strict read of it, and that the one reads back what the other wrote.
#include "deltacommit/service_wire/commit_body.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace deltacommit::service_wire {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";
constexpr char kToken[] = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN";
constexpr char kStaged[] =
    "_delta_log/_staged_commits/00000000000000000007.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json";

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

RequestCredentials SomeCredentials() {
  return {"ASIAEXAMPLEKEY123456", kSecret, kToken, "2030-01-02T03:04:05Z"};
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
  EXPECT_EQ(body->credentials, SomeCredentials());
  StatusOr<aws::Credentials> credentials = ToAwsCredentials(*body->credentials);
  ASSERT_TRUE(credentials.ok()) << credentials.status().ToString();
  EXPECT_EQ(credentials->access_key_id, "ASIAEXAMPLEKEY123456");
  EXPECT_EQ(credentials->secret_access_key, kSecret);
  EXPECT_EQ(credentials->session_token, kToken);
  EXPECT_EQ(credentials->expiration_ms, 1'893'553'445'000);
  EXPECT_EQ(credentials->source, "request");
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
// so is an expiration that is no time, found when the service reads them.
TEST(ParseCommitBodyTest, CredentialProblemsAreLeftForThe422) {
  StatusOr<CommitBody> none =
      ParseCommitBody(R"({"table":"s3://b/t","version":0,"actions":""})");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->credentials.has_value());
  StatusOr<CommitBody> no_expiry = ParseCommitBody(
      R"({"table":"s3://b/t","version":0,"actions":"","credentials":{"access_key_id":"A"}})");
  ASSERT_TRUE(no_expiry.ok());
  StatusOr<aws::Credentials> without = ToAwsCredentials(*no_expiry->credentials);
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->expiration_ms.has_value());
  EXPECT_TRUE(without->secret_access_key.empty());
  StatusOr<CommitBody> bad_time = ParseCommitBody(
      R"({"table":"s3://b/t","version":0,"actions":"","credentials":{"expiration":"tomorrow"}})");
  ASSERT_TRUE(bad_time.ok());
  StatusOr<aws::Credentials> unusable = ToAwsCredentials(*bad_time->credentials);
  EXPECT_EQ(unusable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unusable.status().message(),
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

// The bytes the client sends (nlohmann writes keys in order).
TEST(SerializeCommitBodyTest, WritesOnlyTheFieldsThatAreSet) {
  CommitBody commit;
  commit.table = "s3://bucket/t";
  commit.version = 7;
  commit.actions = "{\"commitInfo\":{}}\n";
  commit.credentials = RequestCredentials{"AKIAKEY", "secret", "", std::nullopt};
  EXPECT_EQ(SerializeCommitBody(commit),
            R"({"actions":"{\"commitInfo\":{}}\n","credentials":{"access_key_id":"AKIAKEY",)"
            R"("secret_access_key":"secret"},"table":"s3://bucket/t","version":7})");
  CommitBody append;
  append.table = "file:///srv/t";
  append.append = true;
  append.read_version = 3;
  append.actions = "x\n";
  append.endpoint = "eu";
  EXPECT_EQ(SerializeCommitBody(append),
            R"({"actions":"x\n","append":true,"endpoint":"eu","read_version":3,)"
            R"("table":"file:///srv/t"})");
}

TEST(SerializeCommitBodyTest, InvalidUtf8IsReplacedNotThrown) {
  CommitBody commit;
  commit.table = "s3://bucket/t";
  commit.version = 0;
  commit.actions = "\xff\xfe\n";
  StatusOr<CommitBody> read = ParseCommitBody(SerializeCommitBody(commit));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->actions, "\xEF\xBF\xBD\xEF\xBF\xBD\n");  // two U+FFFD
}

TEST(CommitBodyRoundTripTest, EveryKindOfBodyReadsBackAsWritten) {
  CommitBody service_mode;
  service_mode.table = "s3://bucket/t";
  service_mode.version = 7;
  service_mode.actions = "{\"commitInfo\":{\"operation\":\"WRITE\"}}\n";
  service_mode.credentials = SomeCredentials();
  service_mode.endpoint = "eu-minio";
  CommitBody coordinated;
  coordinated.table = "s3://bucket/t";
  coordinated.version = 7;
  coordinated.staged_file = kStaged;
  coordinated.credentials = RequestCredentials{"AKIAKEY", "secret", "", std::nullopt};
  CommitBody append;
  append.table = "s3://bucket/t";
  append.append = true;
  append.read_version = 0;
  append.actions = "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n";
  append.credentials = SomeCredentials();
  CommitBody local;
  local.table = "file:///srv/tables/t";
  local.version = 0;
  local.actions = "";
  // An expiration that is no time travels as it is (doctor's probe).
  CommitBody probe = coordinated;
  probe.credentials->expiration = "doctor probe: not a time";
  for (const CommitBody& sent : {service_mode, coordinated, append, local, probe}) {
    const std::string body = SerializeCommitBody(sent);
    StatusOr<CommitBody> read = ParseCommitBody(body);
    ASSERT_TRUE(read.ok()) << body << ": " << read.status().ToString();
    EXPECT_EQ(*read, sent) << body;
    EXPECT_EQ(SerializeCommitBody(*read), body);
  }
}

TEST(CommitBodyRoundTripTest, CredentialsReadBackAsTheClientHadThem) {
  aws::Credentials chain;
  chain.access_key_id = "ASIAEXAMPLEKEY123456";
  chain.secret_access_key = kSecret;
  chain.session_token = kToken;
  chain.expiration_ms = 1'893'553'445'000;
  const RequestCredentials sent = ToRequestCredentials(chain);
  EXPECT_EQ(sent, SomeCredentials());
  StatusOr<aws::Credentials> read = ToAwsCredentials(sent);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->access_key_id, chain.access_key_id);
  EXPECT_EQ(read->secret_access_key, chain.secret_access_key);
  EXPECT_EQ(read->session_token, chain.session_token);
  EXPECT_EQ(read->expiration_ms, chain.expiration_ms);
  chain.session_token.clear();
  chain.expiration_ms.reset();  // long-term keys: neither is sent
  EXPECT_EQ(ToRequestCredentials(chain),
            (RequestCredentials{chain.access_key_id, kSecret, "", std::nullopt}));
}

ServiceCommitRequest Inline(Version version, std::string actions) {
  ServiceCommitRequest r;
  r.table = "s3://bucket/t";
  r.version = version;
  r.actions = std::move(actions);
  return r;
}

TEST(ValidateCommitRequestTest, RefusesWhatTheServiceWould) {
  EXPECT_TRUE(ValidateCommitRequest(Inline(0, "{}\n")).ok());
  ServiceCommitRequest both = Inline(1, "{}\n");
  both.staged_file = kStaged;
  EXPECT_THAT(ValidateCommitRequest(both).message(), HasSubstr("exactly one of the actions"));
  EXPECT_EQ(ValidateCommitRequest(Inline(1, "")).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateCommitRequest(Inline(-1, "{}\n")).message(),
            "commit service request: negative version -1");
  ServiceCommitRequest no_table = Inline(0, "{}\n");
  no_table.table.clear();
  EXPECT_EQ(ValidateCommitRequest(no_table).message(), "commit service request: no table");
}

TEST(ValidateCommitRequestTest, AnAppendNeedsAReadVersionAndATxn) {
  ServiceCommitRequest append = Inline(-1, "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n");
  append.append = true;
  append.read_version = 0;
  EXPECT_TRUE(ValidateCommitRequest(append).ok());
  ServiceCommitRequest versioned = append;
  versioned.version = 3;
  EXPECT_THAT(ValidateCommitRequest(versioned).message(), HasSubstr("needs no version"));
  ServiceCommitRequest no_txn = append;
  no_txn.actions = "{\"commitInfo\":{}}\n";
  EXPECT_EQ(ValidateCommitRequest(no_txn).message(),
            "commit service append: the actions need a txn");
}

TEST(ToCommitBodyTest, TakesWhatTheRequestHoldsAndNoCredentialsForALocalTable) {
  aws::Credentials keys;
  keys.access_key_id = "AKIAKEY";
  keys.secret_access_key = "secret";
  ServiceCommitRequest staged;
  staged.table = "s3://bucket/t";
  staged.version = 7;
  staged.staged_file = kStaged;
  CommitBody sent = ToCommitBody(staged, &keys, "eu");
  EXPECT_EQ(sent.staged_file, kStaged);
  EXPECT_FALSE(sent.actions.has_value());
  EXPECT_EQ(sent.credentials, (RequestCredentials{"AKIAKEY", "secret", "", std::nullopt}));
  EXPECT_EQ(sent.endpoint, "eu");
  CommitBody local = ToCommitBody(Inline(0, "{}\n"), nullptr, "");
  EXPECT_EQ(local.actions, "{}\n");
  EXPECT_FALSE(local.staged_file.has_value());
  EXPECT_FALSE(local.credentials.has_value());
}

}  // namespace
}  // namespace deltacommit::service_wire
