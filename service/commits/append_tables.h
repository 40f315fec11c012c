// AppendTables: what the service knows of each table to answer appends
// (docs/protocols/group-commit.md, "What the service tracks per table"),
// kept between batches and brought up to date from the table's JSON log.
//
// The service reads log files, never data, and links no Parquet reader: a
// table whose protocol and metaData are only in a checkpoint cannot be
// tracked, and its appends are refused (kFailedPrecondition) so the writer
// commits with a version instead.
//
// Thread-safety: safe for concurrent use; callers serialise each table
// (TableLocks), so Load and Store of one table never interleave.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "deltacommit/object_store.h"
#include "deltacommit/status.h"
#include "service/commits/append_batch.h"

namespace deltacommit::service {

struct AppendTablesOptions {
  // Most commit files one Load reads: to catch up with commits made around
  // this instance, or to find protocol and metaData reading back.
  int64_t max_log_reads = 1000;
  int64_t max_tables = 10'000;            // cached; beyond, the cache restarts
  int64_t max_app_ids_per_table = 100'000;  // beyond, the state store answers
};

class AppendTables {
 public:
  explicit AppendTables(AppendTablesOptions options = {}) : options_(options) {}

  // The state of `table` at `latest`, its latest version, every commit of
  // which is published: the cached state moved forward over the commits
  // after it, or else rebuilt from _delta_log/<latest>.json back to the
  // last protocol and metaData. app_txns holds what those commits showed.
  //   kFailedPrecondition  not knowable from the JSON log (why, in words)
  //   others               the store's errors, a commit that does not parse
  StatusOr<AppendTableState> Load(const std::string& table, Version latest,
                                  ObjectStore& store);

  // Keeps `state` as the table's state (after a batch was ratified).
  void Store(const std::string& table, AppendTableState state);
  // Drops the table's state: the next Load reads the log again.
  void Forget(const std::string& table);

 private:
  StatusOr<AppendTableState> CatchUp(AppendTableState state, Version latest,
                                     ObjectStore& store);
  StatusOr<AppendTableState> ReadBack(Version latest, ObjectStore& store);

  const AppendTablesOptions options_;
  std::mutex mu_;
  std::map<std::string, AppendTableState, std::less<>> tables_;
};

}  // namespace deltacommit::service
