// RecordingObserver: a CommitObserver for tests that counts what it is told.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "service/commits/commit_observer.h"

namespace deltacommit::service::testing {

class RecordingObserver : public CommitObserver {
 public:
  void OnCommit(const CommitEvent& event) override;
  void OnS3Error(std::string_view action, std::string_view code, long http_status) override;
  void OnStateStoreError(std::string_view operation, StatusCode code) override;
  void OnPublish(const PublishEvent& event) override;
  void OnLogInconsistent(Version version) override;

  // Commits by outcome name ("ok", "version_taken", ...).
  int64_t Commits(std::string_view outcome) const;
  // S3 errors by "<action> <code>", e.g. "ListObjectsV2 SignatureDoesNotMatch".
  int64_t S3Errors(const std::string& action_and_code) const;
  std::map<std::string, int64_t> AllS3Errors() const;
  // State store errors by "<operation> <code name>", e.g. "Latest Unavailable".
  int64_t StateStoreErrors(const std::string& operation_and_code) const;
  std::vector<PublishEvent> Publishes() const;
  std::vector<Version> Inconsistent() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t, std::less<>> commits_;
  std::map<std::string, int64_t> s3_errors_;
  std::map<std::string, int64_t> state_errors_;
  std::vector<PublishEvent> publishes_;
  std::vector<Version> inconsistent_;
};

}  // namespace deltacommit::service::testing
