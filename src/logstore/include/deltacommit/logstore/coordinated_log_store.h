// CoordinatedLogStore: the `coordinated` mode (docs/protocols/coordinated.md,
// Delta's coordinated commits) with the commit service as the coordinator.
//
// Write of version N > 0:                        [coordinated/before-staged-put]
//   1. put _delta_log/_staged_commits/<N>.<uuid>.json: a plain put, the name
//      is unique                                  [coordinated/after-staged-put]
//   2. POST /v1/commits {version N, staged_file}: the service ratifies N, the
//      commit point; it publishes N.json later    [coordinated/after-ratify]
//   kAlreadyExists (version_taken) and other refusals: the staged object can
//   never become N and is deleted (best effort). kUnknownOutcome: it may be
//   N; the Transaction reads N back (Read below finds it while unpublished).
// Write of version 0 (table creation) goes through the filesystem path:
//   PutIfAbsent of 00000000000000000000.json.     [coordinated/before-put-0]
//
// List and Read merge the service's ratified, unpublished commits with the
// listing of _delta_log/ (logstore/ratified_log.h has the rules).
//
// Thread-safety: safe for concurrent use (the client and store are).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/commit_service_client.h"
#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class RatifiedLog;

class CoordinatedLogStore : public LogStore {
 public:
  // `table_uri` is the table root as the service names it
  // ("s3://bucket/prefix"). `store`, `client` and `hooks` (may be null) must
  // outlive this object.
  CoordinatedLogStore(ObjectStore& store, CommitServiceClient& client, std::string table_uri,
                      StepHooks* hooks = nullptr);
  ~CoordinatedLogStore() override;

  // "coordinated <table> via <client>".
  std::string Describe() const override;
  Status Write(Version version, std::string_view content) override;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override;
  StatusOr<std::string> Read(std::string_view key) override;
  // The service assigns appends their version (docs/protocols/group-commit.md).
  // Off with deltacommit.service.assignVersions=false, and once the service
  // said it cannot assign versions for this table.
  bool AssignsVersions() const override { return assign_versions_.load(); }
  void DisableAssignedVersions() { assign_versions_ = false; }
  StatusOr<BlindAppendResult> AppendBlind(Version read_version, std::string_view content) override;
  bool ListsRatifiedStagedCommits() const override { return true; }
  // kDeltacommitCoordinator, with conf {"serviceUrl": the client's URL}.
  std::string CommitCoordinator() const override;
  std::string CommitCoordinatorConf() const override;

 private:
  Status WriteFirst(std::string_view content);

  ObjectStore& store_;
  CommitServiceClient& client_;
  const std::string table_uri_;
  StepHooks* const hooks_;
  std::unique_ptr<RatifiedLog> ratified_;
  std::atomic<bool> assign_versions_{true};
};

// The merged listing of List() (logstore/ratified_log.h), sorted by key:
// staged files, files above the latest ratified version and the v.json of
// each unpublished commit dropped; the unpublished commits added.
std::vector<ObjectMeta> MergeCoordinatedListing(std::vector<ObjectMeta> listing,
                                                const PendingCommits& pending);

}  // namespace deltacommit
