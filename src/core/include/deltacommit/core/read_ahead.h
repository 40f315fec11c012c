// ReadAhead: files a reader takes in order, fetched ahead of it on a few
// threads, so that a remote store's round trips overlap instead of adding
// up: the commits a snapshot load replays after a checkpoint (each one GET
// on S3), a checkpoint's parts and sidecars.
//
// The reader takes the files in order; at most `concurrency` reads are in
// flight, and no read starts more than 2 x `concurrency` files ahead of the
// one the reader takes next, so a long log is never held in memory whole.
// With a concurrency of 1 nothing runs ahead: Take reads the file itself.
//
// Thread-safety: Take is called by one thread, in order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/log_store.h"
#include "deltacommit/status.h"

namespace deltacommit {

class ReadAhead {
 public:
  // Fetches one file; called from several threads at once.
  using Fetch = std::function<StatusOr<std::string>(const std::string& key)>;

  // `concurrency` below 1 counts as 1.
  ReadAhead(Fetch fetch, std::vector<std::string> keys, int concurrency);
  // LogStore::Read of each key. `log` must outlive this object.
  ReadAhead(LogStore& log, std::vector<std::string> keys, int concurrency);
  // Stops reading ahead: reads in flight finish (bounded by the store's
  // timeouts), no new one starts.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The content of keys[i], as `fetch` returned it.
  // REQUIRES: i is 0 on the first call and one more on each next call.
  StatusOr<std::string> Take(size_t i);

 private:
  void Work();

  const Fetch fetch_;
  const std::vector<std::string> keys_;
  const size_t window_;  // how far ahead of the reader a read may start

  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;   // the next file a worker claims; guarded by mu_
  size_t taken_ = 0;  // files the reader has taken; guarded by mu_
  bool stopping_ = false;
  std::vector<std::optional<StatusOr<std::string>>> results_;  // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace deltacommit
