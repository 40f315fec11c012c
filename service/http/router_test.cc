#include "service/http/router.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

Handler Answering(std::string body) {
  return [body](const Request&) { return Response::Json(200, body); };
}

std::string AnswerOf(const Router::Match& match) {
  return (*match.handler)(Request{}).body;
}

TEST(RouterTest, MatchesLiteralPathsAndMethods) {
  Router router;
  ASSERT_TRUE(router.Add("GET", "/healthz", Answering("health")).ok());
  ASSERT_TRUE(router.Add("POST", "/v1/commits", Answering("commit")).ok());
  Router::Match match = router.Find("POST", "/v1/commits");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.route, "/v1/commits");
  EXPECT_EQ(AnswerOf(match), "commit");
  EXPECT_EQ(AnswerOf(router.Find("GET", "/healthz")), "health");
}

TEST(RouterTest, ParameterSegmentIsPercentDecoded) {
  Router router;
  ASSERT_TRUE(
      router.Add("GET", "/v1/tables/{table}/commits", Answering("c")).ok());
  Router::Match match =
      router.Find("GET", "/v1/tables/s3%3A%2F%2Fbucket%2Fprefix/commits");
  ASSERT_EQ(match.kind, Router::MatchKind::kFound);
  EXPECT_EQ(match.route, "/v1/tables/{table}/commits");
  EXPECT_THAT(match.params, ElementsAre(Pair("table", "s3://bucket/prefix")));
}

TEST(RouterTest, ParameterMatchesExactlyOneNonEmptySegment) {
  Router router;
  ASSERT_TRUE(
      router.Add("GET", "/v1/tables/{table}/commits", Answering("c")).ok());
  EXPECT_EQ(router.Find("GET", "/v1/tables//commits").kind,
            Router::MatchKind::kNotFound);
  EXPECT_EQ(router.Find("GET", "/v1/tables/a/b/commits").kind,
            Router::MatchKind::kNotFound);
  EXPECT_EQ(router.Find("GET", "/v1/tables/a/commits/").kind,
            Router::MatchKind::kNotFound);
}

TEST(RouterTest, UnknownPathIsNotFound) {
  Router router;
  ASSERT_TRUE(router.Add("GET", "/healthz", Answering("h")).ok());
  EXPECT_EQ(router.Find("GET", "/nope").kind, Router::MatchKind::kNotFound);
  EXPECT_EQ(router.Find("GET", "").kind, Router::MatchKind::kNotFound);
  EXPECT_EQ(router.Find("GET", "*").kind, Router::MatchKind::kNotFound);
}

TEST(RouterTest, WrongMethodListsTheAllowedOnesSorted) {
  Router router;
  ASSERT_TRUE(router.Add("POST", "/v1/x/{id}", Answering("p")).ok());
  ASSERT_TRUE(router.Add("GET", "/v1/x/{id}", Answering("g")).ok());
  ASSERT_TRUE(router.Add("DELETE", "/v1/x/special", Answering("d")).ok());
  Router::Match match = router.Find("PUT", "/v1/x/special");
  EXPECT_EQ(match.kind, Router::MatchKind::kMethodNotAllowed);
  EXPECT_EQ(match.allow, "DELETE, GET, POST");
}

TEST(RouterTest, LiteralSegmentWinsOverParameter) {
  Router router;
  ASSERT_TRUE(router.Add("GET", "/v1/tables/{table}", Answering("param")).ok());
  ASSERT_TRUE(router.Add("GET", "/v1/tables/names", Answering("literal")).ok());
  EXPECT_EQ(AnswerOf(router.Find("GET", "/v1/tables/names")), "literal");
  EXPECT_EQ(AnswerOf(router.Find("GET", "/v1/tables/other")), "param");
}

TEST(RouterTest, MalformedEscapeInParameterIsBadPath) {
  Router router;
  ASSERT_TRUE(router.Add("GET", "/v1/tables/{table}", Answering("t")).ok());
  Router::Match match = router.Find("GET", "/v1/tables/a%zz");
  EXPECT_EQ(match.kind, Router::MatchKind::kBadPath);
  EXPECT_THAT(match.error, HasSubstr("{table}"));
}

TEST(RouterTest, BadPatternsAreRefusedWithTheReason) {
  Router router;
  EXPECT_THAT(router.Add("GET", "healthz", Answering("")).message(),
              HasSubstr("must start with '/'"));
  EXPECT_THAT(router.Add("GET", "/a/{b", Answering("")).message(),
              HasSubstr("segment '{b'"));
  EXPECT_THAT(router.Add("GET", "/a/x{b}", Answering("")).message(),
              HasSubstr("segment 'x{b}' is neither literal text nor a {name}"));
  EXPECT_THAT(router.Add("GET", "/a/{}", Answering("")).message(),
              HasSubstr("segment '{}'"));
  EXPECT_THAT(router.Add("GET", "/{a}/{a}", Answering("")).message(),
              HasSubstr("{a} appears twice"));
  EXPECT_THAT(router.Add("", "/a", Answering("")).message(),
              HasSubstr("empty method"));
}

TEST(RouterTest, SameMethodAndPatternTwiceIsRefused) {
  Router router;
  ASSERT_TRUE(router.Add("GET", "/a", Answering("")).ok());
  Status again = router.Add("GET", "/a", Answering(""));
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("GET /a"));
  EXPECT_TRUE(router.Add("POST", "/a", Answering("")).ok());
}

}  // namespace
}  // namespace deltacommit::http
