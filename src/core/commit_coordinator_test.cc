#include "deltacommit/commit_coordinator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "deltacommit/table_features.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kFilesystem = "";
constexpr const char* kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

Metadata Plain() {
  Metadata m;
  m.id = "t";
  m.schema_string = kSchema;
  return m;
}

Metadata Coordinated(std::string_view coordinator = kDeltacommitCoordinator) {
  Metadata m = Plain();
  AddCommitCoordinatorProperties(coordinator, R"({"serviceUrl":"http://s:8642"})", &m);
  return m;
}

// The protocol a new table with `m` gets (with the coordinator's features).
Protocol ProtocolFor(const Metadata& m) {
  StatusOr<Protocol> p = ProtocolForNewTable(m);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Protocol{};
}

TEST(CommitCoordinatorTest, TheCreatePropertiesNameTheCoordinatorAndEnableTimestamps) {
  Metadata m = Coordinated();
  EXPECT_EQ(CommitCoordinatorOf(m), "deltacommit");
  EXPECT_EQ(m.configuration.at(std::string(kCommitCoordinatorConfProperty)),
            R"({"serviceUrl":"http://s:8642"})");
  EXPECT_EQ(m.configuration.at(std::string(kCoordinatedTableConfProperty)), "{}");
  EXPECT_EQ(m.configuration.at("delta.enableInCommitTimestamps"), "true");
  EXPECT_TRUE(InCommitTimestampsEnabled(ProtocolFor(m), m));
  EXPECT_EQ(CommitCoordinatorOf(Plain()), "");
}

TEST(CommitCoordinatorTest, AValueTheUserGaveIsKeptAndThenChecked) {
  Metadata m = Plain();
  m.configuration["delta.enableInCommitTimestamps"] = "false";
  AddCommitCoordinatorProperties(kDeltacommitCoordinator, "{}", &m);
  EXPECT_EQ(m.configuration.at("delta.enableInCommitTimestamps"), "false");
  Status s = CheckCommitCoordinator(nullptr, ProtocolFor(m), m, kDeltacommitCoordinator);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("needs in-commit timestamps"));
}

TEST(CommitCoordinatorTest, BothTheCoordinatorAndAFilesystemWriterMayCreate) {
  const Metadata m = Coordinated();
  const Protocol p = ProtocolFor(m);
  EXPECT_TRUE(CheckCommitCoordinator(nullptr, p, m, kDeltacommitCoordinator).ok());
  EXPECT_TRUE(CheckCommitCoordinator(nullptr, p, m, kFilesystem).ok());
  Status other = CheckCommitCoordinator(nullptr, p, m, "other");
  EXPECT_EQ(other.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(other.message(), HasSubstr("must name that coordinator"));
}

TEST(CommitCoordinatorTest, OnlyTheTablesCoordinatorWritesACoordinatedTable) {
  const Metadata m = Coordinated();
  const Protocol p = ProtocolFor(m);
  EXPECT_TRUE(CheckCommitCoordinator(&m, p, m, kDeltacommitCoordinator).ok());
  Status filesystem = CheckCommitCoordinator(&m, p, m, kFilesystem);
  EXPECT_EQ(filesystem.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(filesystem.message(),
              HasSubstr("ratified by commit coordinator \"deltacommit\" "
                        "(delta.coordinatedCommits.commitCoordinator-preview); a filesystem "
                        "writer (it puts <v>.json itself) would bypass it: use --log-store "
                        "coordinated"));
  const Metadata foreign = Coordinated("dynamodb");
  Status other = CheckCommitCoordinator(&foreign, ProtocolFor(foreign), foreign,
                                        kDeltacommitCoordinator);
  EXPECT_EQ(other.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(other.message(), HasSubstr("commit coordinator \"dynamodb\""));
  EXPECT_THAT(other.message(), Not(HasSubstr("--log-store")));
}

TEST(CommitCoordinatorTest, TheCoordinatorCannotBeChangedOrRemoved) {
  const Metadata m = Coordinated();
  const Protocol p = ProtocolFor(m);
  for (const Metadata& next : {Coordinated("other"), Plain()}) {
    Status s = CheckCommitCoordinator(&m, p, next, kDeltacommitCoordinator);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("changing it to \"" + CommitCoordinatorOf(next) +
                                       "\" is not supported"));
  }
}

TEST(CommitCoordinatorTest, TheConversionCommitIsAFilesystemWrite) {
  const Metadata before = Plain();
  const Metadata after = Coordinated();
  const Protocol p = ProtocolFor(after);
  EXPECT_TRUE(CheckCommitCoordinator(&before, p, after, kFilesystem).ok());
  Status s = CheckCommitCoordinator(&before, p, after, kDeltacommitCoordinator);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("must be a filesystem write"));
}

TEST(CommitCoordinatorTest, ACoordinatedWriterRefusesATableWithoutACoordinator) {
  const Metadata m = Plain();
  const Protocol p = ProtocolFor(m);
  EXPECT_TRUE(CheckCommitCoordinator(&m, p, m, kFilesystem).ok());
  EXPECT_TRUE(CheckCommitCoordinator(nullptr, p, m, kFilesystem).ok());
  for (const Metadata* before : {&m, static_cast<const Metadata*>(nullptr)}) {
    Status s = CheckCommitCoordinator(before, p, m, kDeltacommitCoordinator);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(s.message(), HasSubstr("names no commit coordinator"));
  }
}

TEST(CommitCoordinatorTest, ACoordinatedTableNeedsTheFeatureAndJsonConfs) {
  Metadata m = Coordinated();
  Protocol without = ProtocolFor(Plain());
  Status s = CheckCommitCoordinator(nullptr, without, m, kDeltacommitCoordinator);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("must support the writer feature coordinatedCommits-preview"));
  for (const char* bad : {"not json", "[]", R"({"n":1})"}) {
    m.configuration[std::string(kCoordinatedTableConfProperty)] = bad;
    Status conf = CheckCommitCoordinator(nullptr, ProtocolFor(m), m, kDeltacommitCoordinator);
    EXPECT_EQ(conf.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(conf.message(),
                HasSubstr("delta.coordinatedCommits.tableConf-preview must be a JSON object"));
  }
}

// A catalog-managed table as Unity Catalog's staging table requires it:
// catalogManaged with in-commit timestamps on.
Metadata CatalogManagedMetadata() {
  Metadata m = Plain();
  m.configuration = {{"delta.feature.catalogManaged", "supported"},
                     {"delta.enableInCommitTimestamps", "true"}};
  return m;
}

constexpr std::string_view kCatalog = "catalog http://uc:8080";

TEST(CheckManagingCatalogTest, OnlyTheCatalogsWriterCommitsToACatalogManagedTable) {
  const Metadata m = CatalogManagedMetadata();
  const Protocol p = ProtocolFor(m);
  ASSERT_TRUE(IsCatalogManaged(p));
  EXPECT_TRUE(CheckManagingCatalog(nullptr, p, m, kCatalog).ok());
  EXPECT_TRUE(CheckManagingCatalog(&p, p, m, kCatalog).ok());
  Status around = CheckManagingCatalog(&p, p, m, kFilesystem);
  EXPECT_EQ(around.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(around.message(), HasSubstr("open the table by its catalog name, uc://"));
  // Creating one on a path is refused too: no catalog would know it.
  EXPECT_EQ(CheckManagingCatalog(nullptr, p, m, kFilesystem).code(),
            StatusCode::kFailedPrecondition);
}

TEST(CheckManagingCatalogTest, TheCatalogsWriterCommitsOnlyToCatalogManagedTables) {
  const Metadata m = Plain();
  const Protocol p = ProtocolFor(m);
  EXPECT_TRUE(CheckManagingCatalog(&p, p, m, kFilesystem).ok());
  Status s = CheckManagingCatalog(&p, p, m, kCatalog);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("does not have the catalogManaged feature"));
  EXPECT_THAT(s.message(), HasSubstr("catalog http://uc:8080"));
}

TEST(CheckManagingCatalogTest, AConversionAndMissingTimestampsAreRefused) {
  const Metadata plain = Plain();
  const Protocol before = ProtocolFor(plain);
  const Metadata m = CatalogManagedMetadata();
  Status converted = CheckManagingCatalog(&before, ProtocolFor(m), m, kCatalog);
  EXPECT_EQ(converted.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(converted.message(), HasSubstr("making an existing table catalog-managed"));
  Metadata off = m;
  off.configuration["delta.enableInCommitTimestamps"] = "false";
  Status timestamps = CheckManagingCatalog(nullptr, ProtocolFor(m), off, kCatalog);
  EXPECT_EQ(timestamps.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(timestamps.message(), HasSubstr("needs in-commit timestamps"));
}

}  // namespace
}  // namespace deltacommit
