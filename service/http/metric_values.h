// The values behind Prometheus metrics: Counter, Gauge and Histogram. Each
// update is a few relaxed atomic operations and takes no lock, so handlers
// and I/O threads can update them on every request.
//
// Thread-safety: all methods are safe to call concurrently. A reader may see
// a histogram's sum and its buckets from slightly different moments, as
// with every Prometheus client.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace deltacommit::http {

// Only goes up.
class Counter {
 public:
  void Increment(uint64_t n = 1) {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Goes up and down: open connections, handlers in flight.
class Gauge {
 public:
  void Add(int64_t n) { value_.fetch_add(n, std::memory_order_relaxed); }
  void Set(int64_t n) { value_.store(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// Counts observations into buckets by upper bound (inclusive, as Prometheus
// defines "le"), plus their sum.
class Histogram {
 public:
  // REQUIRES: `upper_bounds` finite and strictly ascending.
  explicit Histogram(std::vector<double> upper_bounds);

  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // per bound, then +Inf (== count)
    double sum = 0;
  };
  Snapshot Read() const;
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }

 private:
  const std::vector<double> upper_bounds_;
  // Per bucket, not cumulative; the last one is +Inf.
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

}  // namespace deltacommit::http
