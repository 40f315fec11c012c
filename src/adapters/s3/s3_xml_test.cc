// The S3 XML replies we parse: ListObjectsV2 pages, taken strictly.
#include "deltacommit/s3/s3_xml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit::s3 {
namespace {

using ::testing::HasSubstr;

std::string Page(const std::string& contents, const std::string& tail = "") {
  return "<?xml version=\"1.0\"?><ListBucketResult>" + contents + tail + "</ListBucketResult>";
}

std::string Contents(const std::string& key, const std::string& size) {
  return "<Contents><Key>" + key + "</Key><Size>" + size +
         "</Size><LastModified>2026-11-30T12:00:00.250Z</LastModified></Contents>";
}

TEST(ParseListObjectsV2Test, ReadsKeysSizesAndTimes) {
  auto page = ParseListObjectsV2(Page(Contents("_delta_log/0.json", "123") +
                                      Contents("_delta_log/1.json", "0")));
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "_delta_log/0.json");
  EXPECT_EQ(page->objects[0].size, 123);
  EXPECT_EQ(page->objects[0].last_modified_ms % 1000, 250);
  EXPECT_EQ(page->objects[1].size, 0);
  EXPECT_TRUE(page->next_continuation_token.empty());
}

TEST(ParseListObjectsV2Test, ASizeThatIsNotAByteCountIsRefusedNamingTheObject) {
  for (const std::string size : {"-5", "", "12abc", "1e3", "99999999999999999999"}) {
    auto page = ParseListObjectsV2(Page(Contents("_delta_log/7.json", size)));
    ASSERT_FALSE(page.ok()) << size;
    EXPECT_EQ(page.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(page.status().message(),
                HasSubstr("object \"_delta_log/7.json\" has Size \"" + size + "\""));
  }
}

TEST(ParseListObjectsV2Test, AnObjectWithoutAKeyOrATruncatedPageWithoutATokenIsRefused) {
  EXPECT_EQ(ParseListObjectsV2(Page(Contents("", "1"))).status().code(), StatusCode::kDataLoss);
  auto truncated = ParseListObjectsV2(Page(Contents("a", "1"), "<IsTruncated>true</IsTruncated>"));
  EXPECT_THAT(truncated.status().message(), HasSubstr("without NextContinuationToken"));
  auto next = ParseListObjectsV2(Page(Contents("a", "1"), "<IsTruncated>true</IsTruncated>"
                                                          "<NextContinuationToken>t1"
                                                          "</NextContinuationToken>"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->next_continuation_token, "t1");
  EXPECT_FALSE(ParseListObjectsV2("not xml").ok());
}

}  // namespace
}  // namespace deltacommit::s3
