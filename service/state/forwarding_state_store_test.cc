// ForwardingStateStore: every call reaches the wrapped store with its
// arguments and comes back with its answer, whether the wrapper borrows or
// owns the store.
#include "service/state/forwarding_state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

using ::testing::ElementsAre;

constexpr char kTable[] = "s3://bucket/t";

CommitRecord Record(Version version) {
  return {kTable,
          version,
          StagedCommitPath(version, NewUuid()),
          std::string(64, 'c'),
          10,
          1,
          2,
          false,
          {}};
}

// Records each call as "Name table arg" and answers from fixed values, so a
// test sees both directions of the forwarding.
class RecordingStateStore : public StateStore {
 public:
  std::string Describe() const override { return "recording state store"; }
  Status Ratify(const CommitRecord& record, RatifyConflict* conflict) override {
    Add("Ratify " + record.table + " " + std::to_string(record.version));
    if (conflict != nullptr) conflict->latest = 41;
    return AlreadyExistsError("taken");
  }
  StatusOr<std::optional<CommitRecord>> Get(const std::string& table,
                                            Version version) override {
    Add("Get " + table + " " + std::to_string(version));
    return std::optional<CommitRecord>(Record(version));
  }
  StatusOr<std::optional<CommitRecord>> Latest(
      const std::string& table) override {
    Add("Latest " + table);
    return std::optional<CommitRecord>(Record(41));
  }
  StatusOr<std::vector<CommitRecord>> ListFrom(const std::string& table,
                                               Version start,
                                               int64_t limit) override {
    Add("ListFrom " + table + " " + std::to_string(start) + " " +
        std::to_string(limit));
    return std::vector<CommitRecord>{Record(start)};
  }
  StatusOr<std::vector<CommitRecord>> Unpublished(const std::string& table,
                                                  int64_t limit) override {
    Add("Unpublished " + table + " " + std::to_string(limit));
    return std::vector<CommitRecord>{Record(40), Record(41)};
  }
  Status MarkPublishedThrough(const std::string& table,
                              Version version) override {
    Add("MarkPublishedThrough " + table + " " + std::to_string(version));
    return FailedPreconditionError("not ratified");
  }
  StatusOr<std::optional<AppliedTxn>> LatestAppTxn(
      const std::string& table, std::string_view app_id) override {
    Add("LatestAppTxn " + table + " " + std::string(app_id));
    return std::optional<AppliedTxn>(AppliedTxn{7, 40});
  }
  StatusOr<int64_t> ForgetPublishedBefore(const std::string& table,
                                          Version version) override {
    Add("ForgetPublishedBefore " + table + " " + std::to_string(version));
    return int64_t{3};
  }

  std::vector<std::string> calls;

 private:
  void Add(std::string call) { calls.push_back(std::move(call)); }
};

TEST(ForwardingStateStoreTest, EveryCallReachesTheWrappedStore) {
  RecordingStateStore base;
  ForwardingStateStore store(base);
  EXPECT_EQ(&store.base(), &base);
  EXPECT_EQ(store.Describe(), "recording state store");

  RatifyConflict conflict;
  EXPECT_TRUE(store.Ratify(Record(5), &conflict).IsAlreadyExists());
  EXPECT_EQ(conflict.latest, 41);
  EXPECT_EQ((*store.Get(kTable, 5))->version, 5);
  EXPECT_EQ((*store.Latest(kTable))->version, 41);
  EXPECT_EQ(store.ListFrom(kTable, 6, 10)->at(0).version, 6);
  EXPECT_EQ(store.Unpublished(kTable, 2)->size(), 2u);
  EXPECT_EQ(store.MarkPublishedThrough(kTable, 50).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(**store.LatestAppTxn(kTable, "app"), (AppliedTxn{7, 40}));
  EXPECT_EQ(*store.ForgetPublishedBefore(kTable, 40), 3);

  EXPECT_THAT(base.calls,
              ElementsAre("Ratify s3://bucket/t 5", "Get s3://bucket/t 5",
                          "Latest s3://bucket/t", "ListFrom s3://bucket/t 6 10",
                          "Unpublished s3://bucket/t 2",
                          "MarkPublishedThrough s3://bucket/t 50",
                          "LatestAppTxn s3://bucket/t app",
                          "ForgetPublishedBefore s3://bucket/t 40"));
}

TEST(ForwardingStateStoreTest, OwnsTheStoreItIsGiven) {
  auto owned = std::make_unique<RecordingStateStore>();
  RecordingStateStore* raw = owned.get();
  ForwardingStateStore store(std::move(owned));
  EXPECT_EQ(&store.base(), raw);
  EXPECT_TRUE(store.Latest(kTable).ok());
  EXPECT_THAT(raw->calls, ElementsAre("Latest s3://bucket/t"));
}

// Overrides Describe only; every call is the forwarding one.
class Renamed : public ForwardingStateStore {
 public:
  using ForwardingStateStore::ForwardingStateStore;
  std::string Describe() const override { return "renamed"; }
};

TEST(ForwardingStateStoreTest, SubclassOverridesOnlyWhatItNeeds) {
  RecordingStateStore base;
  Renamed store(base);
  EXPECT_EQ(store.Describe(), "renamed");
  EXPECT_TRUE(store.Unpublished(kTable, 1).ok());
  EXPECT_THAT(base.calls, ElementsAre("Unpublished s3://bucket/t 1"));
}

}  // namespace
}  // namespace deltacommit::service
