// Publisher: publishes ratified commits in the background (coordinated
// mode, and service-mode commits whose publishing failed after they were
// ratified). Each table is published in version order with the credentials
// of the latest request that scheduled it, while they are valid: they are
// held in memory only, never logged or stored, and dropped when they
// expire, when S3 refuses them, or once the table has nothing left to
// publish. What is left unpublished stays ratified in the state store and
// is published by the table's next request (which brings fresh credentials).
//
// Failures other than refused credentials and an inconsistent log are
// retried with exponential backoff.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "service/commits/commit_steps.h"
#include "service/commits/object_store_factory.h"
#include "service/commits/table_locks.h"

namespace deltacommit::service {

struct PublisherOptions {
  int threads = 2;
  std::chrono::milliseconds first_retry{250};
  std::chrono::milliseconds max_retry{30'000};
  // Credentials closer than this to their expiration are dropped.
  int64_t min_credentials_validity_ms = 5'000;
};

class Publisher {
 public:
  // Every reference must outlive this object. Starts options.threads threads.
  Publisher(CommitSteps& steps, ObjectStoreFactory& stores, TableLocks& locks,
            PublisherOptions options = {});
  // Stop().
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Publishes access.table's ratified commits soon, with access's
  // credentials (kept if they expire later than those already held).
  void Schedule(const TableAccess& access);

  // Stops the threads once each has finished the table it is publishing.
  // Idempotent; Schedule afterwards does nothing.
  void Stop();

  // Blocks until no table is scheduled or `timeout` passes; true when none
  // is. For tests and graceful shutdown.
  bool WaitIdle(std::chrono::milliseconds timeout);

  // Tables scheduled (waiting, retrying or being published).
  size_t ScheduledTables() const;

 private:
  using TimePoint = std::chrono::steady_clock::time_point;
  struct Work {
    TableAccess access;
    uint64_t generation = 0;  // bumped by every Schedule
    int failures = 0;
    TimePoint due;
    bool running = false;
  };

  void Run();
  // REQUIRES: mu_ held. A table due now, dropping expired credentials;
  // otherwise sets *wake to the next due time (if any).
  std::optional<std::string> NextDue(std::optional<TimePoint>* wake);
  StepResult PublishTable(const TableAccess& access);
  // REQUIRES: mu_ held.
  void Finish(const std::string& table, uint64_t generation, const StepResult& failure);
  std::chrono::milliseconds Backoff(int failures) const;

  CommitSteps& steps_;
  ObjectStoreFactory& stores_;
  TableLocks& locks_;
  const PublisherOptions options_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;      // new work or stop
  std::condition_variable idle_cv_;      // work_ changed
  std::map<std::string, Work> work_;     // guarded by mu_
  bool stopping_ = false;                // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace deltacommit::service
