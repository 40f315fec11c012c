#include "service/commits/action_paths.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

constexpr char kTable[] = "s3://bucket/tables/events";

TEST(CheckPathInTableTest, RelativePathsInsideTheTableAreAccepted) {
  for (const char* path : {"part-0001.parquet", "date=2024-01-01/part-1.snappy.parquet",
                           "a%20b/c%3Ad.parquet", "deletion_vector_0a1b.bin"}) {
    EXPECT_TRUE(CheckPathInTable(kTable, path).ok()) << path;
  }
}

TEST(CheckPathInTableTest, AbsolutePathsUnderTheTableRootAreAcceptedInEveryS3Scheme) {
  for (const char* path : {"s3://bucket/tables/events/part-1.parquet",
                           "s3a://bucket/tables/events/d=1/part-1.parquet",
                           "s3n://bucket/tables/events/part-1.parquet"}) {
    EXPECT_TRUE(CheckPathInTable(kTable, path).ok()) << path;
  }
}

TEST(CheckPathInTableTest, PathsOutsideTheTableAreRefusedNamingThePath) {
  const struct {
    const char* path;
    const char* why;
  } cases[] = {
      {"../other/part-1.parquet", "segment"},
      {"d=1/../../other/x.parquet", "segment"},
      {"%2E%2E/other/x.parquet", "segment"},
      {"a%2F..%2Fb.parquet", "segment"},
      {"a//b.parquet", "segment"},
      {"./x.parquet", "segment"},
      {"/etc/passwd", "starts with '/'"},
      {"%2Fetc/passwd", "starts with '/'"},
      {"s3://bucket/tables/eventsX/part-1.parquet", "outside the table"},
      {"s3://bucket/tables/other/part-1.parquet", "outside the table"},
      {"s3://other-bucket/tables/events/part-1.parquet", "outside the table"},
      {"s3://bucket/tables/events/../other/x.parquet", "segment"},
      {"file:///tmp/x.parquet", "outside the table"},
      {"https://example.com/x.parquet", "outside the table"},
      {"x%zz.parquet", "hex digits"},
      {"x%2", "hex digits"},
      {"a\nb.parquet", "control character"},
      {"a%0Ab.parquet", "control character"},
  };
  for (const auto& c : cases) {
    Status status = CheckPathInTable(kTable, c.path);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.path;
    EXPECT_THAT(status.message(), HasSubstr(c.why)) << c.path;
    if (std::string_view(c.path).find('\n') == std::string_view::npos) {
      EXPECT_THAT(status.message(), HasSubstr(c.path));
    }
  }
  EXPECT_EQ(CheckPathInTable(kTable, "").code(), StatusCode::kInvalidArgument);
}

TEST(CheckActionPathsTest, ChecksAddRemoveCdcAndAbsoluteDeletionVectors) {
  AddFile add;
  add.path = "part-1.parquet";
  EXPECT_TRUE(CheckActionPaths(kTable, add).ok());
  add.deletion_vector = DeletionVectorDescriptor{"p", "s3://elsewhere/dv.bin", 1, 10, 1, {}};
  EXPECT_EQ(CheckActionPaths(kTable, add).code(), StatusCode::kInvalidArgument);
  add.deletion_vector->storage_type = "u";  // relative to the table by construction
  EXPECT_TRUE(CheckActionPaths(kTable, add).ok());

  RemoveFile remove;
  remove.path = "../x.parquet";
  EXPECT_EQ(CheckActionPaths(kTable, remove).code(), StatusCode::kInvalidArgument);
  AddCdcFile cdc;
  cdc.path = "s3://other/_change_data/x.parquet";
  EXPECT_EQ(CheckActionPaths(kTable, cdc).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CheckActionPaths(kTable, CommitInfo{}).ok());
}

}  // namespace
}  // namespace deltacommit::service
