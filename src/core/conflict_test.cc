#include "deltacommit/conflict.h"

#include <gtest/gtest.h>

namespace deltacommit {
namespace {

AddFile Add(std::string path, NullableStringMap pv = {}) {
  AddFile a;
  a.path = std::move(path);
  a.partition_values = std::move(pv);
  return a;
}

RemoveFile Remove(std::string path) {
  RemoveFile r;
  r.path = std::move(path);
  return r;
}

CommitInfo Info(bool blind_append) {
  CommitInfo ci;
  ci.operation = "WRITE";
  ci.is_blind_append = blind_append;
  return ci;
}

struct Fixture {
  ReadSet read;
  std::vector<Action> actions;
  CurrentTransaction current(IsolationLevel level, bool partitioned = false,
                             bool blind = false) const {
    CurrentTransaction c;
    c.read = &read;
    c.actions = &actions;
    c.isolation_level = level;
    c.table_partitioned = partitioned;
    c.is_blind_append = blind;
    return c;
  }
};

constexpr IsolationLevel kAllLevels[] = {IsolationLevel::kSerializable,
                                         IsolationLevel::kWriteSerializable,
                                         IsolationLevel::kSnapshotIsolation};

TEST(ConflictTest, BlindAppendsNeverConflictWithEachOther) {
  for (IsolationLevel level : kAllLevels) {
    Fixture f;
    f.actions = {Add("mine.parquet")};
    auto c = CheckConflict(f.current(level, false, true), 5, {Info(true), Add("theirs.parquet")});
    EXPECT_FALSE(c.has_value()) << IsolationLevelName(level);
  }
}

TEST(ConflictTest, WinnerProtocolChangeConflictsAtEveryLevel) {
  for (IsolationLevel level : kAllLevels) {
    Fixture f;
    auto c = CheckConflict(f.current(level, false, true), 3, {Protocol{}});
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->type, ConflictType::kProtocolChanged);
    EXPECT_EQ(c->winning_version, 3);
  }
}

TEST(ConflictTest, WinnerMetadataChangeConflictsEvenForBlindAppend) {
  Fixture f;
  auto c = CheckConflict(f.current(IsolationLevel::kWriteSerializable, false, true), 4, {Metadata{}});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kMetadataChanged);
}

TEST(ConflictTest, SameDomainConflictsOtherDomainDoesNot) {
  Fixture f;
  DomainMetadata mine{"app.x", "{}", false, {}};
  f.actions = {mine};
  DomainMetadata same{"app.x", "{\"a\":1}", false, {}};
  DomainMetadata other{"app.y", "{}", false, {}};
  auto c = CheckConflict(f.current(IsolationLevel::kWriteSerializable), 2, {same});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kConcurrentDomainMetadata);
  EXPECT_FALSE(CheckConflict(f.current(IsolationLevel::kWriteSerializable), 2, {other}));
}

TEST(ConflictTest, AppIdReadByCurrentUpdatedByWinnerConflicts) {
  Fixture f;
  f.read.app_ids = {"stream-1"};
  SetTransaction t;
  t.app_id = "stream-1";
  t.version = 7;
  auto c = CheckConflict(f.current(IsolationLevel::kWriteSerializable), 9, {t});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kConcurrentTransaction);
  t.app_id = "stream-2";
  EXPECT_FALSE(CheckConflict(f.current(IsolationLevel::kWriteSerializable), 9, {t}));
}

// Spark's matrix for concurrent appends vs a transaction that read the table.
TEST(ConflictTest, ConcurrentAppendPerIsolationLevel) {
  struct Case {
    IsolationLevel level;
    bool winner_blind;
    bool current_changes_metadata;
    bool expect_conflict;
  } cases[] = {
      {IsolationLevel::kSerializable, true, false, true},
      {IsolationLevel::kSerializable, false, false, true},
      {IsolationLevel::kWriteSerializable, true, false, false},  // blind appends tolerated
      {IsolationLevel::kWriteSerializable, true, true, true},    // unless metadata changes
      {IsolationLevel::kWriteSerializable, false, false, true},
      {IsolationLevel::kSnapshotIsolation, true, false, false},
      {IsolationLevel::kSnapshotIsolation, false, false, false},
  };
  for (const Case& k : cases) {
    Fixture f;
    f.read.whole_table = true;
    f.actions = {Remove("old.parquet")};
    if (k.current_changes_metadata) f.actions.push_back(Metadata{});
    auto c = CheckConflict(f.current(k.level), 6, {Info(k.winner_blind), Add("new.parquet")});
    EXPECT_EQ(c.has_value(), k.expect_conflict)
        << IsolationLevelName(k.level) << " winner_blind=" << k.winner_blind
        << " metadata=" << k.current_changes_metadata;
    if (c) {
      EXPECT_EQ(c->type, ConflictType::kConcurrentAppend);
    }
  }
}

TEST(ConflictTest, PartitionPredicateOnlyConflictsWithMatchingPartition) {
  Fixture f;
  f.read.predicates = {{{"date", {std::string("2024-01-01")}}}};
  auto cur = f.current(IsolationLevel::kSerializable, true);
  EXPECT_FALSE(CheckConflict(cur, 2, {Info(false), Add("a", {{"date", "2024-01-02"}})}));
  auto c = CheckConflict(cur, 2, {Info(false), Add("b", {{"date", "2024-01-01"}})});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kConcurrentAppend);
  EXPECT_NE(c->detail.find("date=2024-01-01"), std::string::npos) << c->detail;
}

TEST(ConflictTest, NullPartitionValueMatchesNullFilter) {
  PartitionPredicate p = {{"region", {std::nullopt}}};
  EXPECT_TRUE(MatchesPredicate({{"region", std::nullopt}}, p));
  EXPECT_TRUE(MatchesPredicate({}, p));  // absent counts as null
  EXPECT_FALSE(MatchesPredicate({{"region", "eu"}}, p));
}

TEST(ConflictTest, UnpartitionedTableAnyPredicateReadConflictsWithAnyAppend) {
  Fixture f;
  f.read.predicates = {{{"x", {std::string("1")}}}};
  auto c = CheckConflict(f.current(IsolationLevel::kSerializable, false), 2,
                         {Info(false), Add("z")});
  EXPECT_TRUE(c.has_value());
}

TEST(ConflictTest, RemoveOfFileReadConflictsAtEveryLevel) {
  for (IsolationLevel level : kAllLevels) {
    Fixture f;
    f.read.files = {"shared.parquet"};
    f.actions = {Remove("shared.parquet")};
    auto c = CheckConflict(f.current(level), 8, {Info(false), Remove("shared.parquet")});
    ASSERT_TRUE(c.has_value()) << IsolationLevelName(level);
    EXPECT_EQ(c->type, ConflictType::kConcurrentDeleteRead);
  }
}

TEST(ConflictTest, RemoveWhileWholeTableReadConflicts) {
  Fixture f;
  f.read.whole_table = true;
  auto c = CheckConflict(f.current(IsolationLevel::kSnapshotIsolation), 8,
                         {Info(false), Remove("any.parquet")});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kConcurrentDeleteRead);
}

TEST(ConflictTest, BothRemoveSameFileWithoutReadingConflictsDeleteDelete) {
  Fixture f;
  f.actions = {Remove("dup.parquet")};
  auto c = CheckConflict(f.current(IsolationLevel::kSnapshotIsolation), 8,
                         {Info(false), Remove("dup.parquet")});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->type, ConflictType::kConcurrentDeleteDelete);
}

TEST(ConflictTest, DisjointRemovesDoNotConflict) {
  Fixture f;
  f.read.files = {"a.parquet"};
  f.actions = {Remove("a.parquet")};
  EXPECT_FALSE(CheckConflict(f.current(IsolationLevel::kWriteSerializable), 8,
                             {Info(false), Remove("b.parquet")}));
}

TEST(ConflictTest, IsolationLevelNamesRoundTrip) {
  for (IsolationLevel level : kAllLevels) {
    EXPECT_EQ(ParseIsolationLevel(IsolationLevelName(level)), level);
  }
  EXPECT_FALSE(ParseIsolationLevel("serializable").has_value());
}

}  // namespace
}  // namespace deltacommit
