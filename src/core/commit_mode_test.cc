#include "deltacommit/commit_mode.h"

#include <gtest/gtest.h>

#include <string>

namespace deltacommit {
namespace {

TEST(CommitModeTest, EveryModeParsesBackFromItsName) {
  for (CommitMode mode : kCommitModes) {
    std::optional<CommitMode> parsed = ParseCommitMode(CommitModeName(mode));
    ASSERT_TRUE(parsed.has_value()) << CommitModeName(mode);
    EXPECT_EQ(*parsed, mode);
  }
}

TEST(CommitModeTest, TheNamesAreTheOnesUsersType) {
  EXPECT_EQ(CommitModeName(CommitMode::kLocal), "local");
  EXPECT_EQ(CommitModeName(CommitMode::kS3Conditional), "s3-conditional");
  EXPECT_EQ(CommitModeName(CommitMode::kS3DynamoDb), "s3-dynamodb");
  EXPECT_EQ(CommitModeName(CommitMode::kService), "service");
  EXPECT_EQ(CommitModeName(CommitMode::kCoordinated), "coordinated");
  EXPECT_EQ(CommitModeName(CommitMode::kUnityCatalog), "unity-catalog");
}

TEST(CommitModeTest, UnknownAndMisspeltNamesAreRefused) {
  for (std::string name : {"", "dynamo", "S3-Conditional", "local ", "s3_dynamodb"}) {
    EXPECT_FALSE(ParseCommitMode(name).has_value()) << name;
  }
}

TEST(CommitModeTest, OnlyServiceAndCoordinatedUseTheCommitService) {
  EXPECT_TRUE(UsesCommitService(CommitMode::kService));
  EXPECT_TRUE(UsesCommitService(CommitMode::kCoordinated));
  EXPECT_FALSE(UsesCommitService(CommitMode::kLocal));
  EXPECT_FALSE(UsesCommitService(CommitMode::kS3Conditional));
  EXPECT_FALSE(UsesCommitService(CommitMode::kS3DynamoDb));
}

}  // namespace
}  // namespace deltacommit
