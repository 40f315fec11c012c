#include "deltacommit/logstore/coordinated_log_store.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "deltacommit/commit_coordinator.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "logstore/ratified_log.h"
#include "logstore/service_append.h"

namespace deltacommit {

CoordinatedLogStore::CoordinatedLogStore(ObjectStore& store, CommitServiceClient& client,
                                         std::string table_uri, StepHooks* hooks)
    : store_(store), client_(client), table_uri_(std::move(table_uri)), hooks_(hooks) {
  ratified_ = std::make_unique<RatifiedLog>(
      store_, [this](Version start) { return client_.GetPendingCommits(table_uri_, start); },
      [this] { return Describe(); });
}

CoordinatedLogStore::~CoordinatedLogStore() = default;

std::string CoordinatedLogStore::CommitCoordinator() const {
  return std::string(kDeltacommitCoordinator);
}

std::string CoordinatedLogStore::CommitCoordinatorConf() const {
  return nlohmann::json{{"serviceUrl", client_.Url()}}.dump();
}

std::string CoordinatedLogStore::Describe() const {
  return "coordinated " + table_uri_ + " via " + client_.Describe();
}

Status CoordinatedLogStore::WriteFirst(std::string_view content) {
  // Table creation: the service has nothing to coordinate before the table
  // exists (docs/protocols/coordinated.md), so version 0 is created like the
  // filesystem modes create it.
  DC_RETURN_IF_ERROR(RunStep(hooks_, "coordinated/before-put-0"));
  return store_.PutIfAbsent(CommitPath(0), content).WithContext("write version 0 of " + Describe());
}

Status CoordinatedLogStore::Write(Version version, std::string_view content) {
  if (version < 0) {
    return InvalidArgumentError("negative version " + std::to_string(version) + " for " +
                                Describe());
  }
  if (version == 0) return WriteFirst(content);
  DC_ASSIGN_OR_RETURN(const std::string staged,
                      ratified_->PutStaged(version, content, hooks_, "coordinated"));
  ServiceCommitRequest request;
  request.table = table_uri_;
  request.version = version;
  request.staged_file = staged;
  ServiceCommitResult result = client_.Commit(request);
  ratified_->DropRefused(staged, result.status);
  DC_RETURN_IF_ERROR(result.status);
  return RunStep(hooks_, "coordinated/after-ratify");
}

StatusOr<std::vector<ObjectMeta>> CoordinatedLogStore::List(Version from) {
  return ratified_->List(from);
}

StatusOr<std::string> CoordinatedLogStore::Read(std::string_view key) {
  return ratified_->Read(key);
}

StatusOr<BlindAppendResult> CoordinatedLogStore::AppendBlind(Version read_version,
                                                             std::string_view content) {
  return AppendThroughService(client_, table_uri_, read_version, content, hooks_, assign_versions_);
}

}  // namespace deltacommit
