// UcCommitsApi: Unity Catalog's coordinated-commits API, the one Delta
// Spark's UCTokenBasedRestClient calls (docs/unity-catalog.md), under
// /api/2.1/unity-catalog:
//
//   POST /delta/preview/commits   ratify a staged commit of a managed table,
//                                 and/or hear that the writer published
//                                 versions up to latest_backfilled_version
//   GET  /delta/preview/commits   (arguments in a JSON body, as UC's clients
//                                 send them) the ratified, unpublished
//                                 commits and the latest table version
//
// A commit maps onto the service's coordinated mode (CommitService): the
// staged file _delta_log/_staged_commits/<file_name> is read, checked and
// ratified as version v only after v-1 and at most once; the same version
// with the same file is a replay (200), another file 409; a version ahead
// of latest + 1 is 400 and a table with max_unpublished commits waiting is
// 429. The service's publisher writes _delta_log/<v>.json itself and checks
// what a writer published there; a writer's latest_backfilled_version is a
// hint that schedules it, never trusted as such.
//
// Tables are the catalog's MANAGED tables, found by table_id; the token
// must hold the right (commit, read) on the table's name and on its
// storage location. Only local tables (file:// under a [local] root) are
// committed to so far: on S3 the service needs credentials of its own to
// read staged commits, which it does not have yet (501).
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "service/commits/commit_service.h"
#include "service/http/json_logger.h"
#include "service/unity/uc_rest_api.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service::unity {

struct UcCommitsDeps {
  UnityApiDeps names;
  CommitService* commits = nullptr;
  // Unity Catalog's cap on unbackfilled commits per table (its server: 10).
  int64_t max_unpublished_commits = 10;
  // Where a commit whose catalog metadata could not be updated is told
  // (null: nowhere).
  http::JsonLogger* logger = nullptr;
  // Credentials for commits to S3 tables: the service reads the staged
  // commit and publishes it as a session it vends itself (READ_WRITE on the
  // table's prefix). Null: only local tables are committed to.
  CredentialVendor* vendor = nullptr;
};

// A commit's description as UC's APIs carry it (DeltaCommitInfo).
struct UcCommitInfo {
  int64_t version = 0;
  int64_t timestamp = 0;  // in-commit timestamp, epoch ms
  std::string file_name;  // "<v 20 digits>.<uuid>.json", no directory
  int64_t file_size = 0;
  int64_t file_modification_timestamp = 0;
};

// The metadata a commit may set on the catalog's table (DeltaMetadata).
struct UcCommitMetadata {
  std::optional<std::string> description;
  std::optional<PropertyMap> properties;
  std::optional<std::string> schema_string;  // from ColumnInfos
};

class UcCommitsApi {
 public:
  explicit UcCommitsApi(UcCommitsDeps deps) : deps_(deps) {}

  // Registers both routes; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response PostCommit(const http::Request& request);
  http::Response GetCommits(const http::Request& request);

 private:
  // The managed table of `table_id` and the access to its storage, once
  // `token` may do `action` on its name and its location. An error in UC's
  // shape otherwise.
  struct Target {
    TableEntry table;
    TableAccess access;
  };
  StatusOr<Target> FindTarget(const TokenConfig& token, const std::string& table_id, Action action,
                              UcError* error) const;
  // True once no ratified commit at or below `through` waits to be
  // published (polling for up to 2 s).
  bool WaitPublishedThrough(const std::string& table, Version through) const;
  // Sets the commit's metadata on the catalog's table unless a later
  // version's metadata is there already.
  Status ApplyMetadata(const std::string& table_id, Version version,
                       const UcCommitMetadata& metadata) const;

  const UcCommitsDeps deps_;
};

// Reads and checks commit_info as UC's server does: every field present,
// numbers > 0, file_name one plain path segment. kInvalidArgument naming
// the field.
StatusOr<UcCommitInfo> ParseUcCommitInfo(const nlohmann::json& object);

// Reads metadata ({description, properties: {properties: {...}}, schema:
// {columns: [...]}}): at least one of them set, and properties (when sent)
// holding io.unitycatalog.tableId = `table_id`.
StatusOr<UcCommitMetadata> ParseUcCommitMetadata(const nlohmann::json& object,
                                                 const std::string& table_id);

}  // namespace deltacommit::service::unity
