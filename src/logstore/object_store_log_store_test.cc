#include "deltacommit/logstore/object_store_log_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/testing/recording_step_hooks.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ObjectStoreLogStoreTest : public ::testing::Test {
 protected:
  std::vector<std::string> ListKeys(Version from) {
    StatusOr<std::vector<ObjectMeta>> listed = log_.List(from);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    std::vector<std::string> keys;
    if (listed.ok()) {
      for (const ObjectMeta& meta : *listed) keys.push_back(meta.key);
    }
    return keys;
  }

  MemoryObjectStore store_;
  RecordingStepHooks hooks_;
  ObjectStoreLogStore log_{store_, "local", &hooks_};
};

TEST_F(ObjectStoreLogStoreTest, DescribeNamesModeAndStore) {
  EXPECT_EQ(log_.Describe(), "local memory://");
}

TEST_F(ObjectStoreLogStoreTest, WriteCreatesCommitFile) {
  ASSERT_TRUE(log_.Write(7, "{\"add\":{}}\n").ok());
  EXPECT_EQ(*store_.Get("_delta_log/00000000000000000007.json"),
            "{\"add\":{}}\n");
  EXPECT_EQ(*log_.Read(CommitPath(7)), "{\"add\":{}}\n");
}

TEST_F(ObjectStoreLogStoreTest,
       SecondWriteOfVersionIsAlreadyExistsAndKeepsFirst) {
  ASSERT_TRUE(log_.Write(0, "first").ok());
  Status second = log_.Write(0, "second");
  EXPECT_TRUE(second.IsAlreadyExists()) << second.ToString();
  EXPECT_THAT(second.message(), ::testing::HasSubstr("version 0"));
  EXPECT_EQ(*log_.Read(CommitPath(0)), "first");
}

TEST_F(ObjectStoreLogStoreTest, NegativeVersionIsInvalidArgument) {
  EXPECT_EQ(log_.Write(-1, "x").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(hooks_.steps().empty());
}

TEST_F(ObjectStoreLogStoreTest, ReadOfMissingKeyIsNotFound) {
  EXPECT_TRUE(log_.Read(CommitPath(3)).status().IsNotFound());
}

TEST_F(ObjectStoreLogStoreTest, WriteRunsBeforeAndAfterPutSteps) {
  ASSERT_TRUE(log_.Write(0, "x").ok());
  EXPECT_THAT(hooks_.steps(),
              ElementsAre("objstore/before-put", "objstore/after-put"));
}

TEST_F(ObjectStoreLogStoreTest, CrashBeforePutLeavesNothingWritten) {
  hooks_.FailAt("objstore/before-put", UnavailableError("crash"));
  EXPECT_EQ(log_.Write(0, "x"), UnavailableError("crash"));
  EXPECT_THAT(*store_.List(""), IsEmpty());
  EXPECT_THAT(hooks_.steps(), ElementsAre("objstore/before-put"));
}

TEST_F(ObjectStoreLogStoreTest, CrashAfterPutLeavesCommitWritten) {
  hooks_.FailAt("objstore/after-put", UnavailableError("crash"));
  EXPECT_EQ(log_.Write(0, "x"), UnavailableError("crash"));
  EXPECT_EQ(*store_.Get(CommitPath(0)), "x");
}

TEST_F(ObjectStoreLogStoreTest, LostReplyIsUnknownOutcomeAndSkipsAfterPutStep) {
  FaultInjectingObjectStore faulty(store_);
  faulty.DropReplyOnNthCall(ObjectStoreOp::kPutIfAbsent, 1);
  ObjectStoreLogStore log(faulty, "local", &hooks_);
  EXPECT_TRUE(log.Write(0, "x").IsUnknownOutcome());
  EXPECT_EQ(*log.Read(CommitPath(0)), "x");
  EXPECT_THAT(hooks_.steps(), ElementsAre("objstore/before-put"));
}

TEST_F(ObjectStoreLogStoreTest, NullHooksAreAllowed) {
  ObjectStoreLogStore log(store_, "s3-conditional");
  ASSERT_TRUE(log.Write(1, "x").ok());
  EXPECT_THAT(ListKeys(0), ElementsAre(CommitPath(1)));
}

TEST(LogListStartAfterTest, SitsJustBeforeVersionFrom) {
  EXPECT_EQ(LogListStartAfter(0), "");
  EXPECT_EQ(LogListStartAfter(-5), "");
  EXPECT_EQ(LogListStartAfter(1), "_delta_log/00000000000000000000~");
  EXPECT_EQ(LogListStartAfter(100), "_delta_log/00000000000000000099~");
}

// Whether List(from) must return `key`: version >= from, or any name that
// does not start with a version (except '.' names, skipped when from > 0).
bool Expected(const std::string& key, Version from) {
  const std::string name = key.substr(kLogDir.size());
  if (name[0] >= '0' && name[0] <= '9')
    return std::stoll(name.substr(0, 20)) >= from;
  return from <= 0 || name[0] != '.';
}

TEST_F(ObjectStoreLogStoreTest,
       ListFromReturnsEveryLogFileOfVersionAtLeastFrom) {
  std::vector<std::string> keys;
  for (Version v = 0; v <= 12; ++v) keys.push_back(CommitPath(v));
  for (const std::string& key :
       {ClassicCheckpointPath(10), ChecksumPath(9),
        MultiPartCheckpointPath(11, 1, 2),
        std::string("_delta_log/"
                    "00000000000000000003.00000000000000000005.compacted.json"),
        LastCheckpointPath(),
        StagedCommitPath(13, "0a1b2c3d-0000-4000-8000-000000000000"),
        TempCommitPath(4, "0a1b2c3d-0000-4000-8000-000000000001"),
        std::string("_delta_log/.00000000000000000005.json.abc.tmp")}) {
    keys.push_back(key);
  }
  for (const std::string& key : keys)
    ASSERT_TRUE(store_.Put(key, "x").ok()) << key;
  ASSERT_TRUE(store_.Put("part-00000.parquet", "x").ok());  // outside the log
  std::sort(keys.begin(), keys.end());
  for (Version from = 0; from <= 14; ++from) {
    std::vector<std::string> expected;
    for (const std::string& key : keys) {
      if (Expected(key, from)) expected.push_back(key);
    }
    EXPECT_EQ(ListKeys(from), expected) << "from " << from;
  }
  EXPECT_THAT(ListKeys(13),
              ElementsAre(LastCheckpointPath(),
                          StagedCommitPath(
                              13, "0a1b2c3d-0000-4000-8000-000000000000")));
}

}  // namespace
}  // namespace deltacommit
