#include "service/state/commit_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

constexpr char kUuid[] = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

CommitRecord Valid() {
  return {"s3://bucket/t",
          7,
          StagedCommitPath(7, kUuid),
          std::string(64, 'a'),
          123,
          1,
          2,
          false,
          {}};
}

TEST(CommitRecordTest, SameCommitComparesWhatTheWriterSent) {
  CommitRecord later = Valid();
  later.ratified_at_ms = 99;
  later.commit_timestamp_ms = 98;
  later.published = true;
  EXPECT_TRUE(
      SameCommit(Valid(), later));  // times and `published` are the store's

  CommitRecord other = Valid();
  other.staged_file =
      StagedCommitPath(7, "11111111-2222-3333-4444-555555555555");
  EXPECT_FALSE(SameCommit(Valid(), other));
  other = Valid();
  other.content_sha256 = std::string(64, 'b');
  EXPECT_FALSE(SameCommit(Valid(), other));
  other = Valid();
  other.size = 124;
  EXPECT_FALSE(SameCommit(Valid(), other));
  other = Valid();
  other.table = "s3://bucket/u";
  EXPECT_FALSE(SameCommit(Valid(), other));
}

TEST(CommitRecordTest, ValidRecordPasses) {
  EXPECT_TRUE(ValidateCommitRecord(Valid()).ok());
}

struct InvalidCase {
  const char* name;
  void (*spoil)(CommitRecord&);
  const char* message;
};

class InvalidRecordTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidRecordTest, IsInvalidArgumentNamingTheField) {
  CommitRecord record = Valid();
  GetParam().spoil(record);
  Status s = ValidateCommitRecord(record);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Fields, InvalidRecordTest,
    ::testing::Values(
        InvalidCase{"EmptyTable", [](CommitRecord& r) { r.table.clear(); },
                    "table is empty"},
        InvalidCase{"TrailingSlash", [](CommitRecord& r) { r.table += "/"; },
                    "ends in '/'"},
        InvalidCase{"NegativeVersion", [](CommitRecord& r) { r.version = -1; },
                    "version is negative"},
        InvalidCase{
            "StagedForAnotherVersion",
            [](CommitRecord& r) { r.staged_file = StagedCommitPath(8, kUuid); },
            "is staged for version 8"},
        InvalidCase{"NotStagedName",
                    [](CommitRecord& r) { r.staged_file = CommitPath(7); },
                    "is not _delta_log/_staged_commits/"},
        InvalidCase{"StagedNameOutsideTheLog",
                    [](CommitRecord& r) {
                      r.staged_file = r.staged_file.substr(kLogDir.size());
                    },
                    "is not _delta_log/_staged_commits/"},
        InvalidCase{
            "UpperCaseHash",
            [](CommitRecord& r) { r.content_sha256 = std::string(64, 'A'); },
            "content_sha256"},
        InvalidCase{"ShortHash",
                    [](CommitRecord& r) { r.content_sha256 = "abc"; },
                    "content_sha256 'abc' is not 64 lower-case hex digits"},
        InvalidCase{"NegativeSize", [](CommitRecord& r) { r.size = -1; },
                    "size is negative"}),
    [](const ::testing::TestParamInfo<InvalidCase>& param) {
      return param.param.name;
    });

TEST(CommitRecordTest, DescribeCommitNamesVersionTableAndObject) {
  EXPECT_EQ(DescribeCommit(Valid()),
            "version 7 of s3://bucket/t (" + StagedCommitPath(7, kUuid) +
                ", 123 bytes, sha256 " + std::string(64, 'a') + ")");
}

}  // namespace
}  // namespace deltacommit::service
