// Transactions and coordinated tables: the writer's log store names its
// commit coordinator, the table names its own, and a commit between the two
// that do not match is refused before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/commit_coordinator.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/table_features.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_object_store.h"
#include "deltacommit/transaction.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

// A filesystem log store that says it commits through coordinator "deltacommit"
// (the coordinated store's ratification is tested with the service).
class NamedCoordinatorLogStore : public ObjectStoreLogStore {
 public:
  using ObjectStoreLogStore::ObjectStoreLogStore;
  std::string CommitCoordinator() const override {
    return std::string(kDeltacommitCoordinator);
  }
};

class TransactionCoordinatorTest : public ::testing::Test {
 protected:
  // Creates the table through `log`, coordinated when `coordinated`.
  void Create(LogStore& log, bool coordinated) {
    Metadata m;
    m.id = "tbl";
    m.schema_string = SchemaStringFromArgument("id:long").value();
    if (coordinated) AddCommitCoordinatorProperties(kDeltacommitCoordinator, "{}", &m);
    StatusOr<Protocol> p = ProtocolForNewTable(m);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    Transaction txn(log, nullptr, {}, clock_, sleeper_);
    txn.AddAction(*p);
    txn.AddAction(m);
    StatusOr<CommitOutcome> o = txn.Commit();
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    ASSERT_EQ(o->result, CommitResult::kCommitted);
  }

  StatusOr<CommitOutcome> Append(LogStore& log, const std::string& path) {
    StatusOr<std::shared_ptr<const Snapshot>> snapshot = LoadSnapshot(log, {});
    if (!snapshot.ok()) return snapshot.status();
    Transaction txn(log, *snapshot, {}, clock_, sleeper_);
    AddFile add;
    add.path = path;
    add.size = 1;
    txn.AddAction(add);
    return txn.Commit();
  }

  bool Exists(Version v) { return memory_.Head(CommitPath(v)).ok(); }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryObjectStore memory_{clock_};
  ObjectStoreLogStore filesystem_{memory_, "memory"};
  NamedCoordinatorLogStore coordinated_{memory_, "memory"};
};

TEST_F(TransactionCoordinatorTest, OnlyTheCoordinatorsWritersCommitToACoordinatedTable) {
  Create(coordinated_, true);
  StatusOr<CommitOutcome> ours = Append(coordinated_, "a.parquet");
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->version, 1);
  // Delta requires in-commit timestamps on coordinated tables; they are on.
  StatusOr<std::vector<Action>> actions = ReadCommit(coordinated_, 1);
  ASSERT_TRUE(actions.ok());
  EXPECT_TRUE(std::get<CommitInfo>(actions->front()).in_commit_timestamp.has_value());

  StatusOr<CommitOutcome> around = Append(filesystem_, "b.parquet");
  EXPECT_EQ(around.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(around.status().message(), HasSubstr("would bypass it"));
  EXPECT_FALSE(Exists(2));
}

TEST_F(TransactionCoordinatorTest, ACoordinatedWriterRefusesAPlainTable) {
  Create(filesystem_, false);
  StatusOr<CommitOutcome> o = Append(coordinated_, "a.parquet");
  EXPECT_EQ(o.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(o.status().message(), HasSubstr("names no commit coordinator"));
  EXPECT_FALSE(Exists(1));
  ASSERT_TRUE(Append(filesystem_, "a.parquet").ok());
}

TEST_F(TransactionCoordinatorTest, AFilesystemWriterMayCreateACoordinatedTable) {
  Create(filesystem_, true);
  EXPECT_TRUE(Append(coordinated_, "a.parquet").ok());
  EXPECT_FALSE(Append(filesystem_, "b.parquet").ok());
}

}  // namespace
}  // namespace deltacommit
