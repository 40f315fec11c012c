#include "deltacommit/core/ascii.h"

#include <gtest/gtest.h>

#include <string>

namespace deltacommit {
namespace {

TEST(AsciiTest, EqualsIgnoreCaseComparesAsciiLettersOnly) {
  EXPECT_TRUE(EqualsIgnoreCase("Content-Length", "content-length"));
  EXPECT_FALSE(EqualsIgnoreCase("abc", "abcd"));
  EXPECT_FALSE(EqualsIgnoreCase("a-b", "a_b"));
  // Bytes above 0x7F are compared as they are, whatever the locale says.
  EXPECT_FALSE(EqualsIgnoreCase("\xC3\x89", "\xC3\xA9"));
}

TEST(AsciiTest, AsciiLowerLowersAsciiLettersAndKeepsEveryOtherByte) {
  EXPECT_EQ(AsciiLower("X-Amz-Date: AZaz09"), "x-amz-date: azaz09");
  EXPECT_EQ(AsciiLower(""), "");
  const std::string utf8 = "\xC3\x89T\xC3\x89";  // "ÉTÉ"
  EXPECT_EQ(AsciiLower(utf8), "\xC3\x89t\xC3\x89");
  EXPECT_EQ(AsciiLower(std::string("A\0B", 3)), std::string("a\0b", 3));
}

}  // namespace
}  // namespace deltacommit
