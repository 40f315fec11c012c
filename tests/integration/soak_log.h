// What the soak checks in each table's log, read straight from the store.
#pragma once

#include <atomic>
#include <map>
#include <string>

#include "deltacommit/object_store.h"

namespace deltacommit::testing {

struct SoakCounters {
  std::atomic<int> writers_killed{0};
  std::atomic<int> failed_attempts{0};
};

// The tag of writer w's c-th commit: its add is part-<tag>.parquet and its
// txn is (soak-w<w>, c).
std::string SoakTag(int writer, int commit);

// `table`'s log under `store` holds versions contiguous from 0, every file
// whole (each line JSON), and exactly the adds and txns of `expected` (tag
// -> writer), each once. Failures are gtest failures.
void ExpectSoakLog(ObjectStore& store, const std::string& table,
                   const std::map<std::string, int>& expected);

}  // namespace deltacommit::testing
