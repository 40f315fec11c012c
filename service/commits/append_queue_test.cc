// AppendQueue: leaders, batches, and the guard against batches that answer
// nothing.
#include "service/commits/append_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

TEST(AppendQueueTest, EachAppendGetsTheReplyItsBatchGaveIt) {
  AppendQueue queue;
  std::atomic<int> batches{0};
  // Answers only the first append of each batch, with its position in the
  // batch's arrival order: the rest wait for the next batch.
  const AppendQueue::RunBatch run = [&](const std::vector<const QueuedAppend*>& queued) {
    ++batches;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    AppendQueue::Replies replies(queued.size());
    replies[0] = CommitReply::Ok(queued[0]->append.read_version, true);
    return replies;
  };
  constexpr int kAppends = 40;
  std::vector<CommitReply> replies(kAppends);
  std::vector<std::thread> threads;
  for (int i = 0; i < kAppends; ++i) {
    threads.emplace_back([&, i] {
      QueuedAppend item;
      item.append.read_version = i;  // stands for "which append"
      replies[static_cast<size_t>(i)] = queue.Submit("t", item, run);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kAppends; ++i) {
    ASSERT_TRUE(replies[static_cast<size_t>(i)].ok());
    EXPECT_EQ(replies[static_cast<size_t>(i)].version, i);  // its own reply
  }
  EXPECT_EQ(batches.load(), kAppends);
}

TEST(AppendQueueTest, AppendsOfBatchesThatAnswerNothingAreRefusedAfterTheLimit) {
  AppendQueue queue(AppendQueueOptions{.max_queued = 10,
                                       .max_wait = std::chrono::milliseconds(0),
                                       .fill = 10,
                                       .max_fruitless_batches = 3});
  int runs = 0;
  QueuedAppend item;
  CommitReply reply = queue.Submit("t", item, [&](const std::vector<const QueuedAppend*>& q) {
    ++runs;
    return AppendQueue::Replies(q.size());  // lost the version, every time
  });
  EXPECT_EQ(reply.outcome, CommitOutcome::kUnavailable);
  EXPECT_THAT(reply.message, HasSubstr("3 batches that lost their version"));
  EXPECT_EQ(runs, 3);
}

TEST(AppendQueueTest, AFullQueueIsRefusedAtOnce) {
  AppendQueue queue(AppendQueueOptions{.max_queued = 1,
                                       .max_wait = std::chrono::milliseconds(0),
                                       .fill = 1,
                                       .max_fruitless_batches = 100});
  std::atomic<bool> in_batch{false}, release{false};
  std::thread first([&] {
    QueuedAppend item;
    queue.Submit("t", item, [&](const std::vector<const QueuedAppend*>& q) {
      in_batch = true;
      while (!release) std::this_thread::yield();
      return AppendQueue::Replies(q.size(), CommitReply::Ok(1, true));
    });
  });
  while (!in_batch) std::this_thread::yield();
  QueuedAppend second;
  CommitReply refused = queue.Submit("t", second, [](const auto& q) {
    return AppendQueue::Replies(q.size(), CommitReply::Ok(2, true));
  });
  release = true;
  first.join();
  EXPECT_EQ(refused.outcome, CommitOutcome::kUnavailable);
  EXPECT_THAT(refused.message, HasSubstr("max_queued_appends"));
}

}  // namespace
}  // namespace deltacommit::service
