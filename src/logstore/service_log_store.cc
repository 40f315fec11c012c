#include "deltacommit/logstore/service_log_store.h"

#include <utility>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "logstore/service_append.h"

namespace deltacommit {

ServiceLogStore::ServiceLogStore(ObjectStore& store, CommitServiceClient& client,
                                 std::string table_uri, StepHooks* hooks)
    : store_(store), client_(client), table_uri_(std::move(table_uri)), hooks_(hooks) {}

std::string ServiceLogStore::Describe() const {
  return "service " + table_uri_ + " via " + client_.Describe();
}

Status ServiceLogStore::Write(Version version, std::string_view content) {
  if (version < 0) {
    return InvalidArgumentError("negative version " + std::to_string(version) + " for " +
                                Describe());
  }
  if (content.empty()) {
    return InvalidArgumentError("empty commit for version " + std::to_string(version) + " of " +
                                Describe());
  }
  DC_RETURN_IF_ERROR(RunStep(hooks_, "service/before-commit"));
  ServiceCommitRequest request;
  request.table = table_uri_;
  request.version = version;
  request.actions = std::string(content);
  ServiceCommitResult result = client_.Commit(request);
  DC_RETURN_IF_ERROR(result.status);
  return RunStep(hooks_, "service/after-commit");
}

StatusOr<std::vector<ObjectMeta>> ServiceLogStore::List(Version from) {
  // In this mode the service publishes before it answers (published=true),
  // and a commit it ratified but could not publish (its S3 copy failed, or
  // the instance died) is published by the next request for the table before
  // that one is decided: a writer that loses version N to it reads N.json.
  // The staged objects the service leaves under _delta_log/_staged_commits/
  // are ignored by readers (ListsRatifiedStagedCommits is false).
  return store_.List(kLogDir, LogListStartAfter(from));
}

StatusOr<std::string> ServiceLogStore::Read(std::string_view key) { return store_.Get(key); }

StatusOr<BlindAppendResult> ServiceLogStore::AppendBlind(Version read_version,
                                                std::string_view content) {
  return AppendThroughService(client_, table_uri_, read_version, content, hooks_,
                              assign_versions_);
}

}  // namespace deltacommit
