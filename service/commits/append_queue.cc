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
    // The oldest waiting append's thread leads: first come, first served.
    if (!t.running && t.queue.front() == &item) {
      Lead(t, lock, run);
    } else {
      t.changed.wait(lock);
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
  Replies replies = run(std::vector<const QueuedAppend*>(queued.begin(), queued.end()));
  lock.lock();
  replies.resize(queued.size());
  const bool fruitless = std::none_of(replies.begin(), replies.end(),
                                      [](const auto& r) { return r.has_value(); });
  for (size_t i = 0; i < queued.size(); ++i) {
    QueuedAppend& q = *queued[i];
    if (replies[i]) {
      q.reply = std::move(replies[i]);
    } else if (fruitless && ++q.fruitless >= options_.max_fruitless_batches) {
      q.reply = CommitReply::Error(
          CommitOutcome::kUnavailable,
          "the append waited through " + std::to_string(q.fruitless) +
              " batches that lost their version to another instance: retry it (its txn "
              "recognises it if it landed)");
    }
  }
  std::erase_if(t.queue, [](const QueuedAppend* q) { return q->reply.has_value(); });
  t.running = false;
  t.changed.notify_all();
}

}  // namespace deltacommit::service
