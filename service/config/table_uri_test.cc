#include "service/config/table_uri.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Normalized(std::string_view uri) {
  StatusOr<TableUri> table = NormalizeTableUri(uri);
  EXPECT_TRUE(table.ok()) << uri << ": " << table.status().ToString();
  return table.ok() ? table->uri : "";
}

std::string Refusal(std::string_view uri) {
  StatusOr<TableUri> table = NormalizeTableUri(uri);
  EXPECT_FALSE(table.ok()) << uri << " was accepted as "
                           << (table.ok() ? table->uri : "");
  if (table.ok()) return "";
  EXPECT_EQ(table.status().code(), StatusCode::kInvalidArgument);
  return table.status().message();
}

TEST(NormalizeTableUriTest, SplitsBucketAndPrefix) {
  StatusOr<TableUri> table = NormalizeTableUri("s3://analytics/events/daily");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->uri, "s3://analytics/events/daily");
  EXPECT_EQ(table->bucket, "analytics");
  EXPECT_EQ(table->key_prefix, "events/daily");
}

TEST(NormalizeTableUriTest, HadoopSchemesAndCaseBecomeS3) {
  EXPECT_EQ(Normalized("s3a://analytics/events"), "s3://analytics/events");
  EXPECT_EQ(Normalized("s3n://analytics/events"), "s3://analytics/events");
  EXPECT_EQ(Normalized("S3A://analytics/events"), "s3://analytics/events");
}

TEST(NormalizeTableUriTest, OneTrailingSlashIsDropped) {
  EXPECT_EQ(Normalized("s3://analytics/events/"), "s3://analytics/events");
  EXPECT_EQ(Normalized("s3://analytics/"), "s3://analytics");
  EXPECT_EQ(Normalized("s3://analytics"), "s3://analytics");
}

TEST(NormalizeTableUriTest, KeyCharactersAreKeptVerbatim) {
  // Case, '=' partitions, a literal '%' not forming a dangerous escape, UTF-8.
  EXPECT_EQ(
      Normalized("s3://b-1.x/Events/date=2024-01-01/a%20b/%zz/caf\xc3\xa9"),
      "s3://b-1.x/Events/date=2024-01-01/a%20b/%zz/caf\xc3\xa9");
  EXPECT_EQ(Normalized("s3://bkt/ends-with-percent%"),
            "s3://bkt/ends-with-percent%");
  EXPECT_EQ(Normalized("s3://bkt/a%2"), "s3://bkt/a%2");
}

TEST(NormalizeTableUriTest, RefusesOtherSchemes) {
  for (std::string_view uri :
       {"http://bucket/t", "gs://bucket/t", "bucket/t", "/tmp/t", "s3:/bucket/t", ""}) {
    EXPECT_THAT(Refusal(uri), HasSubstr("is not a table URI the service takes")) << uri;
  }
}

TEST(NormalizeTableUriTest, LocalTablesAreAbsolutePathsWithPlainSegments) {
  StatusOr<TableUri> table = NormalizeTableUri("file:///srv/tables/events/");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->uri, "file:///srv/tables/events");
  EXPECT_EQ(table->local_path, "/srv/tables/events");
  EXPECT_TRUE(table->is_local());
  EXPECT_TRUE(table->bucket.empty());
  EXPECT_EQ(Normalized("FILE:///srv/t"), "file:///srv/t");
  // Hadoop's Path.toUri spelling, as Delta Spark sends a table_uri.
  EXPECT_EQ(Normalized("file:/srv/t"), "file:///srv/t");
  EXPECT_EQ(Normalized("file:/srv/t/"), "file:///srv/t");
  EXPECT_FALSE(NormalizeTableUri("s3://bucket/t")->is_local());
}

TEST(NormalizeTableUriTest, RefusesLocalTablesThatCouldLeaveTheirPath) {
  EXPECT_THAT(Refusal("file://host/srv/t"), HasSubstr("no host name"));
  EXPECT_THAT(Refusal("file://srv/t"), HasSubstr("no host name"));
  EXPECT_THAT(Refusal("file:///"), HasSubstr("the file system's root"));
  EXPECT_THAT(Refusal("file:///srv/../etc"), HasSubstr("\"..\" segment"));
  EXPECT_THAT(Refusal("file:///srv/./t"), HasSubstr("\".\" segment"));
  EXPECT_THAT(Refusal("file:///srv//t"), HasSubstr("empty path segment"));
  EXPECT_THAT(Refusal("file:///srv/t/_delta_log"), HasSubstr("_delta_log"));
  EXPECT_THAT(Refusal("file:///srv/%2E%2E/etc"), HasSubstr("%2E"));
  EXPECT_THAT(Refusal("file:///srv\\t"), HasSubstr("'\\'"));
  EXPECT_THAT(Refusal("file:///srv/a/t1?x"), HasSubstr("query or fragment"));
  EXPECT_THAT(Refusal("file:///srv/a/t1#x"), HasSubstr("query or fragment"));
  EXPECT_THAT(Refusal("file:///srv/a/t 1"), HasSubstr("contains spaces"));
  EXPECT_THAT(Refusal("file:/srv/../etc"), HasSubstr("\"..\" segment"));
  EXPECT_THAT(Refusal("file:/"), HasSubstr("the file system's root"));
}

TEST(NormalizeTableUriTest, RefusesBadBucketNames) {
  EXPECT_THAT(Refusal("s3:///t"), HasSubstr("has no bucket name"));
  EXPECT_THAT(Refusal("s3://ab/t"), HasSubstr("3 to 63 characters"));
  EXPECT_THAT(Refusal("s3://" + std::string(64, 'a') + "/t"),
              HasSubstr("3 to 63 characters"));
  EXPECT_EQ(Normalized("s3://" + std::string(63, 'a')),
            "s3://" + std::string(63, 'a'));
  EXPECT_THAT(Refusal("s3://Analytics/t"),
              HasSubstr("lower-case letters, digits"));
  EXPECT_THAT(Refusal("s3://my_bucket/t"),
              HasSubstr("lower-case letters, digits"));
  EXPECT_THAT(Refusal("s3://-bucket/t"),
              HasSubstr("begin and end with a letter or digit"));
  EXPECT_THAT(Refusal("s3://a..b/t"), HasSubstr("must not contain \"..\""));
  EXPECT_THAT(Refusal("s3://192.168.1.1/t"), HasSubstr("IP address"));
  EXPECT_THAT(Refusal("s3://user@bucket/t"), HasSubstr("invalid bucket name"));
  EXPECT_THAT(Refusal("s3://bucket:443/t"), HasSubstr("invalid bucket name"));
}

TEST(NormalizeTableUriTest, RefusesDotAndEmptySegments) {
  for (std::string_view uri :
       {"s3://bkt/a/../b", "s3://bkt/..", "s3://bkt/./a", "s3://bkt/a/.",
        "s3://bkt/a/..", "s3://bkt/../other-table"}) {
    EXPECT_THAT(Refusal(uri), HasSubstr("\"..\" segment")) << uri;
  }
  for (std::string_view uri :
       {"s3://bkt//a", "s3://bkt/a//b", "s3://bkt/a//", "s3://bkt//"}) {
    EXPECT_THAT(Refusal(uri), HasSubstr("empty path segment (\"//\")")) << uri;
  }
}

TEST(NormalizeTableUriTest, RefusesEncodedSeparatorsAndDots) {
  for (std::string_view escape :
       {"%2F", "%2f", "%5C", "%5c", "%2E", "%2e", "%25", "%00", "%0a", "%7F"}) {
    std::string uri = "s3://bkt/a" + std::string(escape) + "b";
    EXPECT_THAT(Refusal(uri),
                AllOf(HasSubstr("contains \"" + std::string(escape) + "\""),
                      HasSubstr("percent-encoded")))
        << uri;
  }
  EXPECT_THAT(Refusal("s3://bkt/%2E%2E/other"), HasSubstr("%2E"));
  EXPECT_THAT(Refusal("s3://bkt/a%252Fb"), HasSubstr("%25"));
}

TEST(NormalizeTableUriTest, RefusesBackslashes) {
  EXPECT_THAT(Refusal("s3://bkt/a\\..\\b"), HasSubstr("contains a '\\'"));
  EXPECT_THAT(Refusal("s3://bkt\\other/t"), HasSubstr("contains a '\\'"));
}

TEST(NormalizeTableUriTest,
     RefusesControlCharactersAndEscapesThemInTheMessage) {
  std::string message = Refusal(std::string("s3://bkt/a\nb", 12));
  EXPECT_THAT(message, AllOf(HasSubstr("control character"),
                             HasSubstr("a\\x0ab"), Not(HasSubstr("\n"))));
  EXPECT_THAT(Refusal(std::string("s3://bkt/a\0b", 12)), HasSubstr("a\\x00b"));
  EXPECT_THAT(Refusal("s3://bkt/a\x7f"), HasSubstr("control character"));
  EXPECT_THAT(Refusal("s3://bkt/a\tb"), HasSubstr("control character"));
  EXPECT_THAT(Refusal("s3://bkt/a b"),
              HasSubstr("spaces or control characters"));
}

TEST(NormalizeTableUriTest, RefusesQueriesAndFragments) {
  EXPECT_THAT(Refusal("s3://bkt/t?versionId=1"),
              HasSubstr("query or fragment"));
  EXPECT_THAT(Refusal("s3://bkt/t#x"), HasSubstr("query or fragment"));
}

TEST(NormalizeTableUriTest, RefusesATableInsideALog) {
  EXPECT_THAT(Refusal("s3://bkt/t/_delta_log"),
              HasSubstr("\"_delta_log\" segment"));
  EXPECT_THAT(Refusal("s3://bkt/t/_delta_log/_staged_commits"),
              HasSubstr("\"_delta_log\" segment"));
  EXPECT_EQ(Normalized("s3://bkt/t/_delta_logs"), "s3://bkt/t/_delta_logs");
}

TEST(NormalizeTableUriTest, LengthLimitIsExactAndTheMessageIsShort) {
  std::string at_limit = "s3://bkt/" + std::string(kMaxTableUriLength - 9, 'x');
  ASSERT_EQ(at_limit.size(), kMaxTableUriLength);
  EXPECT_EQ(Normalized(at_limit), at_limit);
  std::string message = Refusal(at_limit + "y");
  EXPECT_THAT(message, HasSubstr("is 1025 bytes long; the limit is 1024"));
  EXPECT_LT(message.size(), 400u);
}

TEST(TablePrefixCoversTest, MatchesOnlyAtSegmentBoundaries) {
  auto covers = [](std::string_view prefix, std::string_view uri) {
    StatusOr<TableUri> table = NormalizeTableUri(uri);
    EXPECT_TRUE(table.ok()) << uri;
    return table.ok() && TablePrefixCovers(prefix, *table);
  };
  EXPECT_TRUE(covers("s3://bk1/data", "s3://bk1/data"));
  EXPECT_TRUE(covers("s3://bk1/data", "s3://bk1/data/x"));
  EXPECT_TRUE(covers("s3://bk1/data", "s3://bk1/data/x/y"));
  EXPECT_FALSE(covers("s3://bk1/data", "s3://bk1/database"));
  EXPECT_FALSE(covers("s3://bk1/data", "s3://bk1/dat"));
  EXPECT_FALSE(covers("s3://bk1/data", "s3://bk1/data-old"));
  EXPECT_FALSE(covers("s3://bk1/data", "s3://bk1"));
  EXPECT_FALSE(covers("s3://bk1/data", "s3://bk1x/data"));
  EXPECT_FALSE(covers("s3://bk1/data/x", "s3://bk1/data"));
  EXPECT_TRUE(covers("s3://bk1", "s3://bk1"));
  EXPECT_TRUE(covers("s3://bk1", "s3://bk1/anything"));
  EXPECT_FALSE(covers("s3://bk1", "s3://bk12/anything"));
  // Normalised before matching: s3a and a trailing '/' cannot dodge the check.
  EXPECT_TRUE(covers("s3://bk1/data", "s3a://bk1/data/"));
}

std::string Staged(Version version) {
  return StagedCommitPath(version, NewUuid());
}

TEST(ValidateStagedCommitKeyTest, AcceptsTheStagedNameForTheVersion) {
  EXPECT_TRUE(ValidateStagedCommitKey(Staged(7), 7).ok());
  EXPECT_TRUE(ValidateStagedCommitKey(Staged(0), 0).ok());
  EXPECT_TRUE(
      ValidateStagedCommitKey("_delta_log/_staged_commits/00000000000000000007."
                              "0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9.json",
                              7)
          .ok());
}

TEST(ValidateStagedCommitKeyTest, RefusesAnotherVersion) {
  Status status = ValidateStagedCommitKey(Staged(8), 7);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("names version 8 but the commit is for version 7"));
}

TEST(ValidateStagedCommitKeyTest, RefusesOtherLogFilesAndNames) {
  std::string uuid = NewUuid();
  for (const std::string& key : std::vector<std::string>{
           CommitPath(7), "00000000000000000007.json",
           "_delta_log/_staged_commits/7." + uuid + ".json",
           "_delta_log/_staged_commits/00000000000000000007." + uuid +
               ".parquet",
           "_delta_log/_staged_commits/00000000000000000007.not-a-uuid.json",
           "_delta_log/_staged_commits/00000000000000000007.json",
           "_delta_log/_staged_commits/." + Staged(7).substr(27) + ".tmp",
           "_delta_log/_sidecars/00000000000000000007." + uuid + ".json",
           "_delta_log/_staged_commits/x/00000000000000000007." + uuid +
               ".json",
           "data/_delta_log/_staged_commits/00000000000000000007." + uuid +
               ".json",
           TempCommitPath(7, uuid)}) {
    Status status = ValidateStagedCommitKey(key, 7);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr("staged commit"),
                      HasSubstr("_delta_log/_staged_commits/"
                                "00000000000000000007.<uuid>.json")))
        << key;
  }
}

TEST(ValidateStagedCommitKeyTest, RefusesTraversal) {
  std::string name =
      Staged(7).substr(std::string("_delta_log/_staged_commits/").size());
  for (const std::string& key : std::vector<std::string>{
           "_delta_log/_staged_commits/../../other/_delta_log/"
           "_staged_commits/" +
               name,
           "_delta_log/../_delta_log/_staged_commits/" + name,
           "/_delta_log/_staged_commits/" + name,
           "_delta_log//_staged_commits/" + name,
           "_delta_log/./_staged_commits/" + name,
           "../t2/_delta_log/_staged_commits/" + name}) {
    Status status = ValidateStagedCommitKey(key, 7);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_THAT(status.message(), HasSubstr("path outside the table")) << key;
  }
}

TEST(ValidateStagedCommitKeyTest, RefusesControlCharactersWithoutEchoingThem) {
  Status status =
      ValidateStagedCommitKey(Staged(7) + std::string("\n\0x", 3), 7);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("control character"), HasSubstr("\\x0a"),
                    Not(HasSubstr("\n"))));
  status = ValidateStagedCommitKey(std::string(5000, 'a'), 7);
  EXPECT_THAT(status.message(), HasSubstr("is too long"));
  EXPECT_LT(status.message().size(), 400u);
}

}  // namespace
}  // namespace deltacommit::service
