// The service's answers: their bytes, the client's reads of them, and that
// each reads back as it was written.
#include "deltacommit/service_wire/answers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "deltacommit/log_path.h"

namespace deltacommit::service_wire {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kUuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";

CommitAnswer Answer(Version version, bool published, int64_t merged, bool duplicate,
                    std::optional<int64_t> in_commit_timestamp = std::nullopt) {
  CommitAnswer answer;
  answer.version = version;
  answer.published = published;
  answer.merged = merged;
  answer.duplicate = duplicate;
  answer.in_commit_timestamp = in_commit_timestamp;
  return answer;
}

TEST(CommitAnswerTest, BytesAndRoundTrip) {
  EXPECT_EQ(SerializeCommitAnswer(Answer(7, true, 0, false)), R"({"published":true,"version":7})");
  EXPECT_EQ(SerializeCommitAnswer(Answer(9, true, 3, true)),
            R"({"duplicate":true,"merged":3,"published":true,"version":9})");
  EXPECT_EQ(SerializeCommitAnswer(Answer(5, true, 1, false, 1764892800123)),
            R"({"in_commit_timestamp":1764892800123,"merged":1,"published":true,"version":5})");
  for (const CommitAnswer& sent :
       {Answer(7, true, 0, false), Answer(0, false, 0, false),
        Answer(12, true, 40, false), Answer(-1, true, 0, true),
        Answer(5, true, 1, false, 1764892800123)}) {
    StatusOr<CommitAnswer> read = ParseCommitAnswer(SerializeCommitAnswer(sent));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, sent);
  }
}

TEST(CommitAnswerTest, AnAnswerThatIsNotTheApisIsMalformed) {
  const std::pair<std::string, std::string> cases[] = {
      {"{\"ok\":true}", "no integer \"version\""},
      {"not json", "no integer \"version\""},
      {R"({"version":1,"published":"yes"})", "\"published\" is not a boolean"},
      {R"({"version":1,"merged":1.5})", "\"merged\" is not an integer"},
      {R"({"version":1,"duplicate":1})", "\"duplicate\" is not a boolean"},
      {R"({"version":1,"in_commit_timestamp":"now"})",
       "\"in_commit_timestamp\" is not an integer"},
  };
  for (const auto& [body, why] : cases) {
    StatusOr<CommitAnswer> read = ParseCommitAnswer(body);
    EXPECT_EQ(read.status().code(), StatusCode::kInternal) << body;
    EXPECT_THAT(read.status().message(), HasSubstr("the service's answer is malformed (" + why))
        << body;
  }
}

TEST(ErrorBodyTest, BytesAndRoundTrip) {
  EXPECT_EQ(SerializeErrorBody({"version_taken", "taken", 9, ""}),
            R"({"error":{"code":"version_taken","latest_version":9,"message":"taken"}})");
  EXPECT_EQ(SerializeErrorBody({"credentials_rejected", "AccessDenied", std::nullopt,
                                "access_denied"}),
            R"({"error":{"code":"credentials_rejected","message":"AccessDenied",)"
            R"("reason":"access_denied"}})");
  for (const ErrorBody& sent :
       {ErrorBody{"bad_request", "unknown field \"acions\"", std::nullopt, ""},
        ErrorBody{"version_ahead", "version 5 is not latest+1", -1, ""},
        ErrorBody{"credentials_rejected", "S3 InvalidAccessKeyId", std::nullopt,
                  "invalid_credentials"}}) {
    EXPECT_EQ(ParseErrorBody(SerializeErrorBody(sent)), sent);
  }
}

TEST(ErrorBodyTest, InvalidUtf8InAMessageIsReplacedNotThrown) {
  const std::string body = SerializeErrorBody({"bad_request", "table \xff\xfe", std::nullopt, ""});
  EXPECT_TRUE(nlohmann::json::accept(body));
  EXPECT_EQ(ParseErrorBody(body).message, "table \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ErrorBodyTest, ABodyThatIsNotTheApisIsQuotedShortAndEscaped) {
  ErrorBody html = ParseErrorBody("<html>\n<body>Bad Request from proxy</body></html>");
  EXPECT_TRUE(html.code.empty());
  EXPECT_EQ(html.message,
            "not the API's error body: \"<html>\\x0a<body>Bad Request from proxy</body></html>\"");
  EXPECT_EQ(ParseErrorBody("").message, "(no body)");
  EXPECT_TRUE(ParseErrorBody(R"({"error":{"code":7}})").code.empty());
  // An empty code names nothing (found by the service_reply fuzzer): the
  // body is quoted, so the error still says something.
  ErrorBody empty_code = ParseErrorBody(R"({"error":{"code":""}})");
  EXPECT_TRUE(empty_code.code.empty());
  EXPECT_EQ(empty_code.message, R"(not the API's error body: "{"error":{"code":""}}")");
  // Fields of another type are left out; long ones are cut.
  ErrorBody odd = ParseErrorBody(R"({"error":{"code":"x","message":1,"latest_version":"9"}})");
  EXPECT_EQ(odd.code, "x");
  EXPECT_TRUE(odd.message.empty());
  EXPECT_FALSE(odd.latest_version.has_value());
  ErrorBody long_code = ParseErrorBody(SerializeErrorBody({std::string(100, 'c'), "", {}, ""}));
  EXPECT_EQ(long_code.code, std::string(64, 'c') + "...");
}

PendingCommitsAnswer SomePending() {
  PendingCommitsAnswer answer;
  answer.table = "s3://analytics/events";
  answer.pending.latest_version = 9;
  answer.pending.commits = {{8, StagedCommitPath(8, kUuid), 812, 1'764'450'000'000},
                            {9, StagedCommitPath(9, kUuid), 0, 1'764'450'000'001}};
  return answer;
}

TEST(PendingCommitsAnswerTest, BytesAndRoundTrip) {
  PendingCommitsAnswer empty;
  empty.table = "s3://b/t";
  EXPECT_EQ(SerializePendingCommits(empty),
            R"({"commits":[],"latest_version":-1,"table":"s3://b/t"})");
  EXPECT_EQ(SerializePendingCommits(
                {"s3://b/t", {3, {{3, StagedCommitPath(3, kUuid), 5, 6}}}}),
            R"({"commits":[{"commit_timestamp":6,"size":5,"staged_file":")" +
                StagedCommitPath(3, kUuid) + R"(","version":3}],"latest_version":3,)"
                R"("table":"s3://b/t"})");
  for (const PendingCommitsAnswer& sent : {empty, SomePending()}) {
    StatusOr<PendingCommitsAnswer> read = ParsePendingCommits(SerializePendingCommits(sent), 0);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->table, sent.table);
    EXPECT_EQ(read->pending.latest_version, sent.pending.latest_version);
    EXPECT_EQ(read->pending.commits, sent.pending.commits);
  }
}

TEST(PendingCommitsAnswerTest, MalformedAnswersAreRefusedNamingWhatIsWrong) {
  const std::string staged3 = StagedCommitPath(3, kUuid);
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "latest_version"},
      {R"({"latest_version": "3", "commits": []})", "latest_version"},
      {R"({"latest_version": -2, "commits": []})", "below -1"},
      {R"({"latest_version": 3, "commits": [{"version": 3}]})", "staged_file"},
      {R"({"latest_version": 3, "commits": [{"version": 3, "staged_file": )"
       R"("_delta_log/00000000000000000003.json"}]})",
       "is not _delta_log/_staged_commits/"},
      {R"({"latest_version": 3, "commits": [{"version": 2, "staged_file": ")" + staged3 + "\"}]}",
       "is not _delta_log/_staged_commits/"},
      {R"({"latest_version": 2, "commits": [{"version": 3, "staged_file": ")" + staged3 + "\"}]}",
       "out of order or outside"},
      {R"({"latest_version": 3, "commits": [{"version": 0, "staged_file": ")" +
           StagedCommitPath(0, kUuid) + "\"}]}",
       "out of order or outside"},
  };
  for (const auto& [body, why] : cases) {
    StatusOr<PendingCommitsAnswer> read = ParsePendingCommits(body, 1);
    EXPECT_EQ(read.status().code(), StatusCode::kInternal) << body;
    EXPECT_THAT(read.status().message(), HasSubstr("malformed")) << body;
    EXPECT_THAT(read.status().message(), HasSubstr(why)) << body;
  }
}

TEST(PendingCommitsAnswerTest, OnlyTheCheckedFieldsAreRequired) {
  StatusOr<PendingCommitsAnswer> read = ParsePendingCommits(
      R"({"latest_version": 3, "commits": [{"version": 3, "staged_file": ")" +
          StagedCommitPath(3, kUuid) + R"(", "size": "big"}]})",
      0);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->table.empty());
  ASSERT_EQ(read->pending.commits.size(), 1u);
  EXPECT_EQ(read->pending.commits[0].size, 0);
}

TEST(HealthAnswerTest, BytesAndRoundTrip) {
  EXPECT_EQ(SerializeHealthAnswer({"ok", ""}), R"({"status":"ok"})");
  EXPECT_EQ(SerializeHealthAnswer({"ready", ""}), R"({"status":"ready"})");
  EXPECT_EQ(SerializeHealthAnswer({"stopping", ""}), R"({"status":"stopping"})");
  EXPECT_EQ(SerializeHealthAnswer({"unavailable", "state store: Unavailable"}),
            R"({"reason":"state store: Unavailable","status":"unavailable"})");
  for (const HealthAnswer& sent :
       {HealthAnswer{"ok", ""}, HealthAnswer{"unavailable", "state store: Internal"}}) {
    EXPECT_EQ(ParseHealthAnswer(SerializeHealthAnswer(sent)), sent);
  }
}

TEST(HealthAnswerTest, WhatIsNotAStringIsLeftEmpty) {
  EXPECT_EQ(ParseHealthAnswer("<html>"), HealthAnswer{});
  EXPECT_EQ(ParseHealthAnswer(R"({"status":1,"reason":"r"})"), (HealthAnswer{"", "r"}));
}

}  // namespace
}  // namespace deltacommit::service_wire
