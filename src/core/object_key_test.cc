#include <gtest/gtest.h>

#include <string>

#include "deltacommit/object_store.h"

namespace deltacommit {
namespace {

TEST(ValidateObjectKeyTest, AcceptsRelativeKeys) {
  for (const char* key :
       {"a", "_delta_log/00000000000000000000.json", "a/b/c",
        "_delta_log/.tmp/00000000000000000001.json.x", "part-0.parquet",
        "a/.hidden", "a/..dots", "a/b..", "x y/z%20"}) {
    EXPECT_TRUE(ValidateObjectKey(key).ok()) << key;
  }
}

TEST(ValidateObjectKeyTest, RejectsKeysOutsideTheTable) {
  for (const char* key : {"", "/abs", "../x", "a/../b", "a/..", "..", ".",
                          "./a", "a/./b", "a/.", "a//b", "a/", "//"}) {
    Status status = ValidateObjectKey(key);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(status.message().find("path outside the table"),
              std::string::npos)
        << status.message();
  }
}

TEST(ValidateObjectKeyTest, RejectsNulByte) {
  const std::string key("a\0b", 3);
  EXPECT_EQ(ValidateObjectKey(key).code(), StatusCode::kInvalidArgument);
}

TEST(ValidateObjectKeyTest, MessageNamesKeyAndRule) {
  EXPECT_EQ(ValidateObjectKey("a/../b").message(),
            "key \"a/../b\": path outside the table (\"..\" segment)");
  EXPECT_EQ(ValidateObjectKey("a//b").message(),
            "key \"a//b\": path outside the table (empty segment)");
  EXPECT_EQ(ValidateObjectKey("/abs").message(),
            "key \"/abs\": path outside the table (absolute path)");
}

}  // namespace
}  // namespace deltacommit
