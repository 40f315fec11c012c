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
// What a commit means is UcCommitter's (uc_committer.h), shared with the
// Delta REST API: ratified as version v only after v-1 and at most once;
// the same version with the same file is a replay (200), another file 409;
// a version ahead of latest + 1 is 400 and a table with max_unpublished
// commits waiting is 429. The service's publisher writes _delta_log/<v>.json
// itself; a writer's latest_backfilled_version is a hint that schedules it.
// This file reads the preview API's requests and writes its answers.
//
// Tables are the catalog's MANAGED tables, found by table_id; the token
// must hold the right (commit, read) on the table's name and on its
// storage location.
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include <optional>
#include <string>

#include "service/unity/uc_committer.h"

namespace deltacommit::service::unity {

// The metadata a commit may set on the catalog's table (DeltaMetadata).
struct UcCommitMetadata {
  std::optional<std::string> description;
  std::optional<PropertyMap> properties;
  std::optional<std::string> schema_string;  // from ColumnInfos
};

class UcCommitsApi {
 public:
  explicit UcCommitsApi(UcCommitsDeps deps) : committer_(deps) {}

  // Registers both routes; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response PostCommit(const http::Request& request);
  http::Response GetCommits(const http::Request& request);

 private:
  const UcCommitter committer_;
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
