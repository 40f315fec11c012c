// The `coordinated` log store: staged commits ratified by the (scripted)
// commit service over HTTP, and readers that merge the service's unpublished
// commits into the object store's listing.
#include "deltacommit/logstore/coordinated_log_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "deltacommit/log_path.h"
#include "deltacommit/service_client/log_store_test_util.h"
#include "deltacommit/testing/forwarding_object_store.h"
#include "service/testing/client/service_test_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// Runs `before_list` before each List (a publisher acting between the
// service's answer and the listing).
class ListHookStore : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  std::function<void()> before_list;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after) override {
    if (before_list) before_list();
    return ForwardingObjectStore::List(prefix, start_after);
  }
};

class CoordinatedLogStoreTest : public ServiceFixture {
 protected:
  void SetUp() override {
    ServiceFixture::SetUp();
    client_ = MakeClient();
    log_ = std::make_unique<CoordinatedLogStore>(hooked_, *client_, std::string(kTable));
    // The staged path; appends go inline (service_log_store_test, serve).
    log_->DisableAssignedVersions();
    auto created = CreateTable(*log_, clock_, sleeper_);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  StatusOr<CommitOutcome> AppendToLatest(const std::string& path) {
    return Append(*log_, LatestSnapshot(*log_), {path}, clock_, sleeper_);
  }

  std::vector<std::string> StagedFiles() {
    return Keys(store_.List("_delta_log/_staged_commits/").value());
  }

  ListHookStore hooked_{store_};
  std::unique_ptr<service_client::HttpCommitServiceClient> client_;
  std::unique_ptr<CoordinatedLogStore> log_;
};

TEST_F(CoordinatedLogStoreTest, VersionZeroIsCreatedInTheStoreNotThroughTheService) {
  EXPECT_TRUE(store_.Head(CommitPath(0)).ok());
  EXPECT_EQ(service_.requests().size(), 0u);
  EXPECT_EQ(log_->Write(0, "{}\n").code(), StatusCode::kAlreadyExists);
}

TEST_F(CoordinatedLogStoreTest, ACommitIsStagedRatifiedAndReadableBeforeItIsPublished) {
  auto outcome = AppendToLatest("a.parquet");
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->version, 1);
  ASSERT_THAT(StagedFiles(), SizeIs(1));
  const std::string staged = StagedFiles()[0];
  EXPECT_THAT(staged, StartsWith("_delta_log/_staged_commits/00000000000000000001."));
  ASSERT_EQ(service_.CountRequests("POST"), 1u);
  EXPECT_EQ(Body(service_.requests().back())["staged_file"], staged);
  EXPECT_FALSE(store_.Head(CommitPath(1)).ok()) << "not published yet";
  // Listed under its staged key, and read through it or through 1.json.
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_THAT(Keys(*listing), ElementsAre(CommitPath(0), staged));
  auto read = log_->Read(CommitPath(1));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, store_.Get(staged).value());
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->active_files().size(), 1u);
  // Once published, the listing names 1.json.
  ASSERT_TRUE(service_.Publish(1).ok());
  EXPECT_THAT(Keys(log_->List(0).value()), ElementsAre(CommitPath(0), CommitPath(1)));
  EXPECT_EQ(LatestSnapshot(*log_)->version(), 1);
}

TEST_F(CoordinatedLogStoreTest, AWriterThatLostItsVersionRebasesOnTheUnpublishedWinner) {
  auto stale = LatestSnapshot(*log_);
  ASSERT_TRUE(Append(*log_, stale, {"a.parquet"}, clock_, sleeper_).ok());
  auto outcome = Append(*log_, stale, {"b.parquet"}, clock_, sleeper_);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 2);
  EXPECT_EQ(outcome->rebases, 1);
  // The loser's staged file for version 1 was removed; two remain.
  EXPECT_THAT(StagedFiles(), SizeIs(2));
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 2);
  EXPECT_EQ(snapshot->active_files().size(), 2u);
}

TEST_F(CoordinatedLogStoreTest, ALostReplyIsSettledByReadingTheUnpublishedVersionBack) {
  service_.ReplaceCommitAnswers(4, ApiError(502, "bad_gateway", "proxy lost the answer"));
  auto outcome = AppendToLatest("a.parquet");
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 1);
  EXPECT_EQ(service_.latest_version(), 1);
  EXPECT_THAT(StagedFiles(), SizeIs(1)) << "the same staged name was resent";
}

TEST_F(CoordinatedLogStoreTest, AVersionPublishedBetweenTheAnswerAndTheListingIsListedOnce) {
  ASSERT_TRUE(AppendToLatest("a.parquet").ok());
  ASSERT_TRUE(AppendToLatest("b.parquet").ok());
  const std::vector<std::string> staged = StagedFiles();
  ASSERT_THAT(staged, SizeIs(2));
  // The publisher copies 1 and removes its staged object after the service
  // named it unpublished, before the store is listed.
  hooked_.before_list = [&] {
    hooked_.before_list = nullptr;
    ASSERT_TRUE(service_.Publish(1).ok());
    ASSERT_TRUE(store_.Delete(staged[0]).ok());
  };
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_THAT(Keys(*listing), ElementsAre(CommitPath(0), staged[0], staged[1]));
  // The staged key is gone, so reading it reads 1.json.
  auto snapshot = LoadSnapshot(*log_, {});
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), 2);
  EXPECT_EQ((*snapshot)->active_files().size(), 2u);
}

TEST_F(CoordinatedLogStoreTest, FilesAboveTheRatifiedVersionAndUnratifiedStagedFilesAreIgnored) {
  ASSERT_TRUE(AppendToLatest("a.parquet").ok());  // version 1, unpublished
  const std::string ratified = StagedFiles().at(0);
  // Written around the coordinator: a commit at the unpublished version 1,
  // commits and a checkpoint above it, and a staged file never ratified.
  const std::string commit = "{\"add\":{\"path\":\"rogue.parquet\",\"partitionValues\":{},"
                             "\"size\":1,\"modificationTime\":1,\"dataChange\":true}}\n";
  for (Version v : {1, 2, 3}) ASSERT_TRUE(store_.Put(CommitPath(v), commit).ok());
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(3), "PAR1").ok());
  ASSERT_TRUE(store_.Put(StagedCommitPath(2, NewUuid()), commit).ok());
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_THAT(Keys(*listing), ElementsAre(CommitPath(0), ratified));
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->active_files().begin()->second.path, "a.parquet");
  EXPECT_EQ(log_->Read(CommitPath(1)).value(), store_.Get(ratified).value());
  Status above = log_->Read(CommitPath(2)).status();
  EXPECT_EQ(above.code(), StatusCode::kNotFound);
  EXPECT_THAT(above.message(), HasSubstr("not ratified"));
  // The next commit is ratified as 2 and wins over the file at 2.json.
  auto outcome = Append(*log_, snapshot, {"b.parquet"}, clock_, sleeper_);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->version, 2);
  EXPECT_EQ(LatestSnapshot(*log_)->active_files().size(), 2u);
}

TEST_F(CoordinatedLogStoreTest, MoreUnpublishedCommitsThanOneAnswerListsAreAllRead) {
  service_.LimitPendingAnswers(2);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(AppendToLatest("f" + std::to_string(i)).ok());
  const std::vector<std::string> staged = StagedFiles();
  ASSERT_THAT(staged, SizeIs(5));
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  EXPECT_THAT(Keys(*listing), ElementsAre(CommitPath(0), staged[0], staged[1], staged[2],
                                          staged[3], staged[4]));
  auto snapshot = LatestSnapshot(*log_);
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->version(), 5);
  EXPECT_EQ(snapshot->active_files().size(), 5u);
}

TEST_F(CoordinatedLogStoreTest, WithNothingRatifiedTheListingIsTheLog) {
  // Version 0 only, created in the store: the service says latest -1.
  auto listing = log_->List(0);
  ASSERT_TRUE(listing.ok());
  EXPECT_THAT(Keys(*listing), ElementsAre(CommitPath(0)));
  EXPECT_TRUE(log_->ListsRatifiedStagedCommits());
}

TEST(MergeCoordinatedListingTest, KeepsOtherFilesAndSortsByKey) {
  const std::string staged = StagedCommitPath(3, "3a0d65cd-4056-49b8-937b-95f9e3ee90e5");
  const std::string temp = TempCommitPath(5, "0c6e1b8e-8f0e-4a57-9a55-4b1d0a1c2e3f");
  PendingCommits pending{3, {PendingCommit{3, staged, 9, 5}}};
  std::vector<ObjectMeta> listing = {{CommitPath(2), 1, 1},
                                     {ClassicCheckpointPath(2), 1, 1},
                                     {CommitPath(4), 1, 1},
                                     {LastCheckpointPath(), 1, 1},
                                     {temp, 1, 1}};
  std::vector<ObjectMeta> merged = MergeCoordinatedListing(listing, pending);
  EXPECT_THAT(Keys(merged), ElementsAre(temp, ClassicCheckpointPath(2), CommitPath(2),
                                        LastCheckpointPath(), staged));
  EXPECT_EQ(merged.back(), (ObjectMeta{staged, 9, 5}));
  EXPECT_THAT(MergeCoordinatedListing({}, PendingCommits{}), IsEmpty());
}

}  // namespace
}  // namespace deltacommit::testing
