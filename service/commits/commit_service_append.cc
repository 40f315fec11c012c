// CommitService's appends: server-assigned versions and group commit
// (docs/protocols/group-commit.md).
#include <mutex>
#include <utility>

#include "deltacommit/log_path.h"
#include "service/commits/commit_service.h"

namespace deltacommit::service {
namespace {

// The same reply for every append of the batch.
AppendQueue::Replies AnswerAll(size_t count, const CommitReply& reply) {
  return AppendQueue::Replies(count, reply);
}

CommitReply ReplyFor(const AppendResult& result) {
  switch (result.outcome) {
    case AppendOutcome::kDuplicate: {
      CommitReply reply = CommitReply::Ok(result.version, true);
      reply.duplicate = true;
      return reply;
    }
    case AppendOutcome::kMetadataChanged: {
      CommitReply reply = CommitReply::Error(
          CommitOutcome::kMetadataChanged,
          result.detail + ": read the table again, write the files for its schema, append again");
      reply.latest = result.version;
      return reply;
    }
    case AppendOutcome::kTxnConflict:
      return CommitReply::Error(CommitOutcome::kTxnConflict, result.detail);
    case AppendOutcome::kMerged:
    case AppendOutcome::kNextBatch:
      break;
  }
  return CommitReply::Error(CommitOutcome::kUnavailable, "internal: no reply for an append");
}

// A batch runs with its leader's credentials: when S3 refuses them, that is
// the leader's answer alone; the others wait for a batch led by another.
AppendQueue::Replies RefusalsToTheLeaderOnly(AppendQueue::Replies replies,
                                             const std::vector<const QueuedAppend*>& queued,
                                             const CommitRequest& leader) {
  for (size_t i = 0; i < queued.size() && i < replies.size(); ++i) {
    const bool refused = replies[i] && (replies[i]->outcome == CommitOutcome::kCredentialsRejected ||
                                        replies[i]->outcome == CommitOutcome::kCredentialsInvalid);
    if (refused && queued[i]->request != &leader) replies[i].reset();
  }
  return replies;
}

// Appends of one table with different endpoints go in different batches:
// each batch is written through one endpoint.
std::string QueueKey(const TableAccess& access) {
  return access.table + '\n' + access.endpoint.name;
}

}  // namespace

CommitReply CommitService::CommitAppend(const CommitRequest& request) {
  StatusOr<CheckedCommit> checked =
      CheckCommitContent(request.access.table, *request.actions, options_.limits);
  if (!checked.ok()) return ContentRefused(checked.status(), "");
  StatusOr<BlindAppend> append = ParseBlindAppend(*request.actions, request.read_version);
  if (!append.ok()) return CommitReply::Error(CommitOutcome::kBadRequest, append.status().message());
  QueuedAppend item{&request, std::move(append).value(), std::nullopt, 0};
  // The leader writes each batch with its own request's credentials and
  // endpoint: every merged request was authorised for this table (by its
  // token); the others' credentials are not used for it.
  return append_queue_.Submit(QueueKey(request.access), item,
                              [&](const std::vector<const QueuedAppend*>& queued) {
                                return RefusalsToTheLeaderOnly(
                                    RunAppendBatch(request.access, queued), queued, request);
                              });
}

AppendQueue::Replies CommitService::RunAppendBatch(
    const TableAccess& access, const std::vector<const QueuedAppend*>& queued) {
  StatusOr<std::unique_ptr<ObjectStore>> store = stores_.Open(access);
  if (!store.ok()) {
    return AnswerAll(queued.size(), service::ReplyFor(ObjectStoreFailure(store.status())));
  }
  std::lock_guard lock(locks_.For(access.table));
  return DecideAppends(access, **store, queued);
}

AppendQueue::Replies CommitService::DecideAppends(
    const TableAccess& access, ObjectStore& store,
    const std::vector<const QueuedAppend*>& queued) {
  // The latest version first, then publish: another instance may ratify a
  // version at any time, and every version up to `latest` must be a
  // <v>.json before the log is read.
  Version latest = -1;
  if (StepResult failure = steps_.FindLatest(access.table, store, &latest)) {
    return AnswerAll(queued.size(), service::ReplyFor(*failure));
  }
  const PublishTarget target{&store, access.endpoint.enforces_if_none_match, false};
  if (StepResult failure = steps_.PublishPending(access.table, target)) {
    return AnswerAll(queued.size(), service::ReplyFor(*failure));
  }
  StatusOr<AppendTableState> state = append_tables_.Load(access.table, latest, store);
  if (!state.ok()) {
    if (state.status().code() == StatusCode::kFailedPrecondition) {
      return AnswerAll(queued.size(), CommitReply::Error(
                                   CommitOutcome::kAppendUnavailable,
                                   "the service cannot assign versions for " + access.table +
                                       ": " + state.status().message() +
                                       "; commit with a version instead"));
    }
    return AnswerAll(queued.size(), service::ReplyFor(ObjectStoreFailure(state.status())));
  }
  if (StepResult failure = FillAppTxns(access.table, queued, &*state)) {
    return AnswerAll(queued.size(), service::ReplyFor(*failure));
  }
  std::vector<const BlindAppend*> requests;
  for (const QueuedAppend* q : queued) requests.push_back(&q->append);
  AppendBatch batch = BuildAppendBatch(*state, requests, options_.appends.batch,
                                       clock_.NowMillis(), options_.appends.engine_info);
  AppendQueue::Replies replies(queued.size());
  int64_t merged = 0;
  for (size_t i = 0; i < queued.size(); ++i) {
    const AppendResult& result = batch.results[i];
    if (result.outcome == AppendOutcome::kMerged) ++merged;
    if (result.outcome != AppendOutcome::kMerged && result.outcome != AppendOutcome::kNextBatch) {
      replies[i] = ReplyFor(result);
    }
  }
  if (merged == 0) {
    // Nothing to commit; the state is still the table's at `latest`, and
    // what FillAppTxns learned spares the next batch its reads.
    append_tables_.Store(access.table, std::move(state).value());
    return replies;
  }
  std::optional<CommitReply> reply = CommitBatch(access, store, batch);
  if (!reply) {
    append_tables_.Forget(access.table);  // another instance wrote the version
    return replies;
  }
  if (reply->ok()) {
    reply->merged = merged;
    if (batch.has_in_commit_timestamp) reply->in_commit_timestamp = batch.commit_timestamp_ms;
    observer_.OnAppendBatch(merged);
    ApplyBatch(batch, &*state);
    append_tables_.Store(access.table, std::move(state).value());
  } else {
    append_tables_.Forget(access.table);
  }
  for (size_t i = 0; i < queued.size(); ++i) {
    if (batch.results[i].outcome == AppendOutcome::kMerged) replies[i] = *reply;
  }
  return replies;
}

std::optional<Failure> CommitService::FillAppTxns(const std::string& table,
                                                  const std::vector<const QueuedAppend*>& queued,
                                                  AppendTableState* state) {
  for (const QueuedAppend* q : queued) {
    for (const SetTransaction& txn : q->append.txns) {
      if (state->app_txns.count(txn.app_id) > 0) continue;
      if (state->absent_app_ids.count(txn.app_id) > 0) continue;
      StatusOr<std::optional<AppliedTxn>> applied = state_.LatestAppTxn(table, txn.app_id);
      if (!applied.ok()) return StateStoreFailure(observer_, "LatestAppTxn", applied.status());
      if (applied->has_value()) {
        state->app_txns[txn.app_id] = **applied;
      } else {
        state->absent_app_ids.insert(txn.app_id);
      }
    }
  }
  return std::nullopt;
}

std::optional<CommitReply> CommitService::CommitBatch(const TableAccess& access,
                                                      ObjectStore& store,
                                                      const AppendBatch& batch) {
  StatusOr<CheckedCommit> checked =
      CheckCommitContent(access.table, batch.content, options_.limits);
  if (!checked.ok()) return ContentRefused(checked.status(), "the merged append: ");
  CommitRecord record;
  record.table = access.table;
  record.version = batch.version;
  record.staged_file = StagedCommitPath(batch.version, NewUuid());
  record.content_sha256 = checked->content_sha256;
  record.size = checked->size;
  record.ratified_at_ms = clock_.NowMillis();
  record.commit_timestamp_ms = batch.commit_timestamp_ms;
  record.app_txns = checked->app_txns;
  Status staged = store.Put(record.staged_file, batch.content);
  if (!staged.ok()) return service::ReplyFor(ObjectStoreFailure(staged));
  if (StepResult crash = steps_.Step("service/append-after-stage")) {
    return service::ReplyFor(*crash);
  }
  RatifyConflict conflict;
  Status ratified = steps_.Ratify(record, &conflict);
  if (!ratified.ok()) {
    if (ratified.IsAlreadyExists() || ratified.code() == StatusCode::kFailedPrecondition) {
      store.Delete(record.staged_file).IgnoreError();
      return std::nullopt;
    }
    if (ratified.IsUnknownOutcome()) {
      return CommitReply::Error(
          CommitOutcome::kUnavailable,
          "the state store did not confirm ratifying version " + std::to_string(batch.version) +
              " of " + access.table + " (" + ratified.message() +
              "): send the same append again (its txn is recognised if it landed)");
    }
    return service::ReplyFor(StateStoreFailure(observer_, "Ratify", ratified));
  }
  if (StepResult crash = steps_.Step("service/append-after-ratify")) {
    return service::ReplyFor(*crash);
  }
  return PublishRatified(access, store, record, batch.content);
}

}  // namespace deltacommit::service
