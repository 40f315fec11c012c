// delta.deletedFileRetentionDuration: the interval forms Delta writes are
// read exactly; anything else is refused with a message naming the value.
#include "core/retention.h"

#include <gtest/gtest.h>

#include <string>

namespace deltacommit {
namespace {

constexpr int64_t kSecond = 1000;
constexpr int64_t kHour = 3600 * kSecond;
constexpr int64_t kDay = 24 * kHour;

TEST(ParseIntervalMillisTest, ReadsTheFormsDeltaWrites) {
  EXPECT_EQ(*ParseIntervalMillis("interval 1 week"), 7 * kDay);
  EXPECT_EQ(*ParseIntervalMillis("INTERVAL 2 WEEKS"), 14 * kDay);
  EXPECT_EQ(*ParseIntervalMillis("30 days"), 30 * kDay);
  EXPECT_EQ(*ParseIntervalMillis("  interval   1 day 12 hours "), kDay + 12 * kHour);
  EXPECT_EQ(*ParseIntervalMillis("interval 90 minutes 5 seconds"), 90 * 60 * kSecond + 5 * kSecond);
  EXPECT_EQ(*ParseIntervalMillis("1 second 250 milliseconds 4000 microseconds"), 1254);
  EXPECT_EQ(*ParseIntervalMillis("interval 0 hours"), 0);
}

TEST(ParseIntervalMillisTest, ReadsSignedPartsAndFractionalSecondsAsSparkDoes) {
  EXPECT_EQ(*ParseIntervalMillis("interval 1.5 seconds"), 1500);
  EXPECT_EQ(*ParseIntervalMillis("0.000999 second"), 0);  // microseconds, then whole millis
  EXPECT_EQ(*ParseIntervalMillis("2.123456789 seconds"), 2123);
  EXPECT_EQ(*ParseIntervalMillis("+3 days"), 3 * kDay);
  EXPECT_EQ(*ParseIntervalMillis("interval 1 day -12 hours"), 12 * kHour);
  EXPECT_EQ(*ParseIntervalMillis("1 week -1.5 seconds"), 7 * kDay - 1500);
}

TEST(ParseIntervalMillisTest, RefusesWhatItCannotReadExactly) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"", "no amount and unit"},
                        Case{"interval", "no amount and unit"},
                        Case{"1 month", "months and years are not accepted"},
                        Case{"interval 1 year", "months and years are not accepted"},
                        Case{"1 fortnight", "unknown unit \"fortnight\""},
                        Case{"-1 day", "the interval is negative"},
                        Case{"1 hour -2 hours", "the interval is negative"},
                        Case{"1.5 days", "\"1.5\": only seconds may have a fraction"},
                        Case{"1. seconds", "\"1.\" is not a number of units"},
                        Case{"1.0123456789 seconds", "is not a number of units"},
                        Case{"--1 day", "is not a number of units"},
                        Case{"7", "has no unit"},
                        Case{"week 1", "\"week\" is not a number of units"},
                        Case{"99999999999999999999 days", "is not a number of units"},
                        Case{"9999999999999 weeks", "too long"}}) {
    auto millis = ParseIntervalMillis(c.text);
    ASSERT_FALSE(millis.ok()) << c.text;
    EXPECT_EQ(millis.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(millis.status().message().find(c.says), std::string::npos)
        << c.text << ": " << millis.status().message();
    EXPECT_NE(millis.status().message().find("\"" + std::string(c.text) + "\""),
              std::string::npos)
        << millis.status().message();
  }
}

TEST(DeletedFileRetentionMillisTest, DefaultsToAWeekAndNamesABadProperty) {
  Metadata m;
  EXPECT_EQ(*DeletedFileRetentionMillis(m), 7 * kDay);
  m.configuration["delta.deletedFileRetentionDuration"] = "interval 2 days";
  EXPECT_EQ(*DeletedFileRetentionMillis(m), 2 * kDay);
  m.configuration["delta.deletedFileRetentionDuration"] = "2 months";
  auto bad = DeletedFileRetentionMillis(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("delta.deletedFileRetentionDuration"), std::string::npos);
  EXPECT_NE(bad.status().message().find("\"2 months\""), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace deltacommit
