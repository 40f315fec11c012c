#include "deltacommit/log_segment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::string_view kTable = "memory://t";
constexpr std::string_view kUuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";

ObjectMeta Meta(std::string key) {
  return ObjectMeta{std::move(key), 10, 1000};
}

// A listing of the commits from..to (inclusive).
std::vector<ObjectMeta> Commits(Version from, Version to) {
  std::vector<ObjectMeta> out;
  for (Version v = from; v <= to; ++v) out.push_back(Meta(CommitPath(v)));
  return out;
}

std::vector<ObjectMeta> Concat(std::vector<ObjectMeta> a,
                               const std::vector<ObjectMeta>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> Keys(const std::vector<ObjectMeta>& metas) {
  std::vector<std::string> keys;
  for (const ObjectMeta& m : metas) keys.push_back(m.key);
  return keys;
}

std::vector<std::string> CommitKeys(Version from, Version to) {
  return Keys(Commits(from, to));
}

StatusOr<LogSegment> Build(const std::vector<ObjectMeta>& listing,
                           std::optional<Version> version = std::nullopt,
                           bool can_read_checkpoints = true) {
  LogSegmentRequest request;
  request.version = version;
  request.can_read_checkpoints = can_read_checkpoints;
  return BuildLogSegment(listing, request, kTable);
}

// --- Versions ----------------------------------------------------------------

TEST(LogSegmentTest, LatestVersionReplaysEveryCommitFromZero) {
  StatusOr<LogSegment> seg = Build(Commits(0, 3));
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 3);
  EXPECT_EQ(seg->checkpoint_version, std::nullopt);
  EXPECT_THAT(seg->checkpoint_files, IsEmpty());
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 3));
}

TEST(LogSegmentTest, ExplicitVersionStopsAtThatCommit) {
  StatusOr<LogSegment> seg = Build(Commits(0, 3), 1);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 1);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 1));
}

TEST(LogSegmentTest, VersionZeroOfSingleCommitTable) {
  StatusOr<LogSegment> seg = Build(Commits(0, 0), 0);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 0);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 0));
}

TEST(LogSegmentTest, VersionAboveLatestIsNotFoundNamingLatest) {
  StatusOr<LogSegment> seg = Build(Commits(0, 3), 7);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(seg.status().message(), HasSubstr("version 7"));
  EXPECT_THAT(seg.status().message(), HasSubstr("latest is 3"));
  EXPECT_THAT(seg.status().message(), HasSubstr(kTable));
}

TEST(LogSegmentTest, NegativeVersionIsNotFound) {
  StatusOr<LogSegment> seg = Build(Commits(0, 3), -1);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
}

TEST(LogSegmentTest, EmptyListingIsNotFoundNoDeltaTable) {
  StatusOr<LogSegment> seg = Build({});
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(seg.status().message(), HasSubstr("no Delta table"));
  EXPECT_THAT(seg.status().message(), HasSubstr(kTable));
}

TEST(LogSegmentTest, ListingWithoutCommitsOrCheckpointsIsNotFoundNoDeltaTable) {
  StatusOr<LogSegment> seg = Build(
      {Meta(LastCheckpointPath()), Meta(ChecksumPath(0)),
       Meta(StagedCommitPath(0, kUuid)), Meta("part-00000.snappy.parquet")});
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(seg.status().message(), HasSubstr("no Delta table"));
}

// --- Gaps --------------------------------------------------------------------

TEST(LogSegmentTest, GapIsFailedPreconditionNamingMissingFile) {
  StatusOr<LogSegment> seg = Build(Concat(Commits(0, 1), Commits(3, 4)));
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(seg.status().message(), HasSubstr(CommitPath(2)));
  EXPECT_THAT(seg.status().message(), HasSubstr("not contiguous"));
}

TEST(LogSegmentTest, GapAboveRequestedVersionDoesNotMatter) {
  StatusOr<LogSegment> seg = Build(Concat(Commits(0, 1), Commits(3, 4)), 1);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 1));
}

TEST(LogSegmentTest, MissingFirstCommitWithoutCheckpointNamesVersionZero) {
  StatusOr<LogSegment> seg = Build(Commits(1, 3));
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(seg.status().message(), HasSubstr(CommitPath(0)));
}

// --- Checkpoints -------------------------------------------------------------

TEST(LogSegmentTest, ClassicCheckpointIsUsedWithOnlyTheCommitsAfterIt) {
  StatusOr<LogSegment> seg =
      Build(Concat(Commits(0, 5), {Meta(ClassicCheckpointPath(3))}));
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 5);
  EXPECT_EQ(seg->checkpoint_version, 3);
  EXPECT_THAT(Keys(seg->checkpoint_files),
              ElementsAre(ClassicCheckpointPath(3)));
  EXPECT_EQ(Keys(seg->commits), CommitKeys(4, 5));
}

TEST(LogSegmentTest, CheckpointMakesCleanedUpHistoryReadable) {
  StatusOr<LogSegment> seg =
      Build(Concat({Meta(ClassicCheckpointPath(3))}, Commits(4, 5)));
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, 3);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(4, 5));
}

TEST(LogSegmentTest, CheckpointAtRequestedVersionNeedsNoCommits) {
  StatusOr<LogSegment> seg =
      Build(Concat(Commits(0, 5), {Meta(ClassicCheckpointPath(3))}), 3);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 3);
  EXPECT_EQ(seg->checkpoint_version, 3);
  EXPECT_THAT(seg->commits, IsEmpty());
}

TEST(LogSegmentTest, CheckpointAloneIsTheLatestVersion) {
  StatusOr<LogSegment> seg = Build({Meta(ClassicCheckpointPath(4))});
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 4);
  EXPECT_EQ(seg->checkpoint_version, 4);
  EXPECT_THAT(seg->commits, IsEmpty());
}

TEST(LogSegmentTest, NewestCompleteCheckpointAtOrBelowTargetIsChosen) {
  const std::vector<ObjectMeta> listing =
      Concat(Commits(0, 7),
             {Meta(ClassicCheckpointPath(2)), Meta(ClassicCheckpointPath(5))});
  StatusOr<LogSegment> at4 = Build(listing, 4);
  ASSERT_TRUE(at4.ok()) << at4.status().ToString();
  EXPECT_EQ(at4->checkpoint_version, 2);
  EXPECT_EQ(Keys(at4->commits), CommitKeys(3, 4));

  StatusOr<LogSegment> at5 = Build(listing, 5);
  ASSERT_TRUE(at5.ok()) << at5.status().ToString();
  EXPECT_EQ(at5->checkpoint_version, 5);
  EXPECT_THAT(at5->commits, IsEmpty());

  StatusOr<LogSegment> latest = Build(listing);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->checkpoint_version, 5);
  EXPECT_EQ(Keys(latest->commits), CommitKeys(6, 7));

  StatusOr<LogSegment> at1 = Build(listing, 1);
  ASSERT_TRUE(at1.ok()) << at1.status().ToString();
  EXPECT_EQ(at1->checkpoint_version, std::nullopt);
  EXPECT_EQ(Keys(at1->commits), CommitKeys(0, 1));
}

TEST(LogSegmentTest, IncompleteMultiPartCheckpointFallsBackToOlderCompleteOne) {
  const std::vector<ObjectMeta> listing =
      Concat(Commits(0, 6), {Meta(ClassicCheckpointPath(2)),
                             Meta(MultiPartCheckpointPath(5, 1, 3)),
                             Meta(MultiPartCheckpointPath(5, 3, 3))});
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 6);
  EXPECT_EQ(seg->checkpoint_version, 2);
  EXPECT_THAT(Keys(seg->checkpoint_files),
              ElementsAre(ClassicCheckpointPath(2)));
  EXPECT_EQ(Keys(seg->commits), CommitKeys(3, 6));
}

TEST(LogSegmentTest, CompleteMultiPartCheckpointUsesEveryPartInOrder) {
  const std::vector<ObjectMeta> listing =
      Concat(Commits(0, 4), {Meta(MultiPartCheckpointPath(3, 1, 3)),
                             Meta(MultiPartCheckpointPath(3, 2, 3)),
                             Meta(MultiPartCheckpointPath(3, 3, 3))});
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, 3);
  EXPECT_THAT(Keys(seg->checkpoint_files),
              ElementsAre(MultiPartCheckpointPath(3, 1, 3),
                          MultiPartCheckpointPath(3, 2, 3),
                          MultiPartCheckpointPath(3, 3, 3)));
  EXPECT_EQ(Keys(seg->commits), CommitKeys(4, 4));
}

// Two writers checkpointed one version with different part counts: only the
// complete set may be used, and parts of the two sets must never be mixed.
TEST(LogSegmentTest, TwoMultiPartSetsUseOnlyTheCompleteOne) {
  // The complete set has more parts than the incomplete one ...
  StatusOr<LogSegment> more =
      Build(Concat(Commits(0, 4), {Meta(MultiPartCheckpointPath(4, 1, 2)),
                                   Meta(MultiPartCheckpointPath(4, 1, 3)),
                                   Meta(MultiPartCheckpointPath(4, 2, 3)),
                                   Meta(MultiPartCheckpointPath(4, 3, 3))}));
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_EQ(more->checkpoint_version, 4);
  EXPECT_THAT(Keys(more->checkpoint_files),
              ElementsAre(MultiPartCheckpointPath(4, 1, 3),
                          MultiPartCheckpointPath(4, 2, 3),
                          MultiPartCheckpointPath(4, 3, 3)));

  // ... and fewer.
  StatusOr<LogSegment> fewer =
      Build(Concat(Commits(0, 4), {Meta(MultiPartCheckpointPath(4, 1, 2)),
                                   Meta(MultiPartCheckpointPath(4, 1, 3)),
                                   Meta(MultiPartCheckpointPath(4, 2, 2)),
                                   Meta(MultiPartCheckpointPath(4, 3, 3))}));
  ASSERT_TRUE(fewer.ok()) << fewer.status().ToString();
  EXPECT_EQ(fewer->checkpoint_version, 4);
  EXPECT_THAT(Keys(fewer->checkpoint_files),
              ElementsAre(MultiPartCheckpointPath(4, 1, 2),
                          MultiPartCheckpointPath(4, 2, 2)));
}

TEST(LogSegmentTest, TwoIncompleteMultiPartSetsDoNotMakeOneCheckpoint) {
  // Parts 1 and 2 exist, but from sets of 2 and 3: no complete set.
  StatusOr<LogSegment> seg =
      Build(Concat(Commits(0, 4), {Meta(MultiPartCheckpointPath(4, 1, 2)),
                                   Meta(MultiPartCheckpointPath(4, 2, 3))}));
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, std::nullopt);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 4));
}

TEST(LogSegmentTest, V2UuidCheckpointIsUsed) {
  for (std::string_view ext : {"json", "parquet"}) {
    SCOPED_TRACE(ext);
    StatusOr<LogSegment> seg =
        Build(Concat(Commits(0, 3), {Meta(V2CheckpointPath(2, kUuid, ext))}));
    ASSERT_TRUE(seg.ok()) << seg.status().ToString();
    EXPECT_EQ(seg->checkpoint_version, 2);
    EXPECT_THAT(Keys(seg->checkpoint_files),
                ElementsAre(V2CheckpointPath(2, kUuid, ext)));
    EXPECT_EQ(Keys(seg->commits), CommitKeys(3, 3));
  }
}

// --- Readers without checkpoint support --------------------------------------

TEST(LogSegmentTest, WithoutCheckpointReaderCompleteHistoryIsReplayedFromJson) {
  StatusOr<LogSegment> seg =
      Build(Concat(Commits(0, 5), {Meta(ClassicCheckpointPath(3))}),
            std::nullopt, /*can_read_checkpoints=*/false);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 5);
  EXPECT_EQ(seg->checkpoint_version, std::nullopt);
  EXPECT_THAT(seg->checkpoint_files, IsEmpty());
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 5));
}

TEST(LogSegmentTest,
     WithoutCheckpointReaderMissingHistoryIsFailedPrecondition) {
  const std::vector<ObjectMeta> listing =
      Concat({Meta(ClassicCheckpointPath(3))}, Commits(4, 5));
  StatusOr<LogSegment> seg =
      Build(listing, std::nullopt, /*can_read_checkpoints=*/false);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(seg.status().message(),
              HasSubstr("checkpoint reading not available"));
  EXPECT_THAT(seg.status().message(), HasSubstr(ClassicCheckpointPath(3)));

  // A version past the checkpoint needs it just as much.
  StatusOr<LogSegment> at4 = Build(listing, 4, /*can_read_checkpoints=*/false);
  ASSERT_FALSE(at4.ok());
  EXPECT_THAT(at4.status().message(),
              HasSubstr("checkpoint reading not available"));
}

TEST(LogSegmentTest, WithoutCheckpointReaderVersionBelowCheckpointUsesJson) {
  StatusOr<LogSegment> seg =
      Build(Concat(Commits(0, 5), {Meta(ClassicCheckpointPath(3))}), 2,
            /*can_read_checkpoints=*/false);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->checkpoint_version, std::nullopt);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 2));
}

// --- Files that are not commits or checkpoints -------------------------------

TEST(LogSegmentTest, NonLogFilesAreIgnored) {
  const std::vector<ObjectMeta> listing = {
      Meta("_delta_log/.00000000000000000002.json.3a0d65cd.tmp"),
      Meta("_delta_log/." + FormatVersion(0) + ".json.crc"),
      Meta(TempCommitPath(2, kUuid)),
      Meta(CommitPath(0)),
      Meta(FormatVersion(0) + ".json"),  // outside _delta_log/
      Meta(ChecksumPath(0)),
      Meta(CommitPath(1)),
      Meta(ChecksumPath(1)),
      Meta("_delta_log/00000000000000000002.json.bak"),
      Meta("_delta_log/00000000000000000003.checkpoint.parquet.crc"),
      Meta("_delta_log/0000000000000000004.json"),  // 19 digits
      Meta("_delta_log/" + FormatVersion(0) + "." + FormatVersion(1) +
           ".compacted.json"),
      Meta(LastCheckpointPath()),
      Meta("_delta_log/_sidecars/" + std::string(kUuid) + ".parquet"),
      Meta(StagedCommitPath(2, kUuid)),
      Meta("_delta_log/garbage"),
      Meta("_delta_log/nested/" + FormatVersion(5) + ".json"),
      Meta("part-00000-abc.snappy.parquet"),
  };
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 1);
  EXPECT_EQ(seg->checkpoint_version, std::nullopt);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 1));
}

TEST(LogSegmentTest, CommitMetadataIsCarriedThrough) {
  std::vector<ObjectMeta> listing = {ObjectMeta{CommitPath(0), 123, 456}};
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  ASSERT_EQ(seg->commits.size(), 1u);
  EXPECT_EQ(seg->commits[0], listing[0]);
}

// --- Staged (coordinated) commits -------------------------------------------

StatusOr<LogSegment> BuildWithStaged(const std::vector<ObjectMeta>& listing, bool ratified) {
  LogSegmentRequest request;
  request.staged_commits_are_ratified = ratified;
  return BuildLogSegment(listing, request, kTable);
}

TEST(LogSegmentTest, StagedCommitsAreIgnoredUnlessTheLogStoreRatifiedThem) {
  // A staged file nobody ratified (a writer that lost, or was refused) must
  // never become a version.
  std::vector<ObjectMeta> listing = Concat(Commits(0, 1), {Meta(StagedCommitPath(2, kUuid))});
  StatusOr<LogSegment> seg = BuildWithStaged(listing, false);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 1);
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 1));
}

TEST(LogSegmentTest, RatifiedStagedCommitIsThatVersionsCommit) {
  std::vector<ObjectMeta> listing =
      Concat(Commits(0, 1), {Meta(StagedCommitPath(2, kUuid)), Meta(StagedCommitPath(3, kUuid))});
  StatusOr<LogSegment> seg = BuildWithStaged(listing, true);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(seg->version, 3);
  EXPECT_THAT(Keys(seg->commits),
              ElementsAre(CommitPath(0), CommitPath(1), StagedCommitPath(2, kUuid),
                          StagedCommitPath(3, kUuid)));
}

TEST(LogSegmentTest, PublishedCommitWinsOverItsStagedFile) {
  // Listed in either order, "<v>.json" is used once published.
  for (bool staged_first : {true, false}) {
    std::vector<ObjectMeta> listing =
        staged_first ? Concat({Meta(StagedCommitPath(1, kUuid))}, Commits(0, 1))
                     : Concat(Commits(0, 1), {Meta(StagedCommitPath(1, kUuid))});
    StatusOr<LogSegment> seg = BuildWithStaged(listing, true);
    ASSERT_TRUE(seg.ok()) << seg.status().ToString();
    EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 1)) << "staged first: " << staged_first;
  }
}

TEST(LogSegmentTest, OfSeveralStagedFilesForOneVersionTheFirstListedCounts) {
  const std::string other = "11111111-2222-4333-8444-555555555555";
  std::vector<ObjectMeta> listing =
      Concat(Commits(0, 0), {Meta(StagedCommitPath(1, kUuid)), Meta(StagedCommitPath(1, other))});
  StatusOr<LogSegment> seg = BuildWithStaged(listing, true);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_THAT(Keys(seg->commits), ElementsAre(CommitPath(0), StagedCommitPath(1, kUuid)));
}

TEST(LogSegmentTest, AStagedCommitFillsAGapBelowAPublishedOne) {
  // Version 1 ratified but not yet published, version 2 published.
  std::vector<ObjectMeta> listing =
      Concat(Concat(Commits(0, 0), Commits(2, 2)), {Meta(StagedCommitPath(1, kUuid))});
  StatusOr<LogSegment> seg = BuildWithStaged(listing, true);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_THAT(Keys(seg->commits),
              ElementsAre(CommitPath(0), StagedCommitPath(1, kUuid), CommitPath(2)));
}

TEST(LogSegmentTest, ACommitListingOutOfOrderIsReadInOrder) {
  std::vector<ObjectMeta> listing = {Meta(CommitPath(2)), Meta(CommitPath(0)),
                                     Meta(CommitPath(1))};
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ(Keys(seg->commits), CommitKeys(0, 2));
}

TEST(LogSegmentTest, AStrayFarFutureCommitIsAGapNotAnAllocation) {
  std::vector<ObjectMeta> listing = Concat(Commits(0, 1), {Meta(CommitPath(1000000000000))});
  StatusOr<LogSegment> seg = Build(listing);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kFailedPrecondition) << seg.status().ToString();
  EXPECT_NE(seg.status().message().find(CommitPath(2)), std::string::npos)
      << seg.status().ToString();
}

}  // namespace
}  // namespace deltacommit
