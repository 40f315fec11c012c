// The conditional-PUT probe logic, on fakes: a store that enforces
// If-None-Match, one that silently overwrites, and one that refuses it.
// (The real store is covered by tests/integration/s3_conditional_test.cc.)
#include "deltacommit/logstore/s3_conditional_log_store.h"

#include <gtest/gtest.h>

#include "deltacommit/log_path.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

// Accepts If-None-Match and overwrites anyway (seen in s3rver).
class OverwritingStore : public MemoryObjectStore {
 public:
  Status PutIfAbsent(std::string_view key, std::string_view data) override {
    return Put(key, data);
  }
};

// Refuses conditional PUTs (seen in Swift: 501).
class RefusingStore : public MemoryObjectStore {
 public:
  Status PutIfAbsent(std::string_view, std::string_view) override {
    return UnimplementedError("S3 PutObject: NotImplemented (HTTP 501)");
  }
};

class ConditionalLogStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetConditionalPutProbeCache(); }
};

TEST_F(ConditionalLogStoreTest, EnforcingStoreCommitsAndLeavesNoProbeBehind) {
  MemoryObjectStore store;
  S3ConditionalLogStore log(store, "http://e1", "b");
  ASSERT_TRUE(log.Write(0, "{}\n").ok());
  EXPECT_TRUE(log.Write(0, "{}\n").IsAlreadyExists());
  auto listed = store.List("_delta_log/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);  // only the commit; the probe was deleted
  EXPECT_EQ(listed->front().key, CommitPath(0));
}

TEST_F(ConditionalLogStoreTest, OverwritingStoreIsRefusedNamingSafeAlternatives) {
  OverwritingStore store;
  S3ConditionalLogStore log(store, "http://e2", "b");
  Status st = log.Write(0, "{}\n");
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("does not enforce"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3-dynamodb"), std::string::npos);
  EXPECT_NE(st.message().find("commit service"), std::string::npos);
  EXPECT_FALSE(store.Head(CommitPath(0)).ok());  // nothing committed
}

TEST_F(ConditionalLogStoreTest, RefusingStoreIsRefused) {
  RefusingStore store;
  S3ConditionalLogStore log(store, "http://e3", "b");
  Status st = log.Write(0, "{}\n");
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("501"), std::string::npos) << st.message();
}

TEST_F(ConditionalLogStoreTest, VerdictIsCachedPerEndpointAndBucket) {
  OverwritingStore bad;
  MemoryObjectStore good;
  S3ConditionalLogStore bad_log(bad, "http://same", "bucket-a");
  S3ConditionalLogStore good_log(good, "http://same", "bucket-b");
  EXPECT_FALSE(bad_log.Write(0, "x").ok());
  EXPECT_TRUE(good_log.Write(0, "x").ok());
  // A second store object for bucket-a reuses the cached refusal without
  // probing again (the probe would leave writes in `other`).
  MemoryObjectStore other;
  S3ConditionalLogStore cached(other, "http://same", "bucket-a");
  EXPECT_EQ(cached.Write(0, "x").code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(other.List("").value().empty());
}

}  // namespace
}  // namespace deltacommit
