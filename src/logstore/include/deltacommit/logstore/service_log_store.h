// ServiceLogStore: the `service` mode (docs/protocols/service.md). The writer
// sends each commit's content to the commit service, which writes it as
// `_delta_log/<v>.json` put-if-absent, serialised by its own state store;
// the writer reads the log itself, straight from the object store, with its
// own credentials.
//
// Write of version N:                                   [service/before-commit]
//   POST /v1/commits {version N, actions}               [service/after-commit]
//   OK -> N is ours; kAlreadyExists (version_taken) -> the Transaction reads
//   the winner and rebases; kUnknownOutcome -> the Transaction reads N back
//   and, if absent, writes the same content again, which the service answers
//   200 if the lost attempt was applied (idempotent by content).
// All writers of a table in this mode must go through the service: on a
// store without put-if-absent, only the service's state store keeps two
// writers from both writing N.json.
//
// Thread-safety: safe for concurrent use (the client and store are).
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/commit_service_client.h"
#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class ServiceLogStore : public LogStore {
 public:
  // `table_uri` is the table root as the service names it
  // ("s3://bucket/prefix"). `store`, `client` and `hooks` (may be null) must
  // outlive this object.
  ServiceLogStore(ObjectStore& store, CommitServiceClient& client, std::string table_uri,
                  StepHooks* hooks = nullptr);

  // "service <table> via <client>".
  std::string Describe() const override;
  // The client's codes pass through (see commit_service_client.h).
  Status Write(Version version, std::string_view content) override;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override;
  StatusOr<std::string> Read(std::string_view key) override;
  // The service assigns appends their version (docs/protocols/group-commit.md).
  // Off with deltacommit.service.assignVersions=false, and once the service
  // said it cannot assign versions for this table.
  bool AssignsVersions() const override { return assign_versions_.load(); }
  void DisableAssignedVersions() { assign_versions_ = false; }
  StatusOr<BlindAppendResult> AppendBlind(Version read_version, std::string_view content) override;

 private:
  ObjectStore& store_;
  CommitServiceClient& client_;
  const std::string table_uri_;
  StepHooks* const hooks_;
  std::atomic<bool> assign_versions_{true};
};

}  // namespace deltacommit
