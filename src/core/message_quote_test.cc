// QuoteForMessage and Excerpt: peer text in messages, bounded and escaped.
#include "deltacommit/core/message_quote.h"

#include <gtest/gtest.h>

namespace deltacommit {
namespace {

TEST(QuoteForMessageTest, EscapesAndShortens) {
  EXPECT_EQ(QuoteForMessage("plain"), "\"plain\"");
  EXPECT_EQ(QuoteForMessage("a\"b\\c\r\n"), "\"a\\\"b\\\\c\\x0d\\x0a\"");
  EXPECT_EQ(QuoteForMessage("abcdef", 3), "\"abc\"...");
  EXPECT_EQ(QuoteForMessage("abc", 3), "\"abc\"");
}

TEST(ExcerptTest, EscapesControlsAndCuts) {
  EXPECT_EQ(Excerpt("a\nb\x01", 10), "a\\x0ab\\x01");
  EXPECT_EQ(Excerpt("abcdef", 3), "abc...");
  EXPECT_EQ(Excerpt("a\x7f\"", 10), "a\\x7f\"");
}

}  // namespace
}  // namespace deltacommit
