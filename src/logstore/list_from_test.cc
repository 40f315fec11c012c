// List(from) in every LogStore that is not tested for it beside its own
// tests (object_store_log_store_test covers the key arithmetic): the log
// is listed from `from` only, and coordinated mode still merges the
// service's unpublished commits and still reads those below `from`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltacommit/commit_service_client.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/coordinated_log_store.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "deltacommit/logstore/service_log_store.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/forwarding_object_store.h"
#include "deltacommit/testing/memory_coordination_table.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;

constexpr char kTable[] = "s3://bucket/t";

std::string Staged(Version v) {
  return StagedCommitPath(v, "0a1b2c3d-0000-4000-8000-0000000000" + FormatVersion(v).substr(18));
}

// Records the start_after of each List.
class StartAfterRecorder : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after) override {
    start_afters.emplace_back(start_after);
    return ForwardingObjectStore::List(prefix, start_after);
  }
  std::vector<std::string> start_afters;
};

// A commit service that has ratified `latest` and not yet published
// `unpublished`; it answers like the real one (commits >= start only).
class FakeCommitService : public CommitServiceClient {
 public:
  std::string Describe() const override { return "fake commit service"; }
  std::string Url() const override { return "http://fake"; }
  ServiceCommitResult Commit(const ServiceCommitRequest&) override {
    ServiceCommitResult result;
    result.status = UnimplementedError("fake: no commits");
    return result;
  }
  StatusOr<PendingCommits> GetPendingCommits(std::string_view, Version start) override {
    starts.push_back(start);
    PendingCommits out;
    out.latest_version = latest;
    for (Version v : unpublished) {
      if (v >= start) out.commits.push_back({v, Staged(v), 10, 1000 + v});
    }
    return out;
  }

  Version latest = -1;
  std::vector<Version> unpublished;
  std::vector<Version> starts;
};

class ListFromTest : public ::testing::Test {
 protected:
  // Commits 0..published as v.json, a checkpoint at 5, the hint.
  void WriteLog(Version published) {
    for (Version v = 0; v <= published; ++v) ASSERT_TRUE(memory_.Put(CommitPath(v), "c").ok());
    ASSERT_TRUE(memory_.Put(ClassicCheckpointPath(5), "PAR1").ok());
    ASSERT_TRUE(memory_.Put(LastCheckpointPath(), R"({"version":5,"size":1})").ok());
  }

  static std::vector<std::string> Keys(const StatusOr<std::vector<ObjectMeta>>& listed) {
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    std::vector<std::string> keys;
    if (listed.ok()) {
      for (const ObjectMeta& m : *listed) keys.push_back(m.key);
    }
    return keys;
  }

  FakeClock clock_;
  MemoryObjectStore memory_{clock_};
  StartAfterRecorder store_{memory_};
};

TEST_F(ListFromTest, S3DynamoDbListsFromTheVersion) {
  WriteLog(7);
  MemoryCoordinationTable table;
  S3DynamoDbLogStore log(store_, table, {kTable, 86400}, clock_);
  EXPECT_THAT(Keys(log.List(6)), ElementsAre(CommitPath(6), CommitPath(7), LastCheckpointPath()));
  EXPECT_THAT(store_.start_afters, ElementsAre(LogListStartAfter(6)));
}

TEST_F(ListFromTest, ServiceModeListsFromTheVersion) {
  WriteLog(7);
  FakeCommitService service;
  ServiceLogStore log(store_, service, kTable);
  EXPECT_THAT(Keys(log.List(5)), ElementsAre(ClassicCheckpointPath(5), CommitPath(5), CommitPath(6),
                                             CommitPath(7), LastCheckpointPath()));
  EXPECT_THAT(store_.start_afters, ElementsAre(LogListStartAfter(5)));
}

TEST_F(ListFromTest, CoordinatedAsksTheServiceFromTheVersionAndMergesItsCommits) {
  WriteLog(6);  // 7 and 8 ratified, not yet published
  FakeCommitService service;
  service.latest = 8;
  service.unpublished = {7, 8};
  for (Version v : {7, 8}) ASSERT_TRUE(memory_.Put(Staged(v), "staged").ok());
  CoordinatedLogStore log(store_, service, kTable);
  EXPECT_THAT(Keys(log.List(5)), ElementsAre(ClassicCheckpointPath(5), CommitPath(5), CommitPath(6),
                                             LastCheckpointPath(), Staged(7), Staged(8)));
  EXPECT_THAT(service.starts, ElementsAre(5));
  EXPECT_THAT(store_.start_afters, ElementsAre(LogListStartAfter(5)));
}

TEST_F(ListFromTest, CoordinatedStillReadsUnpublishedCommitsBelowTheVersion) {
  // 4..8 ratified and unpublished: a checkpoint at 5 was written from a
  // snapshot that read them. Listing from 7 tells nothing about 4..6.
  WriteLog(3);
  FakeCommitService service;
  service.latest = 8;
  service.unpublished = {4, 5, 6, 7, 8};
  for (Version v = 4; v <= 8; ++v) {
    ASSERT_TRUE(memory_.Put(Staged(v), "staged " + std::to_string(v)).ok());
  }
  CoordinatedLogStore log(store_, service, kTable);
  EXPECT_THAT(Keys(log.List(7)), ElementsAre(LastCheckpointPath(), Staged(7), Staged(8)));
  auto five = log.Read(CommitPath(5));
  ASSERT_TRUE(five.ok()) << five.status().ToString();
  EXPECT_EQ(*five, "staged 5");
  // Reading 6 alone (start 6) does not show 4 and 5 published either.
  ASSERT_TRUE(log.Read(CommitPath(6)).ok());
  auto four = log.Read(CommitPath(4));
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(*four, "staged 4");
}

TEST_F(ListFromTest, CoordinatedListingFromPastTheLatestShowsNothingPublished) {
  WriteLog(3);
  FakeCommitService service;
  service.latest = 5;
  service.unpublished = {4, 5};
  for (Version v : {4, 5}) ASSERT_TRUE(memory_.Put(Staged(v), "staged").ok());
  CoordinatedLogStore log(store_, service, kTable);
  EXPECT_THAT(Keys(log.List(9)), ElementsAre(LastCheckpointPath()));
  auto four = log.Read(CommitPath(4));
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(*four, "staged");
}

}  // namespace
}  // namespace deltacommit
