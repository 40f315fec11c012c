#include "service/commits/publisher.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <spdlog/logger.h>

#include "service/commits/commit_checks.h"

namespace deltacommit::service {

Publisher::Publisher(CommitSteps& steps, ObjectStoreFactory& stores, TableLocks& locks,
                     PublisherOptions options)
    : steps_(steps), stores_(stores), locks_(locks), options_(options) {
  const int threads = std::max(1, options_.threads);
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

Publisher::~Publisher() { Stop(); }

void Publisher::Schedule(const TableAccess& access) {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  auto [it, inserted] = work_.try_emplace(access.table);
  Work& work = it->second;
  const auto expiration = [](const TableAccess& a) {
    return a.credentials.expiration_ms.value_or(0);
  };
  if (inserted || expiration(access) >= expiration(work.access)) work.access = access;
  ++work.generation;
  work.failures = 0;
  work.due = std::chrono::steady_clock::now();
  work_cv_.notify_one();
}

void Publisher::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::lock_guard lock(mu_);
  work_.clear();  // the credentials go with it; the commits stay ratified
  idle_cv_.notify_all();
}

bool Publisher::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] { return work_.empty(); });
}

size_t Publisher::ScheduledTables() const {
  std::lock_guard lock(mu_);
  return work_.size();
}

void Publisher::Run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    std::optional<TimePoint> wake;
    std::optional<std::string> table = NextDue(&wake);
    if (!table) {
      if (wake) {
        work_cv_.wait_until(lock, *wake);
      } else {
        work_cv_.wait(lock);
      }
      continue;
    }
    Work& work = work_.at(*table);
    work.running = true;
    const TableAccess access = work.access;
    const uint64_t generation = work.generation;
    lock.unlock();
    StepResult failure = PublishTable(access);
    lock.lock();
    Finish(*table, generation, failure);
  }
}

std::optional<std::string> Publisher::NextDue(std::optional<TimePoint>* wake) {
  const TimePoint now = std::chrono::steady_clock::now();
  const int64_t now_ms = steps_.clock().NowMillis();
  for (auto it = work_.begin(); it != work_.end();) {
    Work& work = it->second;
    if (!work.running && !work.access.local() &&
        !CheckRequestCredentials(work.access.credentials, now_ms,
                                                  options_.min_credentials_validity_ms)
                              .ok()) {
      steps_.logger().info(
          "publisher: dropping the credentials for {}: they expire; its unpublished commits "
          "stay ratified until its next request",
          it->first);
      it = work_.erase(it);
      idle_cv_.notify_all();
      continue;
    }
    if (!work.running && work.due <= now) return it->first;
    if (!work.running && (!*wake || work.due < **wake)) *wake = work.due;
    ++it;
  }
  return std::nullopt;
}

StepResult Publisher::PublishTable(const TableAccess& access) {
  StatusOr<std::unique_ptr<ObjectStore>> store = stores_.Open(access);
  if (!store.ok()) return ObjectStoreFailure(store.status());
  std::lock_guard lock(locks_.For(access.table));
  const PublishTarget target{store->get(), access.endpoint.enforces_if_none_match, true};
  return steps_.PublishPending(access.table, target);
}

void Publisher::Finish(const std::string& table, uint64_t generation, const StepResult& failure) {
  Work& work = work_.at(table);
  work.running = false;
  const bool rescheduled = work.generation != generation;
  if (!failure || rescheduled) {
    // Done, or new commits (and maybe new credentials) arrived meanwhile.
    if (rescheduled) {
      work.due = std::chrono::steady_clock::now();
      work_cv_.notify_one();
    } else {
      work_.erase(table);
    }
    idle_cv_.notify_all();
    return;
  }
  const bool permanent = IsCredentialsRejected(*failure) ||
                         failure->kind == FailureKind::kLogInconsistent ||
                         (failure->kind == FailureKind::kObjectStore &&
                          failure->status.code() == StatusCode::kInvalidArgument);
  if (permanent) {
    steps_.logger().warn("publisher: stopped publishing {}: {}", table, failure->status.message());
    work_.erase(table);
    idle_cv_.notify_all();
    return;
  }
  ++work.failures;
  work.due = std::chrono::steady_clock::now() + Backoff(work.failures);
  steps_.logger().warn("publisher: publishing {} failed (attempt {}), retrying in {} ms: {}", table,
                       work.failures, Backoff(work.failures).count(), failure->status.message());
  work_cv_.notify_one();
}

std::chrono::milliseconds Publisher::Backoff(int failures) const {
  std::chrono::milliseconds delay = options_.first_retry;
  for (int i = 1; i < failures && delay < options_.max_retry; ++i) delay *= 2;
  return std::min(delay, options_.max_retry);
}

}  // namespace deltacommit::service
