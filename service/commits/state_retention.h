// StateRetention: keeps the commit service's state bounded. Without it the
// state store holds one record per commit ever ratified; a table that has
// taken a million commits would carry a million records, though readers
// find every published commit in _delta_log/<v>.json.
//
// Each time a table's published version reaches a multiple of `every`, the
// records of published versions more than `keep_published` below it are
// forgotten (StateStore::ForgetPublishedBefore), on a thread of its own so
// that no commit waits for the deletes. What forgetting keeps:
//   - the latest record (the store never forgets it) and every unpublished
//     one, so ratification is unaffected;
//   - each application's latest txn (kept apart from the records), so a
//     writer's retry of an append is still recognised;
//   - a resend of a forgotten commit is still told from a conflict, by
//     comparing it with the published <v>.json (CommitService::Resolve).
// A failed forget is logged and retried at the next multiple.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "service/state/state_store.h"

namespace deltacommit::service {

struct RetentionOptions {
  // Published versions kept below the published one; -1 keeps every record.
  int64_t keep_published = 1000;
  // Versions published between two forgets of one table (below 1: 1).
  int64_t every = 100;
};

class StateRetention {
 public:
  // `state` must outlive this object. Starts one thread unless
  // keep_published is -1.
  StateRetention(StateStore& state, RetentionOptions options,
                 std::shared_ptr<spdlog::logger> logger);
  // Stop().
  ~StateRetention();
  StateRetention(const StateRetention&) = delete;
  StateRetention& operator=(const StateRetention&) = delete;

  // Tells that every version of `table` <= `version` is published (after
  // StateStore::MarkPublishedThrough). Cheap; never blocks on the store.
  void Published(const std::string& table, Version version);

  // Finishes the forget in progress, drops the others. Idempotent.
  void Stop();

  // Blocks until nothing is left to forget or `timeout` passes; true when
  // nothing is. For tests and benchmarks.
  bool WaitIdle(std::chrono::milliseconds timeout);

  // Records forgotten since construction.
  int64_t forgotten() const;

 private:
  void Run();

  StateStore& state_;
  const RetentionOptions options_;
  std::shared_ptr<spdlog::logger> logger_;

  mutable std::mutex mu_;
  std::condition_variable cv_;          // work queued, done, or stop
  std::map<std::string, Version> due_;  // table -> forget below; guarded by mu_
  bool running_ = false;                // a forget is in progress; guarded by mu_
  bool stopping_ = false;               // guarded by mu_
  int64_t forgotten_ = 0;               // guarded by mu_
  std::thread thread_;
};

}  // namespace deltacommit::service
