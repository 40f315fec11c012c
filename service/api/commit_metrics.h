// CommitMetrics: the commit service's Prometheus metrics, fed by the commit
// logic's CommitObserver events and by the HTTP handlers:
//   deltacommit_commits_total{mode,outcome}           counter
//   deltacommit_commit_conflicts_total{mode,reason}   counter (version_taken,
//                                                     version_ahead)
//   deltacommit_commit_duration_seconds{mode}         histogram, receipt to
//                                                     reply
//   deltacommit_commits_in_flight                     gauge
//   deltacommit_s3_errors_total{action,code}          counter (S3's error code;
//                                                     TransportError: no reply)
//   deltacommit_state_store_errors_total{operation,code}  counter
//   deltacommit_publishes_total{by}                   counter (request,
//                                                     publisher)
//   deltacommit_log_inconsistent_total                counter
//   deltacommit_publisher_scheduled_tables            gauge, set when scraped
// Label values come from fixed sets or from S3's error codes, which are
// reduced to [A-Za-z0-9] and 64 characters ("other" otherwise) so that a
// misbehaving endpoint cannot grow the label sets without bound.
//
// Thread-safety: safe for concurrent use (the registry's guarantees).
#pragma once

#include <string_view>

#include "service/commits/commit_observer.h"
#include "service/http/metrics.h"

namespace deltacommit::service {

class CommitMetrics : public CommitObserver {
 public:
  // `metrics` must outlive this.
  explicit CommitMetrics(http::Metrics& metrics);

  void OnCommit(const CommitEvent& event) override;
  void OnS3Error(std::string_view action, std::string_view code, long http_status) override;
  void OnStateStoreError(std::string_view operation, StatusCode code) override;
  void OnPublish(const PublishEvent& event) override;
  void OnAppendBatch(int64_t merged) override;
  void OnLogInconsistent(Version version) override;

  // Around each CommitService::Commit call.
  void CommitStarted() { in_flight_.Add(1); }
  void CommitFinished() { in_flight_.Add(-1); }

  void SetScheduledTables(size_t tables) { scheduled_.Set(static_cast<int64_t>(tables)); }

 private:
  http::Metrics::Family<http::Counter>& commits_;
  http::Metrics::Family<http::Counter>& conflicts_;
  http::Metrics::Family<http::Histogram>& duration_;
  http::Gauge& in_flight_;
  http::Metrics::Family<http::Counter>& s3_errors_;
  http::Metrics::Family<http::Counter>& state_errors_;
  http::Metrics::Family<http::Counter>& publishes_;
  http::Counter& inconsistent_;
  http::Gauge& scheduled_;
  http::Counter& append_batches_;
  http::Counter& appends_merged_;
};

}  // namespace deltacommit::service
