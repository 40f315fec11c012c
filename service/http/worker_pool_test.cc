#include "service/http/worker_pool.h"

#include <atomic>
#include <future>
#include <set>
#include <thread>

#include "gtest/gtest.h"

namespace deltacommit::http {
namespace {

TEST(WorkerPoolTest, RunsJobsOnItsThreads) {
  WorkerPool pool(3, 100);
  std::atomic<int> ran{0};
  std::mutex mu;
  std::set<std::thread::id> threads;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(pool.TrySubmit([&] {
      ran.fetch_add(1);
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    }));
  }
  pool.Stop();  // runs what is queued
  EXPECT_EQ(ran.load(), 50);
  EXPECT_LE(threads.size(), 3u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(WorkerPoolTest, FullQueueRefusesAtOnce) {
  WorkerPool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  ASSERT_TRUE(pool.TrySubmit([&started, released] {
    started.set_value();
    released.wait();
  }));
  started.get_future().wait();  // the only thread is busy
  EXPECT_TRUE(pool.TrySubmit([] {}));
  EXPECT_TRUE(pool.TrySubmit([] {}));
  EXPECT_EQ(pool.queued(), 2u);
  EXPECT_FALSE(pool.TrySubmit([] {}));  // third waiting job: refused
  release.set_value();
  pool.Stop();
  EXPECT_EQ(pool.queued(), 0u);
}

TEST(WorkerPoolTest, StoppedPoolRefusesAndStopIsIdempotent) {
  WorkerPool pool(2, 10);
  pool.Stop();
  EXPECT_FALSE(pool.TrySubmit([] {}));
  pool.Stop();
}

TEST(WorkerPoolTest, ConcurrentStopsBothReturn) {
  WorkerPool pool(2, 10);
  ASSERT_TRUE(pool.TrySubmit(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }));
  std::thread other([&] { pool.Stop(); });
  pool.Stop();
  other.join();
}

}  // namespace
}  // namespace deltacommit::http
