#include "deltacommit/snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

// --- Commit lines, written by hand (not by our writer) -----------------------

std::string ProtocolLine(int reader = 1, int writer = 2,
                         std::string_view features = "") {
  return R"({"protocol":{"minReaderVersion":)" + std::to_string(reader) +
         R"(,"minWriterVersion":)" + std::to_string(writer) +
         std::string(features) + "}}";
}

std::string MetadataLine(std::string_view id = "table-id") {
  return R"({"metaData":{"id":")" + std::string(id) +
         R"(","format":{"provider":"parquet","options":{}},)"
         R"("schemaString":"{\"type\":\"struct\",\"fields\":[]}",)"
         R"("partitionColumns":[],"configuration":{},"createdTime":1}})";
}

// `dv` is the raw deletionVector object, or empty for none.
std::string AddLine(std::string_view path, int64_t size = 1,
                    std::string_view dv = "") {
  std::string line = R"({"add":{"path":")" + std::string(path) +
                     R"(","partitionValues":{},"size":)" +
                     std::to_string(size) +
                     R"(,"modificationTime":1,"dataChange":true)";
  if (!dv.empty()) line += R"(,"deletionVector":)" + std::string(dv);
  return line + "}}";
}

std::string RemoveLine(std::string_view path, std::string_view dv = "") {
  std::string line = R"({"remove":{"path":")" + std::string(path) +
                     R"(","deletionTimestamp":5,"dataChange":true)";
  if (!dv.empty()) line += R"(,"deletionVector":)" + std::string(dv);
  return line + "}}";
}

std::string Dv(std::string_view storage, std::string_view path_or_inline,
               std::optional<int> offset = std::nullopt) {
  std::string dv = R"({"storageType":")" + std::string(storage) +
                   R"(","pathOrInlineDv":")" + std::string(path_or_inline) +
                   "\"";
  if (offset) dv += ",\"offset\":" + std::to_string(*offset);
  return dv + R"(,"sizeInBytes":40,"cardinality":2})";
}

std::string TxnLine(std::string_view app_id, int64_t version) {
  return R"({"txn":{"appId":")" + std::string(app_id) + R"(","version":)" +
         std::to_string(version) + "}}";
}

std::string DomainLine(std::string_view domain, std::string_view config,
                       bool removed) {
  return R"({"domainMetadata":{"domain":")" + std::string(domain) +
         R"(","configuration":")" + std::string(config) + R"(","removed":)" +
         (removed ? "true" : "false") + "}}";
}

std::string CommitInfoLine(std::optional<int64_t> ict = std::nullopt) {
  std::string line = R"({"commitInfo":{)";
  if (ict) line += R"("inCommitTimestamp":)" + std::to_string(*ict) + ",";
  return line + R"("timestamp":10,"operation":"WRITE"}})";
}

std::vector<FileKey> Keys(const Snapshot& s) {
  std::vector<FileKey> keys;
  for (const auto& [key, add] : s.active_files()) keys.push_back(key);
  return keys;
}

FileKey Key(std::string path, std::string dv_id = "") {
  return {std::move(path), std::move(dv_id)};
}

class SnapshotTest : public ::testing::Test {
 protected:
  void Commit(Version v, std::initializer_list<std::string> lines) {
    std::string content;
    for (const std::string& line : lines) content += line + "\n";
    ASSERT_TRUE(store_.Put(CommitPath(v), content).ok());
  }

  // A table with protocol and metadata at version 0 plus `lines`.
  void CreateTable(std::initializer_list<std::string> lines = {}) {
    std::string content = ProtocolLine() + "\n" + MetadataLine() + "\n";
    for (const std::string& line : lines) content += line + "\n";
    ASSERT_TRUE(store_.Put(CommitPath(0), content).ok());
  }

  StatusOr<std::shared_ptr<const Snapshot>> Load(
      std::optional<Version> version = std::nullopt) {
    SnapshotRequest request;
    request.version = version;
    return LoadSnapshot(log_, request);
  }

  // Loads and fails the test when it does not succeed.
  std::shared_ptr<const Snapshot> MustLoad(
      std::optional<Version> version = std::nullopt) {
    auto snapshot = Load(version);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    return snapshot.ok() ? *snapshot : nullptr;
  }

  LogCheckReport MustCheck() {
    auto report = CheckLog(log_);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : LogCheckReport{};
  }

  MemoryObjectStore store_;
  ObjectStoreLogStore log_{store_, "local"};
};

// --- Files -------------------------------------------------------------------

TEST_F(SnapshotTest, LoadsProtocolMetadataAndFilesOfLatestVersion) {
  CreateTable({AddLine("a", 10), AddLine("b", 20)});
  Commit(1, {CommitInfoLine(), RemoveLine("a"), AddLine("c", 30)});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->version(), 1);
  EXPECT_EQ(s->protocol().min_reader_version, 1);
  EXPECT_EQ(s->protocol().min_writer_version, 2);
  EXPECT_EQ(s->metadata().id, "table-id");
  EXPECT_THAT(Keys(*s), ElementsAre(Key("b"), Key("c")));
  EXPECT_EQ(s->size_in_bytes(), 50);
  EXPECT_EQ(s->active_files().Find(Key("c")).value().size, 30);
}

// The commit service's staged commits (coordinated mode, and its own in
// service mode) are not part of the log until published as <v>.json.
TEST_F(SnapshotTest, StagedCommitsAreIgnoredUntilPublished) {
  CreateTable({AddLine("a", 10)});
  const std::string staged = AddLine("staged", 5) + "\n";
  for (Version v : {0, 1, 2}) {
    ASSERT_TRUE(store_.Put(StagedCommitPath(v, NewUuid()), staged).ok());
  }
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->version(), 0);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("a")));
  EXPECT_EQ(MustCheck().unrecognized_files, 0);
}

TEST_F(SnapshotTest, SamePathWithTwoDeletionVectorsIsTwoFiles) {
  const std::string dv_a = Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 4);
  const std::string dv_b =
      Dv("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L");
  CreateTable({AddLine("p", 1, dv_a), AddLine("p", 1, dv_b)});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(
      Keys(*s),
      ElementsAre(
          Key("p", "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"),
          Key("p", "uab^-aqEH.-t@S}K{vb[*k^@4")));

  // Removing one (path, DV) leaves the other.
  Commit(1, {RemoveLine("p", dv_a)});
  s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s),
              ElementsAre(Key(
                  "p", "iwi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L")));
}

TEST_F(SnapshotTest, RemoveWithoutDeletionVectorDoesNotRemoveFileWithOne) {
  const std::string dv = Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 1);
  CreateTable({AddLine("p", 1, dv)});
  Commit(1, {RemoveLine("p")});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("p", "uab^-aqEH.-t@S}K{vb[*k^@1")));
}

// Adding a DV to a file: the remove of the old key and the add of the new one
// come in one commit.
TEST_F(SnapshotTest, DeletionVectorUpdateReplacesKey) {
  const std::string dv = Dv("u", "ab^-aqEH.-t@S}K{vb[*k^", 1);
  CreateTable({AddLine("p")});
  Commit(1, {AddLine("p", 1, dv), RemoveLine("p")});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("p", "uab^-aqEH.-t@S}K{vb[*k^@1")));
}

TEST_F(SnapshotTest, RemoveAndAddOfSameKeyInOneCommitKeepsTheAdd) {
  CreateTable({AddLine("p", 1)});
  // Add before remove in the file: the add still wins.
  Commit(1, {AddLine("p", 2), RemoveLine("p")});
  Commit(2, {RemoveLine("p"), AddLine("p", 3)});
  auto s1 = MustLoad(1);
  ASSERT_NE(s1, nullptr);
  ASSERT_THAT(Keys(*s1), ElementsAre(Key("p")));
  EXPECT_EQ(s1->active_files().Find(Key("p")).value().size, 2);
  auto s2 = MustLoad(2);
  ASSERT_NE(s2, nullptr);
  ASSERT_THAT(Keys(*s2), ElementsAre(Key("p")));
  EXPECT_EQ(s2->active_files().Find(Key("p")).value().size, 3);
}

TEST_F(SnapshotTest, DuplicateAddInOneCommitIsInvalidArgument) {
  CreateTable();
  Commit(1, {AddLine("p", 1), AddLine("p", 2)});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("\"p\""));
  EXPECT_THAT(s.status().message(), HasSubstr("version 1"));
}

TEST_F(SnapshotTest, DuplicateRemoveInOneCommitIsInvalidArgument) {
  CreateTable({AddLine("p")});
  Commit(1, {RemoveLine("p"), RemoveLine("p")});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
}

// Repeats are found alike in a version applied to no files (seen as they
// are inserted) and to files already there (sorted once applied).
TEST_F(SnapshotTest, DuplicatesAreFoundWhetherOrNotTheTableHadFilesBefore) {
  CreateTable({AddLine("a"), AddLine("p"), AddLine("a")});
  auto first = Load();
  ASSERT_FALSE(first.ok());
  EXPECT_THAT(first.status().message(), HasSubstr("version 0 has more than one add action for "
                                                  "file \"a\""));
  CreateTable({AddLine("a"), AddLine("p"), AddLine("q")});
  Commit(1, {AddLine("b"), AddLine("c"), AddLine("b")});
  auto later = Load();
  ASSERT_FALSE(later.ok());
  EXPECT_THAT(later.status().message(), HasSubstr("version 1 has more than one add action for "
                                                  "file \"b\""));
  Commit(1, {RemoveLine("q")});
  Commit(2, {RemoveLine("p"), RemoveLine("a"), RemoveLine("p")});
  auto removes = Load();
  ASSERT_FALSE(removes.ok());
  EXPECT_THAT(removes.status().message(), HasSubstr("version 2 has more than one remove action "
                                                    "for file \"p\""));
  Commit(2, {RemoveLine("p"), AddLine("p"), RemoveLine("a")});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("p")));
}

// A checkpoint is applied in batches as it is read: calls in a row for
// one version are one version, whose repeats are found across the calls.
TEST(LogReplayTest, AVersionAppliedInSeveralCallsIsOneVersion) {
  const auto add = [](const std::string& path) {
    AddFile a;
    a.path = path;
    a.size = 1;
    return Action(a);
  };
  const auto remove = [](const std::string& path) {
    RemoveFile r;
    r.path = path;
    return Action(r);
  };
  Metadata metadata;
  metadata.id = "t";
  metadata.schema_string = R"({"type":"struct","fields":[]})";
  const auto batches = [&](std::vector<std::vector<Action>> calls) -> Status {
    LogReplay replay;
    for (auto& actions : calls) DC_RETURN_IF_ERROR(replay.Apply(5, std::move(actions)));
    return replay.Finish().status();
  };
  EXPECT_TRUE(batches({{Protocol{}, metadata, add("a")}, {add("b"), remove("r")}}).ok());
  const Status added_twice = batches({{Protocol{}, metadata, add("a")}, {add("b")}, {add("a")}});
  EXPECT_EQ(added_twice.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(added_twice.message(), HasSubstr("version 5 has more than one add action for "
                                               "file \"a\""));
  const Status removed_twice = batches({{Protocol{}, metadata, remove("r")}, {remove("r")}});
  EXPECT_THAT(removed_twice.message(), HasSubstr("more than one remove action for file \"r\""));

  // The next version starts afresh: adding the file again replaces it.
  LogReplay replay;
  ASSERT_TRUE(replay.Apply(5, {Protocol{}, metadata, add("a")}).ok());
  ASSERT_TRUE(replay.Apply(5, {add("b")}).ok());
  ASSERT_TRUE(replay.Apply(6, {add("a")}).ok());
  auto snapshot = replay.Finish();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), 6);
  EXPECT_EQ((*snapshot)->active_files().size(), 2u);
  EXPECT_EQ((*snapshot)->size_in_bytes(), 2);
}

TEST_F(SnapshotTest, SamePathAddedInTwoCommitsReplacesTheFile) {
  CreateTable({AddLine("p", 1)});
  Commit(1, {AddLine("p", 7)});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  ASSERT_THAT(Keys(*s), ElementsAre(Key("p")));
  EXPECT_EQ(s->active_files().Find(Key("p")).value().size, 7);
}

TEST_F(SnapshotTest, FileSchemeAndPlainAbsolutePathAreOneFile) {
  CreateTable({AddLine("/x"), AddLine("file:///y"), AddLine("/z")});
  Commit(1, {RemoveLine("file:/x"), RemoveLine("/y")});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("/z")));
}

TEST_F(SnapshotTest, KeyOfCanonicalisesFileScheme) {
  AddFile add;
  for (std::string path : {"/x/y", "file:/x/y", "file:///x/y"}) {
    add.path = path;
    EXPECT_EQ(KeyOf(add).path, "/x/y") << path;
  }
  add.path = "s3://b/x";
  EXPECT_EQ(KeyOf(add).path, "s3://b/x");
  add.path = "relative/x";
  EXPECT_EQ(KeyOf(add).path, "relative/x");
}

// --- txn, domainMetadata, commitInfo -----------------------------------------

TEST_F(SnapshotTest, TxnKeepsLatestVersionPerAppId) {
  CreateTable({TxnLine("app-a", 1), TxnLine("app-b", 5)});
  Commit(1, {TxnLine("app-a", 2)});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(s->app_versions(),
              ElementsAre(Pair("app-a", 2), Pair("app-b", 5)));
  EXPECT_EQ(s->AppVersion("app-a"), 2);
  EXPECT_EQ(s->AppVersion("app-c"), std::nullopt);
  auto s0 = MustLoad(0);
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->AppVersion("app-a"), 1);
}

TEST_F(SnapshotTest, DomainMetadataIsSetReplacedAndRemoved) {
  CreateTable({DomainLine("d1", "{}", false), DomainLine("d2", "v1", false)});
  Commit(1, {DomainLine("d1", "v2", false), DomainLine("d2", "", true)});
  auto s0 = MustLoad(0);
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s0->domain_metadata().size(), 2u);
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->domain_metadata().size(), 1u);
  EXPECT_EQ(s->domain_metadata().at("d1").configuration, "v2");
  EXPECT_FALSE(s->domain_metadata().at("d1").removed);
}

TEST_F(SnapshotTest, InCommitTimestampIsThatOfTheLatestCommit) {
  std::string content = CommitInfoLine(100) + "\n" + ProtocolLine() + "\n" +
                        MetadataLine() + "\n";
  ASSERT_TRUE(store_.Put(CommitPath(0), content).ok());
  Commit(1, {CommitInfoLine(200), AddLine("a")});
  Commit(2, {CommitInfoLine(), AddLine("b")});
  auto s1 = MustLoad(1);
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->in_commit_timestamp(), 200);
  // The latest commit has none: an older one's must not leak through.
  auto s2 = MustLoad(2);
  ASSERT_NE(s2, nullptr);
  EXPECT_EQ(s2->in_commit_timestamp(), std::nullopt);
}

// --- Refusals ----------------------------------------------------------------

TEST_F(SnapshotTest, MissingProtocolIsFailedPreconditionNamingProtocol) {
  Commit(0, {MetadataLine(), AddLine("a")});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("missing protocol"));
}

TEST_F(SnapshotTest, MissingMetadataIsFailedPreconditionNamingMetaData) {
  Commit(0, {ProtocolLine(), AddLine("a")});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("missing metaData"));
}

TEST_F(SnapshotTest, ProtocolAndMetadataMayComeInLaterCommits) {
  Commit(0, {ProtocolLine(1, 2)});
  Commit(1, {MetadataLine("first")});
  Commit(2, {ProtocolLine(2, 5), MetadataLine("second")});
  auto s1 = MustLoad(1);
  ASSERT_NE(s1, nullptr);
  EXPECT_EQ(s1->metadata().id, "first");
  auto s2 = MustLoad(2);
  ASSERT_NE(s2, nullptr);
  EXPECT_EQ(s2->metadata().id, "second");
  EXPECT_EQ(s2->protocol().min_writer_version, 5);
}

// table_features.h: a version this build does not implement is Unimplemented.
TEST_F(SnapshotTest, UnsupportedReaderVersionIsRefusedNamingIt) {
  Commit(0, {ProtocolLine(4, 7), MetadataLine()});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnimplemented)
      << s.status().ToString();
  EXPECT_THAT(s.status().message(), HasSubstr("minReaderVersion=4"));
}

TEST_F(SnapshotTest, UnsupportedReaderFeatureIsRefusedNamingIt) {
  Commit(0, {ProtocolLine(3, 7,
                          R"(,"readerFeatures":["futureFeature"],)"
                          R"("writerFeatures":["futureFeature"])"),
             MetadataLine()});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnimplemented)
      << s.status().ToString();
  EXPECT_THAT(s.status().message(), HasSubstr("futureFeature"));
}

TEST_F(SnapshotTest, ProtocolUpgradedLaterIsCheckedAtThatVersion) {
  CreateTable();
  Commit(1, {ProtocolLine(4, 7)});
  EXPECT_NE(MustLoad(0), nullptr);
  auto s = Load(1);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("minReaderVersion=4"));
}

TEST_F(SnapshotTest, MalformedCommitLineNamesFileAndLine) {
  CreateTable();
  Commit(1, {AddLine("a"), "{\"add\": {not json"});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().code(),
              AnyOf(StatusCode::kInvalidArgument, StatusCode::kDataLoss));
  EXPECT_THAT(s.status().message(), HasSubstr(CommitPath(1)));
  EXPECT_THAT(s.status().message(), HasSubstr("line 2"));
  // The version before it still loads.
  EXPECT_NE(MustLoad(0), nullptr);
}

TEST_F(SnapshotTest, ReadCommitNamesFileOnMalformedLine) {
  Commit(3, {CommitInfoLine(), "[]"});
  auto actions = ReadCommit(log_, 3);
  ASSERT_FALSE(actions.ok());
  EXPECT_THAT(actions.status().message(), HasSubstr(CommitPath(3)));
  EXPECT_THAT(actions.status().message(), HasSubstr("line 2"));
  EXPECT_EQ(ReadCommit(log_, 4).status().code(), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, NoTableIsNotFound) {
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr("no Delta table"));
}

TEST_F(SnapshotTest, GapInLogIsFailedPrecondition) {
  CreateTable();
  Commit(2, {AddLine("a")});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr(CommitPath(1)));
}

TEST_F(SnapshotTest, CheckpointWithoutParquetHandlerNeedsHistory) {
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(1), "PAR1").ok());
  Commit(2, {AddLine("a")});
  auto s = Load();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(),
              HasSubstr("checkpoint reading not available"));
}

TEST_F(SnapshotTest, CheckpointWithoutParquetHandlerReplaysCompleteHistory) {
  CreateTable({AddLine("a")});
  Commit(1, {AddLine("b")});
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(1), "PAR1").ok());
  Commit(2, {RemoveLine("a")});
  auto s = MustLoad();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Keys(*s), ElementsAre(Key("b")));
}

// --- Time travel -------------------------------------------------------------

TEST_F(SnapshotTest, TimeTravelLoadsEachRequestedVersion) {
  CreateTable({AddLine("a")});
  Commit(1, {AddLine("b")});
  Commit(2, {RemoveLine("a"), AddLine("c")});
  auto s0 = MustLoad(0);
  auto s1 = MustLoad(1);
  auto s2 = MustLoad(2);
  ASSERT_TRUE(s0 && s1 && s2);
  EXPECT_EQ(s0->version(), 0);
  EXPECT_THAT(Keys(*s0), ElementsAre(Key("a")));
  EXPECT_EQ(s1->version(), 1);
  EXPECT_THAT(Keys(*s1), ElementsAre(Key("a"), Key("b")));
  EXPECT_EQ(s2->version(), 2);
  EXPECT_THAT(Keys(*s2), ElementsAre(Key("b"), Key("c")));

  auto s5 = Load(5);
  ASSERT_FALSE(s5.ok());
  EXPECT_EQ(s5.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(s5.status().message(), HasSubstr("latest is 2"));
}

// --- LogReplay directly ------------------------------------------------------

TEST(SnapshotReplayTest, FinishWithoutAnyCommitNamesProtocol) {
  LogReplay replay;
  auto s = replay.Finish();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("protocol"));
}

TEST(SnapshotReplayTest, AppliesActionValues) {
  Protocol protocol;
  Metadata metadata;
  metadata.id = "m";
  AddFile add;
  add.path = "f";
  add.size = 9;
  std::vector<Action> actions = {protocol, metadata, add};
  LogReplay replay;
  ASSERT_TRUE(replay.Apply(0, std::move(actions)).ok());
  auto s = replay.Finish();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->version(), 0);
  EXPECT_EQ((*s)->metadata().id, "m");
  EXPECT_EQ((*s)->size_in_bytes(), 9);
  EXPECT_THAT(Keys(**s), ElementsAre(Key("f")));
}

TEST(SnapshotReplayTest,
     SameKeyRemovedAndAddedAcrossDeletionVectorsCountsSeparately) {
  AddFile a;
  a.path = "f";
  AddFile b = a;
  b.deletion_vector = DeletionVectorDescriptor{"u", "x", 1, 10, 1, {}};
  std::vector<Action> actions = {Protocol{}, Metadata{}, a, b};
  LogReplay replay;
  ASSERT_TRUE(replay.Apply(0, std::move(actions)).ok());
  auto s = replay.Finish();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(Keys(**s), ElementsAre(Key("f"), Key("f", "ux@1")));
}

// --- CheckLog ----------------------------------------------------------------

TEST_F(SnapshotTest, CheckLogOnSoundLogIsSound) {
  CreateTable({CommitInfoLine(), AddLine("a")});
  Commit(1, {CommitInfoLine(), AddLine("b")});
  ASSERT_TRUE(store_.Put(LastCheckpointPath(), "{}").ok());
  ASSERT_TRUE(store_.Put("_delta_log/stray-file", "x").ok());
  LogCheckReport report = MustCheck();
  EXPECT_TRUE(report.sound()) << ::testing::PrintToString(report.problems);
  EXPECT_EQ(report.first_version, 0);
  EXPECT_EQ(report.latest_version, 1);
  EXPECT_EQ(report.commits_checked, 2);
  EXPECT_EQ(report.unrecognized_files, 1);
  ASSERT_NE(report.snapshot, nullptr);
  EXPECT_EQ(report.snapshot->version(), 1);
  EXPECT_THAT(Keys(*report.snapshot), ElementsAre(Key("a"), Key("b")));
}

TEST_F(SnapshotTest, CheckLogReportsGapNamingMissingFile) {
  CreateTable();
  Commit(1, {AddLine("a")});
  Commit(3, {AddLine("b")});
  LogCheckReport report = MustCheck();
  EXPECT_FALSE(report.sound());
  EXPECT_THAT(report.problems, ElementsAre(HasSubstr(CommitPath(2))));
  EXPECT_EQ(report.latest_version, 3);
  EXPECT_EQ(report.commits_checked, 3);
  EXPECT_EQ(report.snapshot, nullptr);
}

TEST_F(SnapshotTest, CheckLogReportsMalformedCommitNamingFileAndLine) {
  CreateTable();
  Commit(1, {CommitInfoLine(), "not json"});
  Commit(2, {AddLine("a")});
  LogCheckReport report = MustCheck();
  EXPECT_FALSE(report.sound());
  ASSERT_THAT(report.problems, ElementsAre(HasSubstr(CommitPath(1))));
  EXPECT_THAT(report.problems[0], HasSubstr("line 2"));
  // Every commit is still checked.
  EXPECT_EQ(report.commits_checked, 3);
  EXPECT_EQ(report.snapshot, nullptr);
}

TEST_F(SnapshotTest, CheckLogReportsTwoCommitInfosInOneCommit) {
  CreateTable();
  Commit(1, {CommitInfoLine(), AddLine("a"), CommitInfoLine()});
  LogCheckReport report = MustCheck();
  EXPECT_FALSE(report.sound());
  ASSERT_THAT(report.problems, ElementsAre(HasSubstr("2 commitInfo")));
  EXPECT_THAT(report.problems[0], HasSubstr("version 1"));
}

TEST_F(SnapshotTest, CheckLogReportsReplayErrors) {
  Commit(0, {MetadataLine()});
  LogCheckReport report = MustCheck();
  EXPECT_THAT(report.problems, ElementsAre(HasSubstr("missing protocol")));
  EXPECT_EQ(report.snapshot, nullptr);
}

TEST_F(SnapshotTest, CheckLogWithoutCommitsIsNotFound) {
  auto report = CheckLog(log_);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kNotFound);
}

TEST_F(SnapshotTest, CheckLogReportsHistoryMissingBeforeFirstCommit) {
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(0), "PAR1").ok());
  Commit(2, {AddLine("a")});  // version 1 is gone and no checkpoint covers it
  LogCheckReport report = MustCheck();
  EXPECT_EQ(report.first_version, 2);
  EXPECT_THAT(report.problems, ElementsAre(HasSubstr("start at version 2")));
  EXPECT_EQ(report.snapshot, nullptr);
}

TEST_F(SnapshotTest, CheckLogAcceptsHistoryCoveredByACheckpoint) {
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(1), "PAR1").ok());
  Commit(2, {AddLine("a")});
  LogCheckReport report = MustCheck();
  EXPECT_TRUE(report.sound()) << report.problems.front();
  EXPECT_EQ(report.snapshot, nullptr);  // no checkpoint reader given
}

}  // namespace
}  // namespace deltacommit

namespace deltacommit {
namespace {

// A checkpoint reader that serves fixed action lines (the Parquet adapter is
// tested against real checkpoints in src/adapters/parquet).
class FixedCheckpoint : public ParquetHandler {
 public:
  explicit FixedCheckpoint(std::vector<std::string> lines) : lines_(std::move(lines)) {}
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore&, const std::vector<std::string>&) override {
    return lines_;
  }

 private:
  std::vector<std::string> lines_;
};

TEST_F(SnapshotTest, CheckpointAtLatestVersionKeepsThatCommitsInCommitTimestamp) {
  Commit(1, {CommitInfoLine(300), AddLine("a")});
  ASSERT_TRUE(store_.Put(ClassicCheckpointPath(1), "PAR1").ok());
  FixedCheckpoint checkpoint({ProtocolLine(), MetadataLine(), AddLine("a")});
  SnapshotRequest request;
  request.parquet = &checkpoint;
  request.checkpoint_store = &store_;
  auto s = LoadSnapshot(log_, request);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->version(), 1);
  EXPECT_EQ((*s)->in_commit_timestamp(), 300);
  EXPECT_THAT(Keys(**s), ElementsAre(Key("a")));
}

}  // namespace
}  // namespace deltacommit

// --- UpdateSnapshot: incremental, from a snapshot already held ---------------

namespace deltacommit {
namespace {

TEST_F(SnapshotTest, UpdateReplaysOnlyTheNewCommitsOntoACopy) {
  CreateTable({AddLine("a", 10)});
  std::shared_ptr<const Snapshot> base = MustLoad();
  ASSERT_NE(base, nullptr);
  Commit(1, {CommitInfoLine(7), RemoveLine("a"), AddLine("b", 20)});
  Commit(2, {TxnLine("app", 3), AddLine("c", 30)});
  auto updated = UpdateSnapshot(log_, base, SnapshotRequest{});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)->version(), 2);
  EXPECT_THAT(Keys(**updated), ElementsAre(Key("b"), Key("c")));
  EXPECT_EQ((*updated)->size_in_bytes(), 50);
  EXPECT_EQ((*updated)->AppVersion("app"), 3);
  EXPECT_EQ((*updated)->tombstones().count(Key("a")), 1u);
  // The base is untouched, and equals a fresh load of its version.
  EXPECT_EQ(base->version(), 0);
  EXPECT_THAT(Keys(*base), ElementsAre(Key("a")));
  std::shared_ptr<const Snapshot> fresh = MustLoad();
  EXPECT_EQ(Keys(*fresh), Keys(**updated));
  EXPECT_EQ(fresh->app_versions(), (*updated)->app_versions());
}

TEST_F(SnapshotTest, UpdateWithNothingNewReturnsTheBaseItself) {
  CreateTable();
  std::shared_ptr<const Snapshot> base = MustLoad();
  auto updated = UpdateSnapshot(log_, base, SnapshotRequest{});
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->get(), base.get());
}

TEST_F(SnapshotTest, UpdateAfterTheNextCommitsWereCleanedUpLoadsAfresh) {
  CreateTable({AddLine("a")});
  std::shared_ptr<const Snapshot> base = MustLoad();
  Commit(1, {AddLine("b")});
  Commit(2, {AddLine("c")});
  // 1 is gone (log cleanup after a checkpoint the reader cannot use here):
  // the listing after 0 starts at 2, so the update cannot continue from 0.
  ASSERT_TRUE(store_.Delete(CommitPath(1)).ok());
  auto updated = UpdateSnapshot(log_, base, SnapshotRequest{});
  EXPECT_EQ(updated.status().code(), StatusCode::kFailedPrecondition)
      << "a fresh load of a log missing version 1 fails as LoadSnapshot does";
  EXPECT_THAT(updated.status().message(), HasSubstr("00000000000000000001.json is missing"));
}

TEST_F(SnapshotTest, UpdateRefusesAGapAfterTheFirstNewCommit) {
  CreateTable();
  std::shared_ptr<const Snapshot> base = MustLoad();
  Commit(1, {AddLine("b")});
  Commit(3, {AddLine("d")});
  auto updated = UpdateSnapshot(log_, base, SnapshotRequest{});
  EXPECT_EQ(updated.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(updated.status().message(), HasSubstr("00000000000000000002.json is missing"));
}

}  // namespace
}  // namespace deltacommit
