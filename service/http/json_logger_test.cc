#include "service/http/json_logger.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/http/redaction.h"

namespace deltacommit::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class FixedClock : public Clock {
 public:
  int64_t NowMillis() override { return 1764450000123; }
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(JsonLoggerTest, WritesOneObjectPerLineWithTimeLevelMsgFirst) {
  std::ostringstream out;
  FixedClock clock;
  JsonLogger logger(out, LogLevel::kInfo, clock);
  logger.Info("request", {{"request_id", "r1"},
                          {"route", "/v1/commits"},
                          {"status", 200},
                          {"duration_ms", 1.5},
                          {"peer", "127.0.0.1:5000"}});
  logger.Error("handler threw", {{"error", "line\nbreak \"quoted\""}});
  EXPECT_EQ(
      out.str(),
      "{\"time\":\"2025-11-29T21:00:00.123Z\",\"level\":\"info\","
      "\"msg\":\"request\",\"duration_ms\":1.5,\"peer\":\"127.0.0.1:5000\","
      "\"request_id\":\"r1\",\"route\":\"/v1/commits\",\"status\":200}\n"
      "{\"time\":\"2025-11-29T21:00:00.123Z\",\"level\":\"error\","
      "\"msg\":\"handler threw\",\"error\":\"line\\nbreak "
      "\\\"quoted\\\"\"}\n");
}

TEST(JsonLoggerTest, DropsLinesBelowTheMinimumLevel) {
  std::ostringstream out;
  JsonLogger logger(out, LogLevel::kWarn);
  logger.Debug("d");
  logger.Info("i");
  logger.Warn("w");
  EXPECT_EQ(Lines(out.str()).size(), 1u);
  EXPECT_THAT(out.str(), HasSubstr("\"level\":\"warn\""));
  EXPECT_FALSE(logger.Enabled(LogLevel::kInfo));
}

TEST(JsonLoggerTest, ReservedFieldNamesCannotForgeTimeLevelOrMsg) {
  std::ostringstream out;
  JsonLogger logger(out);
  logger.Info("real", {{"msg", "forged"}, {"level", "error"}, {"x", 1}});
  nlohmann::json line = nlohmann::json::parse(out.str());
  EXPECT_EQ(line["msg"], "real");
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["x"], 1);
  EXPECT_THAT(out.str(), Not(HasSubstr("forged")));
}

TEST(JsonLoggerTest, SecretNamedFieldsAreNeverWritten) {
  std::ostringstream out;
  JsonLogger logger(out);
  logger.Info("commit",
              {{"table", "s3://b/t"},
               {"credentials",
                {{"access_key_id", "AKIDEXAMPLE"},
                 {"secret_access_key", "SECRET-1"},
                 {"session_token", "TOKEN-2"}}},
               {"Authorization", "Bearer TOKEN-3"},
               {"password", "PASS-4"},
               {"nested", {{"list", {{{"x-amz-security-token", "TOKEN-5"}}}}}},
               {"api_key", "KEY-6"}});
  std::string text = out.str();
  for (const char* secret : {"SECRET-1", "TOKEN-2", "TOKEN-3", "PASS-4",
                             "TOKEN-5", "KEY-6", "AKIDEXAMPLE"}) {
    EXPECT_THAT(text, Not(HasSubstr(secret))) << text;
  }
  nlohmann::json line = nlohmann::json::parse(text);
  EXPECT_EQ(line["table"], "s3://b/t");
  EXPECT_EQ(line["Authorization"], kRedacted);
  EXPECT_EQ(line["nested"]["list"][0]["x-amz-security-token"], kRedacted);
}

TEST(JsonLoggerTest, InvalidUtf8IsReplacedNotThrown) {
  std::ostringstream out;
  JsonLogger logger(out);
  logger.Info("bad \xff", {{"path", "/x\xfe"}});
  EXPECT_NO_THROW(nlohmann::json::parse(out.str()));
}

TEST(JsonLoggerTest, ConcurrentLinesNeverInterleave) {
  std::ostringstream out;
  JsonLogger logger(out);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&logger, t] {
      for (int i = 0; i < 500; ++i) logger.Info("m", {{"t", t}, {"i", i}});
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2000u);
  for (const std::string& line : lines) {
    EXPECT_NO_THROW(nlohmann::json::parse(line)) << line;
  }
}

TEST(RedactionTest, RecognisesSecretNamesInAnySpelling) {
  for (const char* name :
       {"secret", "secret_access_key", "SecretAccessKey", "session_token",
        "sessionToken", "X-Amz-Security-Token", "password", "db_passwd",
        "authorization", "Proxy-Authorization", "credentials", "credential",
        "private_key", "api-key", "x-amz-signature", "cookie", "Set-Cookie"}) {
    EXPECT_TRUE(IsSecretFieldName(name)) << name;
  }
  for (const char* name : {"request_id", "route", "status", "peer", "table",
                           "access_key_id", "duration_ms", "author", "key"}) {
    EXPECT_FALSE(IsSecretFieldName(name)) << name;
  }
}

TEST(JsonLoggerTest, FormatsUtcMillis) {
  EXPECT_EQ(FormatUtcMillis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatUtcMillis(1764450000123), "2025-11-29T21:00:00.123Z");
  EXPECT_EQ(FormatUtcMillis(-1), "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace deltacommit::http
