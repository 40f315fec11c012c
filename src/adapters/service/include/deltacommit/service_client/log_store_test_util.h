// Helpers for tests that commit through Transactions to the service and
// coordinated log stores.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/log_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/table_features.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/transaction.h"

namespace deltacommit::testing {

inline AddFile AddOf(std::string path) {
  AddFile a;
  a.path = std::move(path);
  a.size = 10;
  return a;
}

// Version 0: protocol and metadata.
inline StatusOr<CommitOutcome> CreateTable(LogStore& log, Clock& clock, Sleeper& sleeper) {
  Metadata m;
  m.id = "tbl";
  m.schema_string = SchemaStringFromArgument("id:long").value();
  // Through a coordinator: a coordinated table, as `deltacommit create` makes.
  if (!log.CommitCoordinator().empty()) {
    AddCommitCoordinatorProperties(log.CommitCoordinator(), log.CommitCoordinatorConf(), &m);
  }
  DC_ASSIGN_OR_RETURN(Protocol p, ProtocolForNewTable(m));
  Transaction txn(log, nullptr, {}, clock, sleeper);
  txn.AddAction(p);
  txn.AddAction(m);
  return txn.Commit();
}

// A blind append of `paths` on top of `snapshot`.
inline StatusOr<CommitOutcome> Append(LogStore& log, std::shared_ptr<const Snapshot> snapshot,
                                      const std::vector<std::string>& paths, Clock& clock,
                                      Sleeper& sleeper) {
  Transaction txn(log, std::move(snapshot), {}, clock, sleeper);
  for (const std::string& p : paths) txn.AddAction(AddOf(p));
  return txn.Commit();
}

inline std::shared_ptr<const Snapshot> LatestSnapshot(LogStore& log) {
  auto snapshot = LoadSnapshot(log, {});
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  return snapshot.ok() ? *snapshot : nullptr;
}

inline std::vector<std::string> Keys(const std::vector<ObjectMeta>& metas) {
  std::vector<std::string> keys;
  for (const ObjectMeta& m : metas) keys.push_back(m.key);
  return keys;
}

}  // namespace deltacommit::testing
