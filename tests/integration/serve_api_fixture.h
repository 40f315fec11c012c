// The API contract tests' fixture: a real `deltacommit serve` process
// (ServeProcess) on RGW with a SQLite state store, spoken to with plain
// HTTP (libcurl), and a reader on the table's prefix to see what reached
// S3. Each test gets a fresh table under the test bucket and fresh bearer
// tokens.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/serve_process.h"
#include "common/test_servers.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/sigv4.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "service/config/auth.h"

namespace deltacommit::testing {

// RGW ignores a session token; it is sent so the log checks can look for it.
inline constexpr char kServeSessionToken[] = "IQoJb3JpZ2luSESSIONtokenSERVEtest+/0123456789abc";

inline std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// One add action line for the data file part-<tag>.parquet.
inline std::string AddAction(const std::string& tag) {
  return "{\"add\":{\"path\":\"part-" + tag +
         ".parquet\",\"partitionValues\":{},\"size\":100,\"modificationTime\":1,"
         "\"dataChange\":true}}\n";
}

// A commit file: a commitInfo and the add of part-<tag>.parquet.
inline std::string Actions(const std::string& tag) {
  return "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"WRITE\"}}\n" +
         AddAction(tag);
}

// Actions(tag) for version 0, which must also carry protocol and metaData
// (a fixed table id: the same tag gives the same bytes).
inline std::string FirstActions(const std::string& tag) {
  return "{\"commitInfo\":{\"timestamp\":1700000000000,\"operation\":\"WRITE\"}}\n"
         "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
         "{\"metaData\":{\"id\":\"00000000-0000-4000-8000-0000000000ab\",\"format\":"
         "{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
         "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
         "\"configuration\":{}}}\n" +
         AddAction(tag);
}

// The path of GET /v1/tables/{table}/commits?start=<start>.
inline std::string PendingPath(const std::string& table, Version start) {
  return "/v1/tables/" + aws::UriEncode(table, /*encode_slash=*/true) +
         "/commits?start=" + std::to_string(start);
}

class ServeApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    s3_ = NewS3TestStore("serve-api");
    table_ = s3_.uri;
    other_prefix_ = "s3://" + Env("DELTACOMMIT_TEST_BUCKET") + "/tests/serve-api-other-" + NewUuid();
    if (StartInSetUp()) StartServe();
  }

  virtual bool StartInSetUp() const { return true; }

  // The service config: RGW as the default endpoint and as the allowlisted
  // "rgw", SQLite state, a writer token for the table and a token for
  // another prefix. `extra` is appended (more sections).
  std::string Config(const std::string& extra = "") const {
    const std::string rgw = Env("AWS_ENDPOINT_URL_S3");
    return "[server]\nlisten = \"127.0.0.1:0\"\nmax_body_bytes = 65536\n"
           "drain_timeout_ms = 30000\n"
           "[state]\nkind = \"sqlite\"\npath = \"state.sqlite\"\n"
           "[commits]\nmax_commit_bytes = 32768\n"
           "[s3]\nendpoint = \"" + rgw + "\"\nallow_http = true\nenforces_if_none_match = true\n"
           "[[s3.allowed_endpoint]]\nname = \"rgw\"\nurl = \"" + rgw + "\"\nallow_http = true\n"
           "[[token]]\nname = \"writer\"\nsha256 = \"" + service::HashToken(writer_token_) +
           "\"\ntables = [\"" + table_ + "\"]\nactions = [\"commit\", \"read\"]\n"
           "[[token]]\nname = \"other\"\nsha256 = \"" + service::HashToken(other_token_) +
           "\"\ntables = [\"" + other_prefix_ + "\"]\nactions = [\"commit\", \"read\"]\n" + extra;
  }

  // Config(extra) with the state in the DynamoDB table `state_table`
  // (created by the first instance), as instances sharing tables run.
  std::string ConfigWithDynamoDbState(const std::string& state_table,
                                      const std::string& extra = "") const {
    std::string config = Config(extra);
    const std::string sqlite = "[state]\nkind = \"sqlite\"\npath = \"state.sqlite\"\n";
    const size_t at = config.find(sqlite);
    EXPECT_NE(at, std::string::npos) << config;
    if (at == std::string::npos) return config;
    return config.replace(at, sqlite.size(),
                          "[state]\nkind = \"dynamodb\"\ntable = \"" + state_table +
                              "\"\nendpoint = \"" + Env("AWS_ENDPOINT_URL_DYNAMODB") +
                              "\"\nallow_http = true\n");
  }

  void StartServe(const std::string& extra = "", const std::string& log_level = "info") {
    auto started = ServeProcess::Start(Config(extra), log_level);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    serve_ = std::move(started).value();
  }

  // A commit body with the test user's keys, valid for an hour.
  nlohmann::json Commit(Version version, const std::string& actions,
                        const std::string& secret = Env("AWS_SECRET_ACCESS_KEY")) const {
    return {{"table", table_},
            {"version", version},
            {"actions", actions},
            {"credentials",
             {{"access_key_id", Env("AWS_ACCESS_KEY_ID")},
              {"secret_access_key", secret},
              {"session_token", kServeSessionToken},
              {"expiration", aws::internal::FormatUtc(SystemClock().NowMillis() + 3'600'000)}}}};
  }

  // `extra`: more headers, sent as given.
  aws::HttpResponse Send(const std::string& method, const std::string& path,
                         const std::string& body, const std::string& token,
                         const aws::HttpHeaders& extra = {}) {
    aws::HttpRequest request;
    request.method = method;
    request.url = serve_->Url(path);
    if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
    request.headers.insert(request.headers.end(), extra.begin(), extra.end());
    if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
    request.body = body;
    StatusOr<aws::HttpResponse> response = http_->Send(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? *response : aws::HttpResponse{};
  }
  aws::HttpResponse Post(const nlohmann::json& body) {
    return Send("POST", "/v1/commits", body.dump(), writer_token_);
  }

  // The error object of an answer ({} when it has none).
  static nlohmann::json ErrorOf(const aws::HttpResponse& response) {
    nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
    return body.is_object() && body.contains("error") ? body["error"] : nlohmann::json::object();
  }
  static std::string MessageOf(const aws::HttpResponse& response) {
    return ErrorOf(response).value("message", "");
  }

  // Every key under the table's prefix.
  std::vector<std::string> Keys() {
    std::vector<std::string> keys;
    auto listing = s3_.store->List("");
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    if (listing.ok()) {
      for (const ObjectMeta& m : *listing) keys.push_back(m.key);
    }
    return keys;
  }
  std::string Read(const std::string& key) {
    auto data = s3_.store->Get(key);
    return data.ok() ? *data : "<" + data.status().ToString() + ">";
  }

  // The keys of the table's commit files (_delta_log/<version>.json), in
  // version order.
  std::vector<std::string> CommitKeys() {
    std::vector<std::string> commits;
    for (const std::string& key : Keys()) {
      if (ParseLogPath(key.substr(kLogDir.size())).type == LogFileType::kCommit) {
        commits.push_back(key);
      }
    }
    return commits;
  }

  // The table's log is exactly `expected`: versions contiguous from 0,
  // each commit's bytes once.
  void ExpectLogHoldsEachOnce(const std::set<std::string>& expected) {
    const std::vector<std::string> commits = CommitKeys();
    ASSERT_EQ(commits.size(), expected.size());
    std::set<std::string> seen;
    for (size_t v = 0; v < commits.size(); ++v) {
      EXPECT_EQ(commits[v], CommitPath(static_cast<Version>(v))) << "versions not contiguous";
      EXPECT_TRUE(seen.insert(Read(commits[v])).second) << "a commit landed twice";
    }
    EXPECT_EQ(seen, expected);
  }

  // The lines serve has logged for commit requests so far ("msg":"commit").
  std::vector<nlohmann::json> CommitLogLines() const {
    std::vector<nlohmann::json> lines;
    std::istringstream in(serve_->Logs());
    for (std::string line; std::getline(in, line);) {
      nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
      if (parsed.is_object() && parsed.value("msg", "") == "commit") lines.push_back(parsed);
    }
    return lines;
  }

  S3TestStore s3_;
  std::string table_;
  std::string other_prefix_;
  const std::string writer_token_ = "writer-" + NewUuid();
  const std::string other_token_ = "other-" + NewUuid();
  std::unique_ptr<aws::HttpClient> http_ = aws::NewCurlHttpClient();
  std::unique_ptr<ServeProcess> serve_;
};

}  // namespace deltacommit::testing
