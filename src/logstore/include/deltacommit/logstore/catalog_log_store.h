// CatalogLogStore: commits to a catalog-managed table (PROTOCOL.md
// "Catalog-managed tables", docs/protocols/catalog-managed.md) through the
// catalog that manages it (CatalogClient: Unity Catalog's Delta REST API).
//
// Write of version N > 0:                          [catalog/before-staged-put]
//   1. put _delta_log/_staged_commits/<N>.<uuid>.json: a plain put, the name
//      is unique                                    [catalog/after-staged-put]
//   2. ask the catalog to ratify it as N (add-commit, with the version this
//      store last published as the backfilled one): the commit point
//                                                   [catalog/after-ratify]
//   3. publish, in order: every ratified commit below N not yet published,
//      then N, each copied to _delta_log/<v>.json with put-if-absent (the
//      catalog's server may publish too: a <v>.json found there counts only
//      when it holds the same bytes, else publishing stops). Best
//      effort: the commit stands whether or not this lands, and readers
//      take it from the catalog until it is published; a failure is told to
//      the warning callback (OnWarning), never returned. [catalog/after-publish]
//   A refusal (another commit is N: kAlreadyExists) deletes the staged file
//   (best effort). kUnknownOutcome: it may be N; the Transaction reads N
//   back (Read finds it while the catalog holds it).
// Write of version 0 is the creation of the table at its staging location
// (before the catalog registers it): put-if-absent of 0.json.
//
// List and Read merge the catalog's ratified commits with the listing of
// _delta_log/ and ignore files above its latest ratified version
// (logstore/ratified_log.h). Each asks the catalog once (load table).
//
// Thread-safety: safe for concurrent use (the client and store are).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/catalog_client.h"
#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class RatifiedLog;

class CatalogLogStore : public LogStore {
 public:
  // `name` and `table_id` as the catalog resolved them. `store` (at the
  // table's location), `client` and `hooks` (may be null) must outlive
  // this object.
  // `registered` false: a staging table being created (the catalog knows
  // no commits of it yet, and reads list the store alone) until
  // MarkRegistered().
  CatalogLogStore(ObjectStore& store, CatalogClient& client, CatalogTableName name,
                  std::string table_id, StepHooks* hooks = nullptr, bool registered = true);
  void MarkRegistered() { registered_ = true; }
  // Where a failure of step 3 is told (null, the default: nowhere). Set it
  // before the store is shared between threads.
  void OnWarning(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }
  ~CatalogLogStore() override;

  // "unity-catalog main.sales.orders via catalog http://host:8642".
  std::string Describe() const override;
  Status Write(Version version, std::string_view content) override;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override;
  StatusOr<std::string> Read(std::string_view key) override;
  bool ListsRatifiedStagedCommits() const override { return true; }
  std::string ManagingCatalog() const override { return client_.Describe(); }

 private:
  StatusOr<PendingCommits> Fetch(Version start);
  // Step 3 above.
  Status Publish(Version version, std::string_view content);

  ObjectStore& store_;
  CatalogClient& client_;
  const CatalogTableName name_;
  const std::string table_id_;
  StepHooks* const hooks_;
  std::unique_ptr<RatifiedLog> ratified_;
  // The newest version this store published (-1: none yet), reported to the
  // catalog with the next commit.
  std::atomic<Version> backfilled_{-1};
  std::atomic<bool> registered_;
  std::function<void(const std::string&)> warn_;
};

}  // namespace deltacommit
