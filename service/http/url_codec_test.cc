#include "service/http/url_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(PercentDecodeTest, DecodesEscapesOfBothCases) {
  EXPECT_EQ(*PercentDecode("s3%3A%2F%2Fbucket%2fprefix"), "s3://bucket/prefix");
  EXPECT_EQ(*PercentDecode("a%20b%00c"), std::string("a b\0c", 5));
}

TEST(PercentDecodeTest, PlusIsASpaceOnlyInQueries) {
  EXPECT_EQ(*PercentDecode("a+b"), "a+b");
  EXPECT_EQ(*PercentDecode("a+b", true), "a b");
  EXPECT_EQ(*PercentDecode("a%2Bb", true), "a+b");
}

TEST(PercentDecodeTest, MalformedEscapeIsRefusedWithItsOffset) {
  for (const char* bad : {"%", "%4", "abc%zz", "%G0"}) {
    StatusOr<std::string> decoded = PercentDecode(bad);
    ASSERT_FALSE(decoded.ok()) << bad;
    EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(decoded.status().message(),
                HasSubstr("malformed percent-encoding"));
  }
  EXPECT_THAT(PercentDecode("abc%zz").status().message(),
              HasSubstr("offset 3"));
}

TEST(ParseQueryTest, DecodesNamesAndValuesInOrder) {
  StatusOr<HeaderList> query =
      ParseQuery("start=7&table=s3%3A%2F%2Fb&x=a+b&flag&&=v");
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  EXPECT_THAT(*query,
              ElementsAre(Pair("start", "7"), Pair("table", "s3://b"),
                          Pair("x", "a b"), Pair("flag", ""), Pair("", "v")));
}

TEST(ParseQueryTest, EmptyQueryHasNoParameters) {
  EXPECT_TRUE(ParseQuery("")->empty());
}

TEST(ParseQueryTest, MalformedEscapeIsRefused) {
  EXPECT_EQ(ParseQuery("a=%zz").status().code(), StatusCode::kInvalidArgument);
}

TEST(SplitRequestTargetTest, SplitsAtTheFirstQuestionMark) {
  SplitTarget split = SplitRequestTarget("/v1/x?a=1?b");
  EXPECT_EQ(split.path, "/v1/x");
  EXPECT_EQ(split.query, "a=1?b");
  EXPECT_EQ(SplitRequestTarget("/healthz").query, "");
}

}  // namespace
}  // namespace deltacommit::http
