#include "service/api/commit_metrics.h"

#include <string>

namespace deltacommit::service {
namespace {

// Seconds: a commit is a few S3 round trips and a state store write.
const std::vector<double> kCommitSeconds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                            0.5,   1,    2.5,   5,    10,  30};

// A bounded label value for an S3 error code or action.
std::string LabelValue(std::string_view text) {
  if (text.empty() || text.size() > 64) return "other";
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) return "other";
  }
  return std::string(text);
}

}  // namespace

CommitMetrics::CommitMetrics(http::Metrics& metrics)
    : commits_(metrics.AddCounter("deltacommit_commits_total",
                                  "Commit requests answered, by mode and outcome.",
                                  {"mode", "outcome"})),
      conflicts_(metrics.AddCounter("deltacommit_commit_conflicts_total",
                                    "Commits refused because the version was taken or ahead.",
                                    {"mode", "reason"})),
      duration_(metrics.AddHistogram("deltacommit_commit_duration_seconds",
                                     "Time from receiving a commit to its reply.", {"mode"},
                                     kCommitSeconds)),
      in_flight_(metrics.AddGauge("deltacommit_commits_in_flight",
                                  "Commit requests being handled.")
                     .Get()),
      s3_errors_(metrics.AddCounter("deltacommit_s3_errors_total",
                                    "S3 error replies (TransportError: none came), by S3 "
                                    "action and error code.",
                                    {"action", "code"})),
      state_errors_(metrics.AddCounter("deltacommit_state_store_errors_total",
                                       "Failed state store calls, by operation and code.",
                                       {"operation", "code"})),
      publishes_(metrics.AddCounter("deltacommit_publishes_total",
                                    "Ratified commits copied to _delta_log/<v>.json, by "
                                    "request or by the background publisher.",
                                    {"by"})),
      inconsistent_(metrics.AddCounter("deltacommit_log_inconsistent_total",
                                       "Ratified commits the table's log disagrees with "
                                       "(needs an operator).")
                        .Get()),
      scheduled_(metrics.AddGauge("deltacommit_publisher_scheduled_tables",
                                  "Tables the background publisher has work for.")
                     .Get()),
      append_batches_(metrics.AddCounter("deltacommit_append_batches_total",
                                         "Versions written by append batches.")
                          .Get()),
      appends_merged_(metrics.AddCounter("deltacommit_appends_merged_total",
                                         "Appends in those versions (divided by the batches: "
                                         "appends per version).")
                          .Get()) {}

void CommitMetrics::OnCommit(const CommitEvent& event) {
  const std::string mode(CommitModeName(event.mode));
  commits_.WithLabels({mode, std::string(CommitOutcomeName(event.outcome))}).Increment();
  if (event.outcome == CommitOutcome::kVersionTaken ||
      event.outcome == CommitOutcome::kVersionAhead) {
    conflicts_.WithLabels({mode, std::string(CommitOutcomeName(event.outcome))}).Increment();
  }
  duration_.WithLabels({mode}).Observe(std::chrono::duration<double>(event.latency).count());
}

void CommitMetrics::OnS3Error(std::string_view action, std::string_view code,
                              long /*http_status*/) {
  s3_errors_.WithLabels({LabelValue(action), LabelValue(code)}).Increment();
}

void CommitMetrics::OnStateStoreError(std::string_view operation, StatusCode code) {
  state_errors_.WithLabels({LabelValue(operation), std::string(StatusCodeName(code))})
      .Increment();
}

void CommitMetrics::OnAppendBatch(int64_t merged) {
  append_batches_.Increment();
  appends_merged_.Increment(static_cast<uint64_t>(merged));
}

void CommitMetrics::OnPublish(const PublishEvent& event) {
  publishes_.WithLabels({event.background ? "publisher" : "request"}).Increment();
}

void CommitMetrics::OnLogInconsistent(Version /*version*/) { inconsistent_.Increment(); }

}  // namespace deltacommit::service
