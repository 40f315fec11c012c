// Parsing `_last_checkpoint`: what Spark, delta-rs and our writer put there
// parses; anything else is refused naming the field, so the loader lists
// the whole log instead.
#include "deltacommit/core/last_checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "deltacommit/checkpoint.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

LastCheckpoint MustParse(std::string_view json) {
  auto hint = ParseLastCheckpoint(json);
  EXPECT_TRUE(hint.ok()) << hint.status().ToString();
  return hint.ok() ? *hint : LastCheckpoint{};
}

TEST(LastCheckpointTest, SparkHintWithCheckpointSchemaParses) {
  LastCheckpoint hint = MustParse(
      R"({"version":10,"size":13,"sizeInBytes":16479,"numOfAddFiles":6,)"
      R"("checkpointSchema":{"type":"struct","fields":[{"name":"txn","type":"string",)"
      R"("nullable":true,"metadata":{}}]},"checksum":"d41d8cd98f00b204e9800998ecf8427e"})");
  EXPECT_EQ(hint.version, 10);
  EXPECT_EQ(hint.size, 13);
  EXPECT_EQ(hint.parts, std::nullopt);
  EXPECT_EQ(hint.size_in_bytes, 16479);
  EXPECT_EQ(hint.num_of_add_files, 6);
}

TEST(LastCheckpointTest, MinimalHintWithPartsParses) {
  LastCheckpoint hint = MustParse(R"({"version":1,"size":12,"parts":2})");
  EXPECT_EQ(hint.version, 1);
  EXPECT_EQ(hint.size, 12);
  EXPECT_EQ(hint.parts, 2);
  EXPECT_EQ(hint.size_in_bytes, std::nullopt);
}

TEST(LastCheckpointTest, V2CheckpointFieldAndNullOptionalsAreAccepted) {
  LastCheckpoint hint = MustParse(
      R"({"version":2,"size":9,"parts":null,"sizeInBytes":null,)"
      R"("v2Checkpoint":{"path":"00000000000000000002.checkpoint.u.json","nonFileActions":[]},)"
      R"("someFutureField":[1,2]})");
  EXPECT_EQ(hint.version, 2);
  EXPECT_EQ(hint.parts, std::nullopt);
  EXPECT_EQ(hint.size_in_bytes, std::nullopt);
}

TEST(LastCheckpointTest, WhatOurWriterWritesParsesBack) {
  CheckpointInfo info;
  info.version = 1990;
  info.size = 2003;
  info.parts = 4;
  info.size_in_bytes = 123456;
  info.num_of_add_files = 2000;
  LastCheckpoint hint = MustParse(LastCheckpointJson(info));
  EXPECT_EQ(hint.version, 1990);
  EXPECT_EQ(hint.size, 2003);
  EXPECT_EQ(hint.parts, 4);
  EXPECT_EQ(hint.size_in_bytes, 123456);
  EXPECT_EQ(hint.num_of_add_files, 2000);
}

struct Corrupt {
  const char* json;
  const char* message;  // part of the error
};

TEST(LastCheckpointTest, CorruptHintsAreInvalidArgumentNamingTheProblem) {
  for (const Corrupt& c : {
           Corrupt{"", "not valid JSON"},
           Corrupt{R"({"version":10,"size":1)", "not valid JSON"},
           Corrupt{"[10]", "not a JSON object"},
           Corrupt{"10", "not a JSON object"},
           Corrupt{R"({"size":13})", "\"version\" is missing"},
           Corrupt{R"({"version":null,"size":13})", "\"version\" is missing"},
           Corrupt{R"({"version":10})", "\"size\" is missing"},
           Corrupt{R"({"version":-1,"size":13})", "\"version\" must be an integer from 0"},
           Corrupt{R"({"version":"10","size":13})", "\"version\" must be an integer"},
           Corrupt{R"({"version":10.5,"size":13})", "\"version\" must be an integer"},
           Corrupt{R"({"version":18446744073709551615,"size":13})", "got 18446744073709551615"},
           Corrupt{R"({"version":10,"size":-2})", "\"size\" must be an integer from 0"},
           Corrupt{R"({"version":10,"size":13,"parts":0})", "\"parts\" must be an integer from 1"},
           Corrupt{R"({"version":10,"size":13,"parts":4294967296})", "\"parts\""},
           Corrupt{R"({"version":10,"size":13,"parts":"2"})", "\"parts\""},
           Corrupt{R"({"version":10,"size":13,"sizeInBytes":-1})", "\"sizeInBytes\""},
           Corrupt{R"({"version":10,"size":13,"numOfAddFiles":true})", "\"numOfAddFiles\""},
           Corrupt{R"({"version":10,"size":13,"version":11})", "\"version\" appears more than once"},
       }) {
    SCOPED_TRACE(c.json);
    auto hint = ParseLastCheckpoint(c.json);
    ASSERT_FALSE(hint.ok());
    EXPECT_EQ(hint.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(hint.status().message(), HasSubstr("_delta_log/_last_checkpoint"));
    EXPECT_THAT(hint.status().message(), HasSubstr(c.message));
  }
}

TEST(LastCheckpointTest, RepeatedKeysInsideNestedObjectsAreNotTopLevelDuplicates) {
  LastCheckpoint hint = MustParse(
      R"({"version":3,"size":1,"checkpointSchema":{"version":1,"x":{"version":2}}})");
  EXPECT_EQ(hint.version, 3);
}

}  // namespace
}  // namespace deltacommit
