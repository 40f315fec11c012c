#include "service/commits/testing/recording_observer.h"

namespace deltacommit::service::testing {

void RecordingObserver::OnCommit(const CommitEvent& event) {
  std::lock_guard lock(mu_);
  ++commits_[std::string(CommitOutcomeName(event.outcome))];
}

void RecordingObserver::OnS3Error(std::string_view action, std::string_view code, long) {
  std::lock_guard lock(mu_);
  ++s3_errors_[std::string(action) + " " + std::string(code)];
}

void RecordingObserver::OnStateStoreError(std::string_view operation, StatusCode code) {
  std::lock_guard lock(mu_);
  ++state_errors_[std::string(operation) + " " + std::string(StatusCodeName(code))];
}

void RecordingObserver::OnPublish(const PublishEvent& event) {
  std::lock_guard lock(mu_);
  publishes_.push_back(event);
}

void RecordingObserver::OnLogInconsistent(Version version) {
  std::lock_guard lock(mu_);
  inconsistent_.push_back(version);
}

int64_t RecordingObserver::Commits(std::string_view outcome) const {
  std::lock_guard lock(mu_);
  auto it = commits_.find(outcome);
  return it == commits_.end() ? 0 : it->second;
}

int64_t RecordingObserver::S3Errors(const std::string& action_and_code) const {
  std::lock_guard lock(mu_);
  auto it = s3_errors_.find(action_and_code);
  return it == s3_errors_.end() ? 0 : it->second;
}

std::map<std::string, int64_t> RecordingObserver::AllS3Errors() const {
  std::lock_guard lock(mu_);
  return s3_errors_;
}

int64_t RecordingObserver::StateStoreErrors(const std::string& operation_and_code) const {
  std::lock_guard lock(mu_);
  auto it = state_errors_.find(operation_and_code);
  return it == state_errors_.end() ? 0 : it->second;
}

std::vector<PublishEvent> RecordingObserver::Publishes() const {
  std::lock_guard lock(mu_);
  return publishes_;
}

std::vector<Version> RecordingObserver::Inconsistent() const {
  std::lock_guard lock(mu_);
  return inconsistent_;
}

}  // namespace deltacommit::service::testing
