// The CoordinationTable listing contract on the in-memory table (the
// DynamoDB adapter is held to it by its own unit and integration tests), and
// ForEachCommitEntry's paging.
#include "deltacommit/coordination_table.h"

#include <string>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/testing/memory_coordination_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kPath[] = "s3a://bucket/t";

ExternalCommitEntry Entry(const std::string& table_path, Version v) {
  return {table_path, CommitFileName(v), ".tmp/" + CommitFileName(v) + ".u", false, std::nullopt};
}

std::vector<std::string> Names(const std::vector<ExternalCommitEntry>& entries) {
  std::vector<std::string> names;
  for (const ExternalCommitEntry& e : entries) names.push_back(e.file_name);
  return names;
}

class MemoryListPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Neighbouring table paths (a prefix, a longer one) must not leak in.
    for (Version v : {3, 0, 10, 1, 2}) ASSERT_TRUE(table_.PutIfAbsent(Entry(kPath, v)).ok());
    ASSERT_TRUE(table_.PutIfAbsent(Entry("s3a://bucket", 5)).ok());
    ASSERT_TRUE(table_.PutIfAbsent(Entry("s3a://bucket/t2", 0)).ok());
  }
  MemoryCoordinationTable table_;
};

TEST_F(MemoryListPageTest, PagesAreAscendingAndChainByStartAfter) {
  auto first = table_.ListPage(kPath, "", 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Names(first->entries),
            (std::vector<std::string>{CommitFileName(0), CommitFileName(1)}));
  ASSERT_EQ(first->next_start_after, CommitFileName(1));
  auto second = table_.ListPage(kPath, *first->next_start_after, 2);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(Names(second->entries),
            (std::vector<std::string>{CommitFileName(2), CommitFileName(3)}));
  ASSERT_EQ(second->next_start_after, CommitFileName(3));
  auto last = table_.ListPage(kPath, *second->next_start_after, 2);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(Names(last->entries), (std::vector<std::string>{CommitFileName(10)}));
  EXPECT_FALSE(last->next_start_after.has_value());
}

TEST_F(MemoryListPageTest, StartAfterNeedNotBeAnEntry) {
  auto page = table_.ListPage(kPath, CommitFileName(5), 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Names(page->entries), (std::vector<std::string>{CommitFileName(10)}));
  EXPECT_FALSE(page->next_start_after.has_value());
}

TEST_F(MemoryListPageTest, UnknownTablePathIsAnEmptyLastPage) {
  auto page = table_.ListPage("s3a://other/t", "", 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_THAT(page->entries, IsEmpty());
  EXPECT_FALSE(page->next_start_after.has_value());
}

TEST_F(MemoryListPageTest, LimitMustBePositive) {
  auto page = table_.ListPage(kPath, "", 0);
  EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(page.status().message(), HasSubstr("page limit 0 is not positive"));
}

TEST_F(MemoryListPageTest, ForEachCommitEntryVisitsEveryEntryOnceInOrder) {
  for (int page_size : {1, 2, 5, 100}) {
    std::vector<std::string> seen;
    Status s = ForEachCommitEntry(table_, kPath, page_size, [&](const ExternalCommitEntry& e) {
      seen.push_back(e.file_name);
      return OkStatus();
    });
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(seen, (std::vector<std::string>{CommitFileName(0), CommitFileName(1),
                                              CommitFileName(2), CommitFileName(3),
                                              CommitFileName(10)}))
        << "page size " << page_size;
  }
}

// A table whose listing hands back the same page for ever.
class StuckTable : public MemoryCoordinationTable {
 public:
  StatusOr<CommitEntryPage> ListPage(const std::string&, const std::string&, int) override {
    return CommitEntryPage{{}, std::string()};
  }
};

TEST(ForEachCommitEntryTest, ListingThatDoesNotAdvanceIsAnErrorNotALoop) {
  StuckTable table;
  Status s = ForEachCommitEntry(table, kPath, 10,
                                [](const ExternalCommitEntry&) { return OkStatus(); });
  EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("did not advance"));
}

}  // namespace
}  // namespace deltacommit
