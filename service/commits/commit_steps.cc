#include "service/commits/commit_steps.h"

#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

constexpr int kRatifyAttempts = 3;
// A lost reply leaves a conditional write's outcome unknown: read back and,
// if it did not land, write again, this many times.
constexpr int kWriteAttempts = 3;
constexpr int64_t kPublishBatch = 100;

// The highest _delta_log/<v>.json in `listing`, or -1.
Version HighestCommit(const std::vector<ObjectMeta>& listing) {
  Version highest = -1;
  for (const ObjectMeta& meta : listing) {
    std::string_view key = meta.key;
    if (!key.starts_with(kLogDir)) continue;
    const ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
    if (parsed.type == LogFileType::kCommit && parsed.version > highest) {
      highest = parsed.version;
    }
  }
  return highest;
}

// Creates `key` only after a GET found it absent: for endpoints that do not
// enforce If-None-Match (exclusion then rests on the state store).
Status PutIfMissing(ObjectStore& store, const std::string& key, std::string_view content) {
  StatusOr<ObjectMeta> head = store.Head(key);
  if (head.ok()) return AlreadyExistsError(key + " exists");
  if (!head.status().IsNotFound()) return head.status();
  return store.Put(key, content);
}

}  // namespace

CommitSteps::CommitSteps(StateStore& state, CommitObserver& observer, StepHooks* hooks,
                         Clock& clock, std::shared_ptr<spdlog::logger> logger,
                         StateRetention* retention)
    : state_(state),
      observer_(observer),
      hooks_(hooks),
      clock_(clock),
      logger_(logger ? std::move(logger) : spdlog::default_logger()),
      retention_(retention) {}

StepResult CommitSteps::Step(std::string_view name) {
  Status status = RunStep(hooks_, name);
  if (status.ok()) return std::nullopt;
  return Failure{FailureKind::kStep, status.WithContext("stopped at step " + std::string(name))};
}

StepResult CommitSteps::FindLatest(const std::string& table, ObjectStore& store,
                                   Version* latest) {
  StatusOr<std::optional<CommitRecord>> record = state_.Latest(table);
  if (!record.ok()) return StateStoreFailure(observer_, "Latest", record.status());
  if (record->has_value()) {
    *latest = (*record)->version;
    return std::nullopt;
  }
  // New to the service: its log so far is what writers published.
  StatusOr<std::vector<ObjectMeta>> listing = store.List(kLogDir);
  if (!listing.ok()) return ObjectStoreFailure(listing.status());
  *latest = HighestCommit(*listing);
  return std::nullopt;
}

StepResult CommitSteps::PublishPending(const std::string& table, const PublishTarget& target,
                                       Version through, const KnownContent* known) {
  for (;;) {
    StatusOr<std::vector<CommitRecord>> pending = state_.Unpublished(table, kPublishBatch);
    if (!pending.ok()) return StateStoreFailure(observer_, "Unpublished", pending.status());
    for (const CommitRecord& record : *pending) {
      if (record.version > through) return std::nullopt;
      if (auto failure = PublishOne(record, target, known)) return failure;
      if (auto failure = Step("service/after-publish-copy")) return failure;
      Status marked = state_.MarkPublishedThrough(table, record.version);
      if (!marked.ok()) return StateStoreFailure(observer_, "MarkPublishedThrough", marked);
      if (retention_ != nullptr) retention_->Published(table, record.version);
      observer_.OnPublish(PublishEvent{record.version, target.background});
      if (auto failure = Step("service/after-mark-published")) return failure;
    }
    if (static_cast<int64_t>(pending->size()) < kPublishBatch) return std::nullopt;
  }
}

StepResult CommitSteps::PublishOne(const CommitRecord& record, const PublishTarget& target,
                                   const KnownContent* known) {
  if (known != nullptr && known->version == record.version) {
    return WriteCommitFile(record, target, known->bytes);
  }
  StatusOr<std::string> staged = target.store->Get(record.staged_file);
  if (!staged.ok() && staged.status().IsNotFound()) {
    // Another instance may have published it and deleted the staged copy
    // (service mode) since this one read the store: then <v>.json holds it.
    StatusOr<std::string> published = target.store->Get(CommitPath(record.version));
    if (published.ok() && aws::Sha256Hex(*published) == record.content_sha256) {
      return std::nullopt;
    }
    if (!published.ok() && !published.status().IsNotFound()) {
      return ObjectStoreFailure(published.status());
    }
    return LogInconsistent(record, "its staged commit is gone, so it cannot be published");
  }
  if (!staged.ok()) return ObjectStoreFailure(staged.status());
  if (aws::Sha256Hex(*staged) != record.content_sha256) {
    return LogInconsistent(record, "its staged commit was changed after it was ratified "
                                   "(the SHA-256 differs), so it is not published");
  }
  return WriteCommitFile(record, target, *staged);
}

StepResult CommitSteps::WriteCommitFile(const CommitRecord& record, const PublishTarget& target,
                                        std::string_view content) {
  ObjectStore& store = *target.store;
  const std::string key = CommitPath(record.version);
  for (int attempt = 1; attempt <= kWriteAttempts; ++attempt) {
    Status written = target.enforces_if_none_match ? store.PutIfAbsent(key, content)
                                                   : PutIfMissing(store, key, content);
    if (written.ok()) return std::nullopt;
    if (!written.IsAlreadyExists() && !written.IsUnknownOutcome()) {
      return ObjectStoreFailure(written);
    }
    // Ours (an earlier attempt, a crashed publisher, another instance
    // publishing the same commit) or someone else's: the bytes tell.
    StatusOr<std::string> existing = store.Get(key);
    if (existing.ok()) {
      if (*existing == content) return std::nullopt;
      return LogInconsistent(record, key + " already exists with other content: a writer "
                                     "committed around the service");
    }
    if (!existing.status().IsNotFound()) return ObjectStoreFailure(existing.status());
  }
  return ObjectStoreFailure(UnavailableError(
      "could not confirm writing " + key + " after " + std::to_string(kWriteAttempts) +
      " attempts whose replies were lost"));
}

Failure CommitSteps::LogInconsistent(const CommitRecord& record, const std::string& problem) {
  std::string message = "the log of " + record.table + " disagrees with the service: " +
                        DescribeCommit(record) + " is ratified but " + problem +
                        ". The service never overwrites a commit; commits to this table stop "
                        "here. Stop every writer that bypasses the service, then repair the "
                        "table's log by hand";
  logger_->error("LOG INCONSISTENT: {}", message);
  observer_.OnLogInconsistent(record.version);
  return Failure{FailureKind::kLogInconsistent, DataLossError(std::move(message))};
}

Status CommitSteps::Ratify(const CommitRecord& record, RatifyConflict* conflict) {
  Status status = state_.Ratify(record, conflict);
  for (int attempt = 2; status.IsUnknownOutcome() && attempt <= kRatifyAttempts; ++attempt) {
    logger_->warn("ratifying version {} of {}: outcome unknown ({}); asking the state store again",
                  record.version, record.table, status.message());
    status = state_.Ratify(record, conflict);
    if (status.IsAlreadyExists() && conflict != nullptr && conflict->existing && SameCommit(*conflict->existing, record)) {
      return OkStatus();  // the lost attempt had ratified it
    }
  }
  return status;
}

StepResult CommitSteps::IsSameCommit(const CommitRecord& wanted,
                                     const std::optional<CommitRecord>& existing,
                                     CommitMode mode, ObjectStore& store, bool* same) {
  if (existing) {
    *same = mode == CommitMode::kCoordinated
                ? existing->staged_file == wanted.staged_file
                : existing->content_sha256 == wanted.content_sha256 &&
                      existing->size == wanted.size;
    return std::nullopt;
  }
  StatusOr<std::string> published = store.Get(CommitPath(wanted.version));
  if (!published.ok() && !published.status().IsNotFound()) {
    return ObjectStoreFailure(published.status());
  }
  *same = published.ok() && aws::Sha256Hex(*published) == wanted.content_sha256;
  return std::nullopt;
}

}  // namespace deltacommit::service
