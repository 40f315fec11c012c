// WorkerPool: a fixed set of threads running blocking jobs (request
// handlers, which call S3 and the state store) off the I/O threads, with a
// bounded queue so that overload is refused at once instead of piling up.
//
// Thread-safety: all methods are safe to call concurrently.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace deltacommit::http {

class WorkerPool {
 public:
  // REQUIRES: threads >= 1. At most `max_queued` jobs wait for a thread.
  WorkerPool(size_t threads, size_t max_queued);
  ~WorkerPool();  // Stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `job`; false (and `job` dropped) when the queue is full or the
  // pool is stopping. A job must not throw.
  bool TrySubmit(std::function<void()> job);

  // Refuses new jobs, runs the queued ones, joins the threads. Idempotent.
  // REQUIRES: not called from a job.
  void Stop();

  // Jobs waiting for a thread (not those running).
  size_t queued() const;

 private:
  void Run();

  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
  std::mutex join_mu_;                      // one Stop() joins at a time
  std::vector<std::thread> threads_;        // joined under join_mu_
};

}  // namespace deltacommit::http
