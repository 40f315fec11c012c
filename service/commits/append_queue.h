// AppendQueue: the per-table queues of appends waiting for a batch, and the
// choice of the batch leader (docs/protocols/group-commit.md, steps 2, 3, 6).
//
// Every request thread enqueues its append and waits. When no batch of its
// table is running, a waiting thread becomes the leader: it takes the queued
// appends (in arrival order) and runs one batch with them outside the
// queue's lock; the batch decides about some of them (merged, duplicate,
// refused, failed) and leaves the rest queued for the next batch. The
// leader is always the thread of the oldest append waiting. Its
// replies are handed to the appends under the lock after the batch: an
// append's thread may wake at any time, and leaves as soon as it sees its
// reply, so nothing may touch the append after that. A leader whose own
// append was answered returns; another waiting thread leads the next batch.
// So no thread waits for batches after its own reply, and a table whose
// appends keep coming never starves. A batch that answers nothing (it lost
// the version to another instance) counts against its appends: after
// max_fruitless_batches of those an append is answered kUnavailable.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "service/commits/append_batch.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service {

// One append waiting for its batch. Owned by its request's thread.
struct QueuedAppend {
  const CommitRequest* request = nullptr;
  BlindAppend append;
  // Set by the queue (under its lock) from the batch that answered it.
  std::optional<CommitReply> reply;
  int64_t fruitless = 0;  // batches it was in that answered nothing
};

struct AppendQueueOptions {
  int64_t max_queued = 1024;  // per table; beyond, kUnavailable at once
  // How long a leader waits for more appends before taking the queue, when
  // fewer than `fill` are queued (0: take what is queued).
  std::chrono::milliseconds max_wait{0};
  int64_t fill = 1000;
  int64_t max_fruitless_batches = 100;
};

class AppendQueue {
 public:
  // Runs one batch over `queued` (read-only): returns one entry per append,
  // its reply where the batch decided about it, else nullopt (next batch).
  using Replies = std::vector<std::optional<CommitReply>>;
  using RunBatch = std::function<Replies(const std::vector<const QueuedAppend*>& queued)>;

  explicit AppendQueue(AppendQueueOptions options = {}) : options_(options) {}

  // Queues `item` on `table`'s queue and returns once a batch answered it,
  // running batches with `run` whenever none of the table is running.
  // kUnavailable when the table's queue is full.
  CommitReply Submit(const std::string& table, QueuedAppend& item, const RunBatch& run);

 private:
  struct Table {
    std::deque<QueuedAppend*> queue;
    bool running = false;
    int64_t threads = 0;  // inside Submit: the entry lives while any is
    std::condition_variable changed;  // a batch ended
    std::condition_variable arrived;  // an append was queued
  };

  void Lead(Table& t, std::unique_lock<std::mutex>& lock, const RunBatch& run);

  const AppendQueueOptions options_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Table>, std::less<>> tables_;
};

}  // namespace deltacommit::service
