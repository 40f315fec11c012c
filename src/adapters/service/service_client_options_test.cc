#include "deltacommit/service_client/service_client_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "deltacommit/service_client/service_reply.h"

namespace deltacommit::service_client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ServiceClientOptionsTest, GivenValuesWinOverTheEnvironment) {
  auto options = ResolveCommitServiceOptions(
      "https://commits.example.com:8642/", "tok", "eu-minio",
      Env({{"DELTACOMMIT_SERVICE_URL", "http://other"}, {"DELTACOMMIT_SERVICE_TOKEN", "env"}}));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->url, "https://commits.example.com:8642");
  EXPECT_EQ(options->token, "tok");
  EXPECT_EQ(options->endpoint, "eu-minio");
}

TEST(ServiceClientOptionsTest, TheEnvironmentFillsWhatIsNotGiven) {
  auto options = ResolveCommitServiceOptions(
      "", "", "",
      Env({{"DELTACOMMIT_SERVICE_URL", "http://127.0.0.1:8642/proxy/"},
           {"DELTACOMMIT_SERVICE_TOKEN", "env-token"}}));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->url, "http://127.0.0.1:8642/proxy");
  EXPECT_EQ(options->token, "env-token");
  EXPECT_EQ(options->endpoint, "");
}

TEST(ServiceClientOptionsTest, MissingUrlOrTokenSaysWhereToGiveIt) {
  auto no_url = ResolveCommitServiceOptions("", "tok", "", Env({}));
  EXPECT_EQ(no_url.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(no_url.status().message(), HasSubstr("--service-url"));
  EXPECT_THAT(no_url.status().message(), HasSubstr("DELTACOMMIT_SERVICE_URL"));
  auto no_token = ResolveCommitServiceOptions("http://h:1", "", "", Env({}));
  EXPECT_EQ(no_token.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(no_token.status().message(), HasSubstr("DELTACOMMIT_SERVICE_TOKEN"));
}

TEST(ServiceClientOptionsTest, MalformedUrlsAreRefusedNamingTheProblem) {
  const std::pair<std::string, std::string> cases[] = {
      {"commits.example.com", "expected http://"},
      {"ftp://commits.example.com", "http or https"},
      {"http:///v1", "no host"},
      {"http://h:1/?x=1", "query or fragment"},
      {"http://h:1/a b", "spaces"},
  };
  for (const auto& [url, why] : cases) {
    auto st = NormalizeServiceUrl(url);
    EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(st.status().message(), HasSubstr(why)) << url;
  }
}

TEST(ServiceClientOptionsTest, UserInfoIsRefusedWithoutQuotingThePassword) {
  auto st = NormalizeServiceUrl("https://writer:hunter2@commits.example.com");
  EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.status().message(), HasSubstr("--service-token"));
  EXPECT_THAT(st.status().message(), Not(HasSubstr("hunter2")));
}

TEST(ServiceClientOptionsTest, ATokenWithANewlineIsRefusedWithoutQuotingIt) {
  auto st = ResolveCommitServiceOptions("http://h:1", "secret-token\n", "", Env({}));
  EXPECT_EQ(st.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.status().message(), HasSubstr("control character"));
  EXPECT_THAT(st.status().message(), Not(HasSubstr("secret-token")));
}

TEST(ServiceReplyTest, RedactReplacesEveryOccurrenceOfEverySecret) {
  EXPECT_EQ(Redact("a SECRET b SECRET c tok", {"SECRET", "tok", ""}),
            "a [REDACTED] b [REDACTED] c [REDACTED]");
}

}  // namespace
}  // namespace deltacommit::service_client
