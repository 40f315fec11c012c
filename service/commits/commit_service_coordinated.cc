// CommitService's coordinated mode: the writer put the staged commit; the
// service checks it, ratifies it and leaves publishing to the Publisher.
#include <mutex>
#include <utility>

#include "deltacommit/log_path.h"
#include "service/commits/commit_service.h"

namespace deltacommit::service {

CommitReply CommitService::CommitStaged(const CommitRequest& request) {
  const std::string& staged_file = *request.staged_file;
  Status name = CheckStagedFileName(staged_file, request.version);
  if (!name.ok()) return CommitReply::Error(CommitOutcome::kBadRequest, name.message());
  Opened opened;
  if (std::optional<CommitReply> refused = Open(request, opened)) return *refused;
  // One byte over the limit is enough to refuse it.
  StatusOr<std::string> content = opened.store->Get(
      staged_file, ByteRange{0, options_.limits.max_commit_bytes + 1});
  if (!content.ok() && content.status().IsNotFound()) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              "the staged commit " + request.access.table + "/" + staged_file +
                                  " does not exist: put it before asking to ratify it");
  }
  if (!content.ok()) return ReplyFor(ObjectStoreFailure(content.status()));
  if (request.staged_size && static_cast<int64_t>(content->size()) != *request.staged_size &&
      static_cast<int64_t>(content->size()) <= options_.limits.max_commit_bytes) {
    return CommitReply::Error(CommitOutcome::kBadRequest,
                              "the staged commit " + request.access.table + "/" + staged_file +
                                  " is " + std::to_string(content->size()) +
                                  " bytes, not the " + std::to_string(*request.staged_size) +
                                  " the request gives: put it again, or send its size");
  }
  StatusOr<CheckedCommit> checked =
      CheckCommitContent(request.access.table, *content, options_.limits);
  if (!checked.ok()) return ContentRefused(checked.status(), "staged commit " + staged_file + ": ");
  CommitReply reply = RatifyStaged(request, *checked, RecordOf(request, *checked, staged_file),
                                   *opened.store);
  // Also for a replay: the instance that ratified it may have died first.
  if (reply.ok() && !reply.published) publisher_.Schedule(request.access);
  return reply;
}

CommitReply CommitService::RatifyStaged(const CommitRequest& request,
                                        const CheckedCommit& checked, const CommitRecord& wanted,
                                        ObjectStore& store) {
  std::lock_guard lock(locks_.For(request.access.table));
  if (auto reply = CheckVersion(wanted, CommitMode::kCoordinated, store)) return *reply;
  if (auto refused = CheckUnpublishedCap(request, wanted)) return *refused;
  if (auto refused = CheckOnTable(wanted, checked, store)) return *refused;
  RatifyConflict conflict;
  Status ratified = steps_.Ratify(wanted, &conflict);
  if (!ratified.ok()) {
    return RatifyRefused(wanted, ratified, conflict, CommitMode::kCoordinated, store);
  }
  if (StepResult crash = steps_.Step("service/coordinated-after-ratify")) {
    return ReplyFor(*crash);
  }
  return CommitReply::Ok(wanted.version, false);
}

// Counted from the state store, so the cap holds across instances; a commit
// ratified by another instance between this count and Ratify may take the
// table one over it, never more than one per instance.
std::optional<CommitReply> CommitService::CheckUnpublishedCap(const CommitRequest& request,
                                                              const CommitRecord& wanted) {
  const int64_t max_unpublished = request.max_unpublished;
  if (max_unpublished <= 0) return std::nullopt;
  StatusOr<std::vector<CommitRecord>> pending = state_.Unpublished(wanted.table, max_unpublished);
  if (!pending.ok()) return ReplyFor(StateStoreFailure(observer_, "Unpublished", pending.status()));
  if (static_cast<int64_t>(pending->size()) < max_unpublished) return std::nullopt;
  publisher_.Schedule(request.access);
  return CommitReply::Error(
      CommitOutcome::kTooManyUnpublished,
      wanted.table + " has " + std::to_string(pending->size()) +
          " ratified commits waiting to be published (the most it may have): version " +
          std::to_string(wanted.version) +
          " must wait until the publisher has published some; retry shortly");
}

}  // namespace deltacommit::service
