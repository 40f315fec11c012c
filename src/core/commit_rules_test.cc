#include "deltacommit/commit_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

constexpr char kTable[] = "s3://bucket/tables/events";

AddFile Add(std::string path, int64_t size = 1) {
  AddFile add;
  add.path = std::move(path);
  add.size = size;
  add.data_change = true;
  return add;
}

RemoveFile Remove(std::string path) {
  RemoveFile remove;
  remove.path = std::move(path);
  remove.data_change = true;
  return remove;
}

Metadata SomeMetadata() {
  Metadata m;
  m.id = "id";
  m.schema_string = R"({"type":"struct","fields":[]})";
  return m;
}

TEST(CheckActionPathTest, RelativePathsInsideTheTableAreAccepted) {
  for (const char* path : {"part-0001.parquet", "date=2024-01-01/part-1.snappy.parquet",
                           "a%20b/c%3Ad.parquet", "deletion_vector_0a1b.bin",
                           "city=Z%C3%BCrich/part-1.parquet", "_delta_logs/x.parquet",
                           "x/_delta_log/y.parquet"}) {
    EXPECT_TRUE(CheckActionPath(kTable, "add.path", path).ok()) << path;
  }
}

TEST(CheckActionPathTest, AbsolutePathsUnderTheTableRootAreAcceptedInEveryScheme) {
  for (const char* path : {"s3://bucket/tables/events/part-1.parquet",
                           "s3a://bucket/tables/events/d=1/part-1.parquet",
                           "s3n://bucket/tables/events/part-1.parquet"}) {
    EXPECT_TRUE(CheckActionPath(kTable, "add.path", path).ok()) << path;
  }
  EXPECT_TRUE(CheckActionPath("file:///data/t", "add.path", "file:///data/t/x.parquet").ok());
  EXPECT_TRUE(CheckActionPath("file:///data/t", "add.path", "file:/data/t/x.parquet").ok());
}

TEST(CheckActionPathTest, WithoutTheTableUriEveryAbsolutePathIsRefused) {
  Status status = CheckActionPath("", "add.path", "s3://bucket/tables/events/x.parquet");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("is an absolute URI"));
}

TEST(CheckActionPathTest, PathsOutsideTheTableAreRefusedNamingFieldPathAndRule) {
  const struct {
    const char* path;
    const char* why;
  } cases[] = {
      {"../other/part-1.parquet", "segment"},
      {"d=1/../../other/x.parquet", "segment"},
      {"%2E%2E/other/x.parquet", "segment"},
      {"%2e%2e%2Fescape.parquet", "segment"},
      {"a%2F..%2Fb.parquet", "segment"},
      {"a//b.parquet", "segment"},
      {"./x.parquet", "segment"},
      {"/etc/passwd", "starts with '/'"},
      {"%2Fetc/passwd", "starts with '/'"},
      {"..\\..\\x.parquet", "backslash"},
      {"%5C..%5Cx", "backslash"},
      {"a\\b.parquet", "backslash"},
      {"%C0%AE%C0%AE/x", "not valid UTF-8"},
      {"%FF.parquet", "not valid UTF-8"},
      {"_delta_log/x.json", "inside _delta_log"},
      {"_delta_log/00000000000000000000.json", "inside _delta_log"},
      {"%5Fdelta%5Flog/00000000000000000000.json", "inside _delta_log"},
      {"_delta_log", "inside _delta_log"},
      {"s3://bucket/tables/events/_delta_log/00000000000000000001.json", "inside _delta_log"},
      {"s3://bucket/tables/eventsX/part-1.parquet", "outside the table"},
      {"s3://bucket/tables/other/part-1.parquet", "outside the table"},
      {"s3://other-bucket/tables/events/part-1.parquet", "outside the table"},
      {"s3://bucket/tables/events/../other/x.parquet", "segment"},
      {"file:///tmp/x.parquet", "outside the table"},
      {"https://example.com/x.parquet", "outside the table"},
      {"x%zz.parquet", "hex digits"},
      {"x%2", "hex digits"},
      {"a\nb.parquet", "control character"},
      {"a%0Ab.parquet", "control character"},
      {"a%00b.parquet", "control character"},
  };
  for (const auto& c : cases) {
    Status status = CheckActionPath(kTable, "remove.path", c.path);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.path;
    EXPECT_THAT(status.message(), HasSubstr(c.why)) << c.path;
    EXPECT_THAT(status.message(), HasSubstr("remove.path \"")) << c.path;
    if (std::string_view(c.path).find('\n') == std::string_view::npos) {
      EXPECT_THAT(status.message(), HasSubstr(c.path));
    }
  }
  EXPECT_THAT(CheckActionPath(kTable, "add.path", "").message(), HasSubstr("add.path: empty"));
}

TEST(CheckActionPathsTest, ChecksAddRemoveCdcAndAbsoluteDeletionVectors) {
  AddFile add = Add("part-1.parquet");
  EXPECT_TRUE(CheckActionPaths(kTable, add).ok());
  add.deletion_vector = DeletionVectorDescriptor{"p", "s3://elsewhere/dv.bin", 1, 10, 1, {}};
  EXPECT_THAT(CheckActionPaths(kTable, add).message(),
              HasSubstr("add.deletionVector.pathOrInlineDv"));
  add.deletion_vector->storage_type = "u";  // relative to the table by construction
  EXPECT_TRUE(CheckActionPaths(kTable, add).ok());

  EXPECT_EQ(CheckActionPaths(kTable, Remove("../x.parquet")).code(),
            StatusCode::kInvalidArgument);
  AddCdcFile cdc;
  cdc.path = "s3://other/_change_data/x.parquet";
  EXPECT_THAT(CheckActionPaths(kTable, cdc).message(), HasSubstr("cdc.path"));
  EXPECT_TRUE(CheckActionPaths(kTable, CommitInfo{}).ok());
}

Status Check(const CommitBase& base, std::vector<Action> actions) {
  return CheckCommitActions(base, actions);
}

TEST(CheckCommitActionsTest, VersionZeroNeedsProtocolAndMetadata) {
  const CommitBase creating{kTable, true, nullptr, nullptr};
  EXPECT_THAT(Check(creating, {Add("a.parquet")}).message(),
              HasSubstr("version 0 must contain a protocol and a metaData action"));
  EXPECT_THAT(Check(creating, {Protocol{}, Add("a.parquet")}).message(),
              HasSubstr("version 0 must contain"));
  EXPECT_TRUE(Check(creating, {Protocol{}, SomeMetadata(), Add("a.parquet")}).ok());
}

TEST(CheckCommitActionsTest, ProtocolDowngradeIsRefusedAgainstTheTablesProtocol) {
  const Protocol table_protocol{1, 4, std::nullopt, std::nullopt, {}};
  const Metadata metadata = SomeMetadata();
  const CommitBase base{kTable, false, &table_protocol, &metadata};
  Status status = Check(base, {Protocol{1, 2, std::nullopt, std::nullopt, {}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("downgrade"));
  EXPECT_TRUE(Check(base, {Protocol{1, 4, std::nullopt, std::nullopt, {}}}).ok());
}

TEST(CheckCommitActionsTest, NegativeSizesDuplicatesAndKindsAreRefused) {
  const CommitBase base{kTable, false, nullptr, nullptr};
  EXPECT_THAT(Check(base, {Add("a.parquet", -1)}).message(), HasSubstr("size -1 is negative"));
  EXPECT_THAT(Check(base, {Add("a.parquet"), Add("a.parquet")}).message(),
              HasSubstr("added twice"));
  EXPECT_THAT(Check(base, {Remove("a.parquet"), Remove("a.parquet")}).message(),
              HasSubstr("removed twice"));
  EXPECT_THAT(Check(base, {CommitInfo{}, CommitInfo{}}).message(),
              HasSubstr("a second \"commitInfo\""));
  EXPECT_THAT(Check(base, {SomeMetadata(), SomeMetadata()}).message(),
              HasSubstr("a second \"metaData\""));
  EXPECT_THAT(Check(base, {UnknownAction{"frobnicate", "{}"}}).message(),
              HasSubstr("unknown action \"frobnicate\""));
  EXPECT_THAT(Check(base, {Sidecar{}}).message(), HasSubstr("belongs in checkpoints"));
  SetTransaction txn;
  txn.app_id = "app";
  EXPECT_THAT(Check(base, {txn, txn}).message(), HasSubstr("a second txn for appId \"app\""));
  txn.app_id = "";
  EXPECT_THAT(Check(base, {txn}).message(), HasSubstr("empty appId"));
}

TEST(CheckCommitActionsTest, AppendOnlyAndDomainRulesUseTheTablesState) {
  const Protocol protocol{1, 2, std::nullopt, std::nullopt, {}};
  Metadata append_only = SomeMetadata();
  append_only.configuration["delta.appendOnly"] = "true";
  EXPECT_THAT(Check({kTable, false, &protocol, &append_only}, {Remove("a.parquet")}).message(),
              HasSubstr("append-only"));
  // Unknown state: only what the commit itself carries is checked.
  EXPECT_TRUE(Check({kTable, false, nullptr, nullptr}, {Remove("a.parquet")}).ok());
  DomainMetadata domain;
  domain.domain = "delta.rowTracking";
  EXPECT_THAT(Check({kTable, false, nullptr, nullptr}, {domain}).message(),
              HasSubstr("a system domain, which only a table with the rowTracking and "
                        "domainMetadata features may hold"));
  EXPECT_THAT(Check({kTable, false, &protocol, &append_only}, {domain}).message(),
              HasSubstr("only a table with the rowTracking"));
  // A row-tracking table's writer (Delta Spark) keeps its high-water mark
  // there in data commits; a clustered table's, its clustering columns.
  const Protocol row_tracking{3, 7, std::vector<std::string>{},
                              std::vector<std::string>{"domainMetadata", "rowTracking"}, {}};
  EXPECT_TRUE(Check({kTable, false, &row_tracking, &append_only}, {domain}).ok());
  domain.domain = "delta.clustering";
  EXPECT_THAT(Check({kTable, false, &row_tracking, &append_only}, {domain}).message(),
              HasSubstr("the clustering and domainMetadata features"));
  domain.domain = "delta.somethingNew";
  EXPECT_THAT(Check({kTable, false, &row_tracking, &append_only}, {domain}).message(),
              HasSubstr("reserved for the Delta protocol, and this one is not a system domain"));
  domain.domain = "app.x";
  EXPECT_THAT(Check({kTable, false, &protocol, &append_only}, {domain}).message(),
              HasSubstr("does not support the domainMetadata feature"));
}

TEST(CheckCommitActionsTest, DeletionVectorsNeedTheTablesFeature) {
  AddFile add = Add("a.parquet");
  add.deletion_vector = DeletionVectorDescriptor{"i", "0000000000", std::nullopt, 8, 1, {}};
  RemoveFile remove = Remove("b.parquet");
  remove.deletion_vector = add.deletion_vector;
  const Protocol plain{1, 2, std::nullopt, std::nullopt, {}};
  const Protocol dvs{3, 7, std::vector<std::string>{"deletionVectors"},
                     std::vector<std::string>{"deletionVectors"}, {}};
  const Metadata metadata = SomeMetadata();
  EXPECT_THAT(Check({kTable, false, &plain, &metadata}, {add}).message(),
              HasSubstr("add \"a.parquet\": carries a deletion vector, but the table does not "
                        "support the deletionVectors feature"));
  EXPECT_THAT(Check({kTable, false, &plain, &metadata}, {remove}).message(),
              HasSubstr("remove \"b.parquet\": carries a deletion vector"));
  EXPECT_TRUE(Check({kTable, false, &dvs, &metadata}, {remove, add}).ok());
  // A commit that adds the feature may carry DVs with it.
  const Protocol upgrade{3, 7, std::vector<std::string>{"deletionVectors"},
                         std::vector<std::string>{"appendOnly", "invariants", "deletionVectors"},
                         {}};
  EXPECT_TRUE(Check({kTable, false, &plain, &metadata}, {upgrade, add}).ok());
  CommitChecker checker(kTable);
  ASSERT_TRUE(checker.Add(add).ok());
  EXPECT_TRUE(checker.NeedsTableState());
}

TEST(CommitCheckerTest, SaysWhenItNeedsTheTablesState) {
  CommitChecker adds(kTable);
  ASSERT_TRUE(adds.Add(Add("a.parquet")).ok());
  EXPECT_FALSE(adds.NeedsTableState());
  CommitChecker removes(kTable);
  ASSERT_TRUE(removes.Add(Remove("a.parquet")).ok());
  EXPECT_TRUE(removes.NeedsTableState());
  CommitChecker protocol(kTable);
  ASSERT_TRUE(protocol.Add(Protocol{}).ok());
  EXPECT_TRUE(protocol.NeedsTableState());
}

}  // namespace
}  // namespace deltacommit

namespace deltacommit {
namespace {

TEST(CheckReadPredicateTest, OnlyPartitionColumnsMayBeGuarded) {
  Metadata m;
  m.partition_columns = {"day", "region"};
  EXPECT_TRUE(CheckReadPredicate({{"day", {std::string("1")}}}, m).ok());
  Status other = CheckReadPredicate({{"day", {std::string("1")}}, {"id", {std::nullopt}}}, m);
  EXPECT_EQ(other.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(other.message(), "\"id\" is not a partition column of the table (it has day, region)");
  m.partition_columns.clear();
  EXPECT_EQ(CheckReadPredicate({{"day", {std::string("1")}}}, m).message(),
            "\"day\" is not a partition column of the table (it has none)");
}

}  // namespace
}  // namespace deltacommit
