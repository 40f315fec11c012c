// CommitService: the commit logic of `deltacommit serve`
// (docs/protocols/service.md, docs/protocols/coordinated.md), between the
// HTTP layer (which parses requests, authenticates, resolves endpoints) and
// the state store and S3.
//
// Service mode (CommitRequest::actions), per table serialised in-process
// and across instances by the state store's Ratify:
//   1. check the request, the credentials (before any S3 call) and the
//      actions (every line a known action, files inside the table, limits)
//   2. publish the table's pending ratified commits (this request's
//      credentials), so that versions are published in order
//   3. find the latest version (state store; for a table it has no state
//      for, the highest _delta_log/<v>.json)
//   4. version <= latest: the same content is a replay (OK), other content
//      kVersionTaken; version > latest + 1: kVersionAhead
//   5. PUT _delta_log/_staged_commits/<v>.<uuid>.json  (service/after-stage)
//   6. Ratify: the commit point                        (service/after-ratify)
//   7. publish it to _delta_log/<v>.json, MarkPublishedThrough
// Failures after 6 do not fail the commit (it is decided): the reply is OK
// with published = false and the Publisher or the next request publishes it
// (except kLogInconsistent, which is answered as such).
//
// Appends (CommitRequest::append; docs/protocols/group-commit.md): checked
// as above plus the blind-append rules, queued per table; a batch leader
// under the table lock publishes what is pending, finds the latest version
// L and the table's tracked state, merges the queued appends into version
// L + 1 (service/append-after-stage, service/append-after-ratify) and
// answers each with its version.
//
// Coordinated mode (CommitRequest::staged_file): check the name, GET the
// staged commit (log, not data) to check and hash it, then 3, 4 (a replay
// is the same staged file), 6 (service/coordinated-after-ratify), answer OK
// with published = false at once and schedule the Publisher.
//
// A step hook's failure ends the request right there, as a crash would
// (the reply is kUnavailable: a crashed service sends none).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "deltacommit/clock.h"
#include "deltacommit/step_hooks.h"
#include "service/commits/append_queue.h"
#include "service/commits/append_tables.h"
#include "service/commits/commit_checks.h"
#include "service/commits/commit_observer.h"
#include "service/commits/commit_steps.h"
#include "service/commits/commit_types.h"
#include "service/commits/object_store_factory.h"
#include "service/commits/publisher.h"
#include "service/commits/table_locks.h"
#include "service/state/state_store.h"

namespace deltacommit::service {

// Appends with server-assigned versions (docs/protocols/group-commit.md).
struct AppendOptions {
  BatchLimits batch;  // max_appends 1: no group commit, one version each
  AppendQueueOptions queue;
  AppendTablesOptions tables;
  std::string engine_info = "deltacommit-service/0.1.0";
};

struct CommitServiceOptions {
  CommitLimits limits;
  // A request's credentials must stay valid this long after it arrives: a
  // commit takes a few S3 calls.
  int64_t min_credentials_validity_ms = 10'000;
  // Most commits one PendingCommits answer lists.
  int64_t pending_list_limit = 1000;
  PublisherOptions publisher;
  // Records of published commits kept in the state store (state_retention.h).
  RetentionOptions retention;
  AppendOptions appends;
  StepHooks* hooks = nullptr;                // none
  CommitObserver* observer = nullptr;        // NoCommitObserver()
  Clock* clock = nullptr;                    // SystemClock()
  std::shared_ptr<spdlog::logger> logger;    // spdlog::default_logger()
};

class CommitService {
 public:
  // `state`, `stores` and what `options` points to must outlive this.
  CommitService(StateStore& state, ObjectStoreFactory& stores, CommitServiceOptions options = {});
  // Stops the publisher; unpublished commits stay ratified in the store.
  ~CommitService();
  CommitService(const CommitService&) = delete;
  CommitService& operator=(const CommitService&) = delete;

  // POST /v1/commits. request.access.table is normalised and validated by
  // the caller.
  CommitReply Commit(const CommitRequest& request);

  // GET /v1/tables/{table}/commits?start=V: the ratified, unpublished
  // commits with version >= start, ascending (at most pending_list_limit).
  // kInvalidArgument for start < 0; kUnavailable when the state store fails.
  StatusOr<PendingCommitList> PendingCommits(const std::string& table, Version start);

  Publisher& publisher() { return publisher_; }
  StateRetention& retention() { return retention_; }

 private:
  // A request's checked commit and the store of its table.
  struct Opened {
    CheckedCommit checked;
    std::unique_ptr<ObjectStore> store;
  };

  CommitReply CommitInline(const CommitRequest& request);
  // Appends (commit_service_append.cc).
  CommitReply CommitAppend(const CommitRequest& request);
  AppendQueue::Replies RunAppendBatch(const TableAccess& access,
                                      const std::vector<const QueuedAppend*>& queued);
  AppendQueue::Replies DecideAppends(const TableAccess& access, ObjectStore& store,
                                     const std::vector<const QueuedAppend*>& queued);
  std::optional<Failure> FillAppTxns(const std::string& table,
                                     const std::vector<const QueuedAppend*>& queued,
                                     AppendTableState* state);
  // Stages, ratifies and publishes `batch`; nullopt when another instance
  // took its version first (its appends wait for the next batch).
  std::optional<CommitReply> CommitBatch(const TableAccess& access, ObjectStore& store,
                                         const AppendBatch& batch);
  CommitReply CommitStaged(const CommitRequest& request);
  CommitReply StageRatifyPublish(const CommitRequest& request, Opened& opened);
  // Publishes `record`, ratified, whose bytes are `content`: OK (published
  // or not yet: it is decided either way) or the failure that stops it.
  CommitReply PublishRatified(const TableAccess& access, ObjectStore& store,
                              const CommitRecord& record, std::string_view content);
  CommitReply RatifyStaged(const CommitRequest& request, const CheckedCommit& checked,
                           const CommitRecord& wanted, ObjectStore& store);
  // Coordinated mode: kTooManyUnpublished when the table already has
  // request.max_unpublished (> 0) ratified commits waiting to be published.
  std::optional<CommitReply> CheckUnpublishedCap(const CommitRequest& request,
                                                 const CommitRecord& wanted);
  // Steps 3 and 4: nullopt when request.version is the next version.
  std::optional<CommitReply> CheckVersion(const CommitRecord& wanted, CommitMode mode,
                                          ObjectStore& store);
  // The commit rules of the whole commit (commit_rules.h) against the
  // table's protocol and metadata at wanted.version - 1, read from its JSON
  // log when the commit needs them. REQUIRES: the table lock; CheckVersion
  // passed. nullopt when the commit may be written.
  std::optional<CommitReply> CheckOnTable(const CommitRecord& wanted,
                                          const CheckedCommit& checked, ObjectStore& store);
  CommitReply Resolve(const CommitRecord& wanted, const std::optional<CommitRecord>& existing,
                      Version latest, CommitMode mode, ObjectStore& store);
  CommitReply RatifyRefused(const CommitRecord& wanted, const Status& status,
                            const RatifyConflict& conflict, CommitMode mode, ObjectStore& store);
  std::optional<CommitReply> CheckRequest(const CommitRequest& request);
  std::optional<CommitReply> Open(const CommitRequest& request, Opened& opened);
  // The reply for commit content CheckCommitContent refused.
  static CommitReply ContentRefused(const Status& status, const std::string& context);
  CommitRecord RecordOf(const CommitRequest& request, const CheckedCommit& checked,
                        std::string staged_file);

  StateStore& state_;
  ObjectStoreFactory& stores_;
  const CommitServiceOptions options_;
  Clock& clock_;
  CommitObserver& observer_;
  TableLocks locks_;
  StateRetention retention_;  // before steps_ and publisher_, which tell it: outlives them
  CommitSteps steps_;
  AppendTables append_tables_;
  AppendQueue append_queue_;
  Publisher publisher_;  // last: its threads use the members above
};

}  // namespace deltacommit::service
