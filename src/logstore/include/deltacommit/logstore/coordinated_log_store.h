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
// List(from) asks the service first (latest ratified version L, unpublished
// commits >= from), then lists _delta_log/. Asking first means a commit
// published between the two calls is in the listing. From the listing it
// drops every staged file (only the service knows which were ratified),
// every versioned file above L when L >= 0 (not ratified: written around the
// coordinator), and the v.json of each unpublished commit v (published since
// the answer: the same commit; or written around the coordinator); it adds
// each unpublished commit under its staged key. L = -1: the service has
// ratified nothing for the table yet, and the listing is the log.
//
// Read(v.json) of a version known to be published reads v.json; otherwise it
// asks the service: above L -> kNotFound; unpublished -> the staged object
// the service ratified as v; else v.json. Read of a staged key that is gone
// (cleaned up after publishing) reads v.json.
//
// Thread-safety: safe for concurrent use (the client and store are; the
// published-through version seen is an atomic that only grows).
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

class CoordinatedLogStore : public LogStore {
 public:
  // `table_uri` is the table root as the service names it
  // ("s3://bucket/prefix"). `store`, `client` and `hooks` (may be null) must
  // outlive this object.
  CoordinatedLogStore(ObjectStore& store, CommitServiceClient& client, std::string table_uri,
                      StepHooks* hooks = nullptr);

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
  StatusOr<std::string> ReadCommit(Version version);
  StatusOr<PendingCommits> FetchPending(Version start);

  ObjectStore& store_;
  CommitServiceClient& client_;
  const std::string table_uri_;
  StepHooks* const hooks_;
  // Every version up to this one is published as v.json (the service
  // publishes in order, and published versions stay published), so reading
  // them needs no question to the service.
  std::atomic<Version> published_through_{-1};
  std::atomic<bool> assign_versions_{true};
};

// The merged listing of List() (see above), sorted by key.
std::vector<ObjectMeta> MergeCoordinatedListing(std::vector<ObjectMeta> listing,
                                                const PendingCommits& pending);

}  // namespace deltacommit
