// CommitObserver: what the commit logic reports for metrics, with no metrics
// library here. The HTTP layer implements it with Prometheus counters and
// histograms (commits by mode and outcome, latency, S3 errors by code, state
// store errors, publishing).
//
// Every method has an empty default, so an implementation overrides only
// what it counts. Nothing passed here holds credentials.
//
// Thread-safety: implementations must be safe for concurrent use; calls come
// from request threads and the background publisher.
#pragma once

#include <chrono>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service {

enum class CommitMode { kService, kCoordinated, kAppend };

// "service", "coordinated", "append".
std::string_view CommitModeName(CommitMode mode);

struct CommitEvent {
  CommitMode mode = CommitMode::kService;
  CommitOutcome outcome = CommitOutcome::kOk;
  std::chrono::microseconds latency{0};  // from receipt to reply
};

struct PublishEvent {
  Version version = -1;
  bool background = false;  // by the Publisher rather than a request
};

class CommitObserver {
 public:
  virtual ~CommitObserver() = default;

  // One per CommitService::Commit call, whatever its outcome.
  virtual void OnCommit(const CommitEvent& /*event*/) {}

  // An S3 reply that was an error (`code` is S3's: "NoSuchKey",
  // "SignatureDoesNotMatch", "SlowDown", ...; "TransportError" with
  // http_status 0 when no reply came). `action` is "PutObject", ...
  virtual void OnS3Error(std::string_view /*action*/, std::string_view /*code*/,
                         long /*http_status*/) {}

  // A state store call that failed (`operation` is the StateStore method:
  // "Ratify", "Latest", ...). Ratify's conflicts are not errors.
  virtual void OnStateStoreError(std::string_view /*operation*/, StatusCode /*code*/) {}

  // An append batch ratified as one version holding `merged` appends.
  virtual void OnAppendBatch(int64_t /*merged*/) {}

  // A ratified commit copied to _delta_log/<version>.json.
  virtual void OnPublish(const PublishEvent& /*event*/) {}

  // _delta_log/<version>.json differs from the ratified commit, or a staged
  // commit is missing or changed: needs an operator.
  virtual void OnLogInconsistent(Version /*version*/) {}
};

// An observer that ignores everything (the default).
CommitObserver& NoCommitObserver();

}  // namespace deltacommit::service
