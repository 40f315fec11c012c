#include "service_load/committers.h"

#include <algorithm>
#include <charconv>
#include <latch>
#include <thread>

#include "deltacommit/action_json.h"

namespace deltacommit::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// After an error, wait this long before the next attempt (the service asks
// for Retry-After: 1 on 503, but a bench that sleeps a second hides nothing).
constexpr std::chrono::milliseconds kErrorBackoff{50};
// After the deadline, a commit that keeps failing is given up this late.
constexpr std::chrono::seconds kErrorGrace{30};

constexpr int64_t kTimestampMs = 1700000000000;

double Ms(SteadyClock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Commits `seq` at `next` or later until acknowledged; false when it was
// given up. `next` ends as the version to try for the following commit.
bool CommitOne(CommitMethod& path, int64_t seq, Version& next,
               SteadyClock::time_point deadline, CommitterResult& result) {
  const std::string content = CommitContent(result.id, seq);
  const auto start = SteadyClock::now();
  for (;;) {
    ++result.attempts;
    Attempt attempt = path.Try(next, content);
    if (attempt.kind == Attempt::Kind::kCommitted) {
      if (attempt.version >= 0) next = attempt.version;  // assigned
      result.commits.emplace_back(seq, next);
      result.latencies_ms.push_back(Ms(SteadyClock::now() - start));
      if (attempt.unpublished) ++result.unpublished;
      ++next;
      return true;
    }
    if (attempt.kind == Attempt::Kind::kConflict) {
      ++result.conflicts;
      next = attempt.latest + 1;
      // Definitely not committed: safe to stop here.
      if (SteadyClock::now() >= deadline) return false;
      continue;
    }
    ++result.errors[attempt.error];
    if (attempt.refusal) ++result.refusals;
    if (SteadyClock::now() >= deadline + kErrorGrace) {
      ++result.abandoned;
      return false;
    }
    std::this_thread::sleep_for(kErrorBackoff);
  }
}

}  // namespace

LoadRun RunCommitters(const std::vector<std::string>& tables,
                      const CommitMethodFactory& factory,
                      std::chrono::milliseconds duration,
                      Version first_version) {
  const size_t n = tables.size();
  LoadRun run;
  run.committers.resize(n);
  std::vector<SteadyClock::time_point> ends(n);
  std::latch ready(static_cast<std::ptrdiff_t>(n + 1));
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      CommitterResult& result = run.committers[i];
      result.id = static_cast<int>(i);
      result.table = tables[i];
      std::unique_ptr<CommitMethod> path = factory(tables[i]);
      ready.arrive_and_wait();
      const auto deadline = SteadyClock::now() + duration;
      Version next = first_version;
      for (int64_t seq = 0; SteadyClock::now() < deadline; ++seq) {
        if (!CommitOne(*path, seq, next, deadline, result)) break;
      }
      ends[i] = SteadyClock::now();
    });
  }
  ready.arrive_and_wait();
  const auto start = SteadyClock::now();
  for (std::thread& t : threads) t.join();
  const auto last =
      n == 0 ? start : *std::max_element(ends.begin(), ends.end());
  run.seconds = std::chrono::duration<double>(last - start).count();
  return run;
}

std::string CommitContent(int id, int64_t seq) {
  CommitInfo info;
  info.timestamp = kTimestampMs + seq;
  info.operation = "WRITE";
  info.is_blind_append = true;
  SetTransaction txn;
  txn.app_id = "c" + std::to_string(id);
  txn.version = seq;
  AddFile add;
  add.path =
      "c" + std::to_string(id) + "/part-" + std::to_string(seq) + ".parquet";
  add.size = 100;
  add.modification_time = kTimestampMs + seq;
  add.data_change = true;
  return ActionsToCommit({info, txn, add});
}

bool ParseAddPath(std::string_view path, int& id, int64_t& seq) {
  constexpr std::string_view kPart = "/part-";
  constexpr std::string_view kSuffix = ".parquet";
  const size_t part = path.find(kPart);
  if (!path.starts_with("c") || part == std::string_view::npos ||
      !path.ends_with(kSuffix)) {
    return false;
  }
  const std::string_view id_text = path.substr(1, part - 1);
  const std::string_view seq_text = path.substr(
      part + kPart.size(), path.size() - part - kPart.size() - kSuffix.size());
  auto [id_end, id_error] =
      std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  auto [seq_end, seq_error] =
      std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), seq);
  return id_error == std::errc() && seq_error == std::errc() &&
         id_end == id_text.data() + id_text.size() &&
         seq_end == seq_text.data() + seq_text.size();
}

std::string CreateTableContent() {
  CommitInfo info;
  info.timestamp = kTimestampMs;
  info.operation = "CREATE TABLE";
  Metadata metadata;
  metadata.id = "service-load-bench";
  metadata.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
  metadata.created_time = kTimestampMs;
  return ActionsToCommit({info, Protocol{}, metadata});
}

}  // namespace deltacommit::bench
