#include "service/commits/commit_service.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>

#include <spdlog/spdlog.h>

#include "deltacommit/log_path.h"

namespace deltacommit::service {

CommitService::CommitService(StateStore& state, ObjectStoreFactory& stores,
                             CommitServiceOptions options)
    : state_(state),
      stores_(stores),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : SystemClock()),
      observer_(options_.observer != nullptr ? *options_.observer : NoCommitObserver()),
      retention_(state, options_.retention, options_.logger),
      steps_(state, observer_, options_.hooks, clock_, options_.logger, &retention_),
      append_tables_(options_.appends.tables),
      append_queue_(options_.appends.queue),
      publisher_(steps_, stores, locks_, options_.publisher) {}

CommitService::~CommitService() { publisher_.Stop(); }

CommitReply CommitService::Commit(const CommitRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const CommitMode mode = request.append                  ? CommitMode::kAppend
                          : request.staged_file.has_value() ? CommitMode::kCoordinated
                                                            : CommitMode::kService;
  CommitReply reply;
  if (std::optional<CommitReply> refused = CheckRequest(request)) {
    reply = std::move(*refused);
  } else if (mode == CommitMode::kAppend) {
    reply = CommitAppend(request);
  } else {
    reply = mode == CommitMode::kService ? CommitInline(request) : CommitStaged(request);
  }
  // A local table takes no credentials: its store refusing access is the
  // service's own rule for its files (no symbolic link, regular files only).
  if (request.access.local() && reply.outcome == CommitOutcome::kCredentialsRejected) {
    std::string_view message = reply.message;
    if (message.starts_with(kCredentialsRejectedPrefix)) {
      message.remove_prefix(kCredentialsRejectedPrefix.size());
    }
    reply = CommitReply::Error(CommitOutcome::kForbidden, std::string(message));
  }
  const auto latency = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  observer_.OnCommit(CommitEvent{mode, reply.outcome, latency});
  steps_.logger().debug("commit {} version {} ({}): {}{}", request.access.table,
                        request.append ? reply.version : request.version, CommitModeName(mode),
                        CommitOutcomeName(reply.outcome),
                        reply.ok() && !reply.published ? ", not yet published" : "");
  return reply;
}

std::optional<CommitReply> CommitService::CheckRequest(const CommitRequest& request) {
  if (request.append && (request.version >= 0 || !request.actions)) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              request.actions ? "an append has no version: the service assigns it"
                                              : "an append sends its \"actions\" inline");
  }
  if (request.version < 0 && !request.append) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              "version " + std::to_string(request.version) +
                                  " is negative: versions start at 0");
  }
  if (request.actions.has_value() == request.staged_file.has_value()) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              "send either \"actions\" (service mode) or \"staged_file\" "
                              "(coordinated mode), not both or neither");
  }
  Status credentials = request.access.local()
                           ? OkStatus()
                           : CheckRequestCredentials(request.access.credentials, clock_.NowMillis(),
                                                     options_.min_credentials_validity_ms);
  if (!credentials.ok()) {
    return CommitReply::Error(CommitOutcome::kCredentialsInvalid, credentials.message());
  }
  return std::nullopt;
}

std::optional<CommitReply> CommitService::Open(const CommitRequest& request, Opened& opened) {
  StatusOr<std::unique_ptr<ObjectStore>> store = stores_.Open(request.access);
  if (!store.ok()) return ReplyFor(ObjectStoreFailure(store.status()));
  opened.store = std::move(store).value();
  return std::nullopt;
}

CommitRecord CommitService::RecordOf(const CommitRequest& request, const CheckedCommit& checked,
                                     std::string staged_file) {
  CommitRecord record;
  record.table = request.access.table;
  record.version = request.version;
  record.staged_file = std::move(staged_file);
  record.content_sha256 = checked.content_sha256;
  record.size = checked.size;
  record.ratified_at_ms = clock_.NowMillis();
  record.commit_timestamp_ms = checked.commit_timestamp_ms.value_or(record.ratified_at_ms);
  record.app_txns = checked.app_txns;
  return record;
}

CommitReply CommitService::ContentRefused(const Status& status, const std::string& context) {
  return CommitReply::Error(status.code() == StatusCode::kResourceExhausted
                                ? CommitOutcome::kTooLarge
                                : CommitOutcome::kBadRequest,
                            context + status.message());
}

CommitReply CommitService::CommitInline(const CommitRequest& request) {
  Opened opened;
  StatusOr<CheckedCommit> checked =
      CheckCommitContent(request.access.table, *request.actions, options_.limits);
  if (!checked.ok()) return ContentRefused(checked.status(), "");
  opened.checked = std::move(checked).value();
  if (std::optional<CommitReply> refused = Open(request, opened)) return *refused;
  std::lock_guard lock(locks_.For(request.access.table));
  const PublishTarget target{opened.store.get(), request.access.endpoint.enforces_if_none_match,
                             false};
  if (StepResult failure = steps_.PublishPending(request.access.table, target)) {
    return ReplyFor(*failure);
  }
  return StageRatifyPublish(request, opened);
}

CommitReply CommitService::StageRatifyPublish(const CommitRequest& request, Opened& opened) {
  const std::string& content = *request.actions;
  ObjectStore& store = *opened.store;
  CommitRecord wanted =
      RecordOf(request, opened.checked, StagedCommitPath(request.version, NewUuid()));
  if (auto reply = CheckVersion(wanted, CommitMode::kService, store)) return *reply;
  if (auto refused = CheckOnTable(wanted, opened.checked, store)) return *refused;
  // A unique name: a plain PUT, safe to resend.
  Status staged = store.Put(wanted.staged_file, content);
  if (!staged.ok()) return ReplyFor(ObjectStoreFailure(staged));
  if (StepResult crash = steps_.Step("service/after-stage")) return ReplyFor(*crash);
  RatifyConflict conflict;
  Status ratified = steps_.Ratify(wanted, &conflict);
  if (!ratified.ok()) {
    return RatifyRefused(wanted, ratified, conflict, CommitMode::kService, store);
  }
  if (StepResult crash = steps_.Step("service/after-ratify")) return ReplyFor(*crash);
  return PublishRatified(request.access, store, wanted, content);
}

CommitReply CommitService::PublishRatified(const TableAccess& access, ObjectStore& store,
                                           const CommitRecord& record, std::string_view content) {
  const PublishTarget target{&store, access.endpoint.enforces_if_none_match, false};
  const KnownContent known{record.version, content};
  StepResult failure = steps_.PublishPending(access.table, target, record.version, &known);
  if (!failure) {
    // <v>.json now holds the commit; the staged copy was only the service's
    // own (nobody else reads it), so the log keeps one object per commit.
    // Best effort: credentials without s3:DeleteObject leave it behind.
    store.Delete(record.staged_file).IgnoreError();
    return CommitReply::Ok(record.version, true);
  }
  if (failure->kind == FailureKind::kStep || failure->kind == FailureKind::kLogInconsistent) {
    return ReplyFor(*failure);
  }
  steps_.logger().warn("version {} of {} is committed (ratified) but not yet published: {}",
                       record.version, record.table, failure->status.message());
  if (!IsCredentialsRejected(*failure)) publisher_.Schedule(access);
  return CommitReply::Ok(record.version, false);
}

std::optional<CommitReply> CommitService::CheckVersion(const CommitRecord& wanted,
                                                       CommitMode mode, ObjectStore& store) {
  Version latest = -1;
  if (StepResult failure = steps_.FindLatest(wanted.table, store, &latest)) {
    return ReplyFor(*failure);
  }
  if (wanted.version == latest + 1) return std::nullopt;
  if (wanted.version > latest + 1) {
    return CommitReply::VersionAhead(
        latest, "version " + std::to_string(wanted.version) + " of " + wanted.table +
                    " is ahead: the latest version is " + std::to_string(latest) +
                    ", so the next commit is version " + std::to_string(latest + 1));
  }
  StatusOr<std::optional<CommitRecord>> existing = state_.Get(wanted.table, wanted.version);
  if (!existing.ok()) return ReplyFor(StateStoreFailure(observer_, "Get", existing.status()));
  return Resolve(wanted, *existing, latest, mode, store);
}

std::optional<CommitReply> CommitService::CheckOnTable(const CommitRecord& wanted,
                                                       const CheckedCommit& checked,
                                                       ObjectStore& store) {
  CommitBase base;
  base.creating = wanted.version == 0;
  std::optional<AppendTableState> state;
  if (!base.creating && checked.rules.NeedsTableState()) {
    StatusOr<AppendTableState> loaded =
        append_tables_.Load(wanted.table, wanted.version - 1, store);
    // Not knowable from the JSON log (the protocol only in a checkpoint, a
    // ratified commit not yet published): the rules that need the table's
    // state are applied to what the commit itself carries.
    if (loaded.ok()) {
      state = std::move(loaded).value();
    } else if (loaded.status().code() != StatusCode::kFailedPrecondition) {
      return ReplyFor(ObjectStoreFailure(loaded.status()));
    }
  }
  if (state) {
    base.protocol = state->protocol ? &*state->protocol : nullptr;
    base.metadata = state->metadata ? &*state->metadata : nullptr;
  }
  Status rules = checked.rules.Finish(base);
  if (!rules.ok()) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              "version " + std::to_string(wanted.version) + " of " + wanted.table +
                                  ": " + rules.message() + "; nothing was written");
  }
  if (state) append_tables_.Store(wanted.table, std::move(*state));
  return std::nullopt;
}

CommitReply CommitService::Resolve(const CommitRecord& wanted,
                                   const std::optional<CommitRecord>& existing, Version latest,
                                   CommitMode mode, ObjectStore& store) {
  bool same = false;
  if (StepResult failure = steps_.IsSameCommit(wanted, existing, mode, store, &same)) {
    return ReplyFor(*failure);
  }
  // Forgotten records were published; so were versions before the service.
  if (same) {
    CommitReply replay = CommitReply::Ok(wanted.version, existing ? existing->published : true);
    replay.replay = true;
    replay.latest = latest;
    return replay;
  }
  return CommitReply::VersionTaken(
      latest, "version " + std::to_string(wanted.version) + " of " + wanted.table +
                  " is taken by another commit; the latest version is " + std::to_string(latest) +
                  ": rebase on it and commit version " + std::to_string(latest + 1));
}

CommitReply CommitService::RatifyRefused(const CommitRecord& wanted, const Status& status,
                                         const RatifyConflict& conflict, CommitMode mode,
                                         ObjectStore& store) {
  // Only on a definite conflict is our staged object certain never to be a
  // version (a state store error might hide a ratified one): delete it,
  // best effort; left behind it is a harmless orphan under _staged_commits/.
  const bool lost = status.code() == StatusCode::kFailedPrecondition ||
                    (status.IsAlreadyExists() &&
                     (!conflict.existing || conflict.existing->staged_file != wanted.staged_file));
  if (mode == CommitMode::kService && lost) store.Delete(wanted.staged_file).IgnoreError();
  const Version latest = conflict.latest.value_or(wanted.version - 1);
  if (status.IsAlreadyExists()) return Resolve(wanted, conflict.existing, latest, mode, store);
  if (status.code() == StatusCode::kFailedPrecondition) {
    return CommitReply::VersionAhead(latest, status.message());
  }
  if (status.IsUnknownOutcome()) {
    return CommitReply::Error(
        CommitOutcome::kUnavailable,
        "the state store did not confirm ratifying version " + std::to_string(wanted.version) +
            " of " + wanted.table + " (" + status.message() +
            "): it may be committed; send the same commit again (a replay is recognised)");
  }
  return ReplyFor(StateStoreFailure(observer_, "Ratify", status));
}

StatusOr<PendingCommitList> CommitService::PendingCommits(const std::string& table,
                                                          Version start) {
  if (start < 0) {
    return InvalidArgumentError("start " + std::to_string(start) + " is negative");
  }
  PendingCommitList list;
  StatusOr<std::optional<CommitRecord>> latest = state_.Latest(table);
  if (!latest.ok()) {
    return UnavailableError(StateStoreFailure(observer_, "Latest", latest.status()).status.message());
  }
  if (!latest->has_value()) return list;
  list.latest = (*latest)->version;
  StatusOr<std::vector<CommitRecord>> pending =
      state_.Unpublished(table, options_.pending_list_limit);
  if (!pending.ok()) {
    return UnavailableError(
        StateStoreFailure(observer_, "Unpublished", pending.status()).status.message());
  }
  // A full page that ends below `start` says nothing of the commits from
  // `start` on: list those. Commits are published in order, so every
  // version from the first unpublished one on is unpublished.
  const auto limit = static_cast<size_t>(options_.pending_list_limit);
  if (pending->size() == limit && !pending->empty() && pending->back().version < start) {
    pending = state_.ListFrom(table, start, options_.pending_list_limit);
    if (!pending.ok()) {
      return UnavailableError(
          StateStoreFailure(observer_, "ListFrom", pending.status()).status.message());
    }
  }
  // The listing is read after the latest version: a commit ratified in
  // between (by this instance or another) is listed, and the latest version
  // must not be below it (readers require it).
  for (CommitRecord& record : *pending) {
    list.latest = std::max(list.latest, record.version);
    if (record.version >= start) list.commits.push_back(std::move(record));
  }
  return list;
}

}  // namespace deltacommit::service
