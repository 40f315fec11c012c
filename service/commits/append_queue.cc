#include "service/commits/append_queue.h"

#include <algorithm>

namespace deltacommit::service {

CommitReply AppendQueue::Submit(const std::string& table, QueuedAppend& item,
                                const RunBatch& run) {
  std::unique_lock lock(mu_);
  std::unique_ptr<Table>& slot = tables_[table];
  if (!slot) slot = std::make_unique<Table>();
  Table& t = *slot;
  if (static_cast<int64_t>(t.queue.size()) >= options_.max_queued) {
    if (t.threads == 0) tables_.erase(table);
    return CommitReply::Error(CommitOutcome::kUnavailable,
                              "the service has " + std::to_string(options_.max_queued) +
                                  " appends to " + table +
                                  " queued (max_queued_appends): retry later");
  }
  ++t.threads;
  t.queue.push_back(&item);
  t.arrived.notify_one();
  while (!item.reply) {
    if (t.running) {
      t.changed.wait(lock);
    } else {
      Lead(t, lock, run);
    }
  }
  if (--t.threads == 0) tables_.erase(table);
  return std::move(*item.reply);
}

void AppendQueue::Lead(Table& t, std::unique_lock<std::mutex>& lock, const RunBatch& run) {
  t.running = true;
  if (options_.max_wait.count() > 0) {
    t.arrived.wait_for(lock, options_.max_wait, [&] {
      return static_cast<int64_t>(t.queue.size()) >= options_.fill;
    });
  }
  const std::vector<QueuedAppend*> queued(t.queue.begin(), t.queue.end());
  lock.unlock();
  run(queued);
  lock.lock();
  std::erase_if(t.queue, [](QueuedAppend* q) {
    if (!q->reply) ++q->batches;
    return q->reply.has_value();
  });
  t.running = false;
  t.changed.notify_all();
}

}  // namespace deltacommit::service
