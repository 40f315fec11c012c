// CommitSteps: the steps the request path (CommitService) and the
// background Publisher share: finding a table's latest version, ratifying,
// telling a replay from a conflict, and publishing ratified commits in order
// to _delta_log/<v>.json (docs/protocols/service.md).
//
// Named steps (StepHooks), for crash sweeps:
//   service/after-publish-copy     <v>.json written; the store not yet told
//   service/after-mark-published   MarkPublishedThrough(v) done
//
// Publishing never overwrites a <v>.json: where one exists with other
// content, a writer went around the service; that is reported loudly
// (error log, observer) as kLogInconsistent and the table stops there.
//
// Thread-safety: safe for concurrent use; callers serialise each table with
// TableLocks (correctness across instances rests on the state store).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <spdlog/logger.h>

#include "deltacommit/clock.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"
#include "service/commits/commit_observer.h"
#include "service/commits/failure.h"
#include "service/commits/state_retention.h"
#include "service/state/state_store.h"

namespace deltacommit::service {

inline constexpr Version kAllVersions = std::numeric_limits<Version>::max();

// The bytes of one ratified commit the caller already holds, so publishing
// it needs no GET of its staged object.
struct KnownContent {
  Version version = -1;
  std::string_view bytes;
};

// How a publish call reaches the log.
struct PublishTarget {
  ObjectStore* store = nullptr;  // rooted at the table
  bool enforces_if_none_match = true;
  bool background = false;  // for the observer
};

class CommitSteps {
 public:
  // Every reference must outlive this object; `hooks` may be null.
  // `retention`, if not null, is told of every version published.
  CommitSteps(StateStore& state, CommitObserver& observer, StepHooks* hooks, Clock& clock,
              std::shared_ptr<spdlog::logger> logger, StateRetention* retention = nullptr);

  StateStore& state() { return state_; }
  CommitObserver& observer() { return observer_; }
  Clock& clock() { return clock_; }
  spdlog::logger& logger() { return *logger_; }

  // Runs step hook `name`: a failure there is a simulated crash.
  StepResult Step(std::string_view name);

  // Sets *latest to the table's latest ratified version; for a table the
  // store has no state for, to the highest _delta_log/<v>.json (-1: none).
  StepResult FindLatest(const std::string& table, ObjectStore& store, Version* latest);

  // Publishes the table's ratified, unpublished commits with version <=
  // `through`, in order: each staged commit (checked against its recorded
  // SHA-256) is written to <v>.json (If-None-Match: * where enforced, else
  // only after a GET found it absent), then MarkPublishedThrough(v).
  StepResult PublishPending(const std::string& table, const PublishTarget& target,
                            Version through = kAllVersions, const KnownContent* known = nullptr);

  // StateStore::Ratify, asked again (up to 3 times) while the outcome is
  // unknown; finding `record` itself ratified then is success.
  Status Ratify(const CommitRecord& record, RatifyConflict* conflict);

  // Sets *same to whether the commit that holds wanted.version is `wanted`:
  // in service mode the same content (SHA-256 and size), in coordinated mode
  // the same staged file. With no record (forgotten once published), the
  // content of <v>.json decides.
  StepResult IsSameCommit(const CommitRecord& wanted, const std::optional<CommitRecord>& existing,
                          CommitMode mode, ObjectStore& store, bool* same);

 private:
  StepResult PublishOne(const CommitRecord& record, const PublishTarget& target,
                        const KnownContent* known);
  StepResult WriteCommitFile(const CommitRecord& record, const PublishTarget& target,
                             std::string_view content);
  Failure LogInconsistent(const CommitRecord& record, const std::string& problem);

  StateStore& state_;
  CommitObserver& observer_;
  StepHooks* const hooks_;
  Clock& clock_;
  const std::shared_ptr<spdlog::logger> logger_;
  StateRetention* const retention_;
};

}  // namespace deltacommit::service
