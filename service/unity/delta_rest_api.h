// DeltaRestApi: Unity Catalog's Delta REST API (api/delta.yaml), the one
// Delta Spark's UCDeltaTokenBasedRestClient calls from Delta 4.4 on
// (docs/unity-catalog.md), under /api/2.1/unity-catalog/delta/v1:
//
//   GET    /config?catalog=&protocol-versions=      the endpoints below
//   POST   /catalogs/{c}/schemas/{s}/staging-tables  a managed table's id,
//          location, credentials and required protocol and properties
//   POST   /catalogs/{c}/schemas/{s}/tables          create (after version 0)
//   GET    /catalogs/{c}/schemas/{s}/tables/{t}      load: metadata, etag,
//          unpublished commits, latest version
//   POST   /catalogs/{c}/schemas/{s}/tables/{t}      update: requirements
//          (assert-table-uuid, assert-etag) and updates (add-commit,
//          set-latest-backfilled-version, metadata), answered as load
//   DELETE, HEAD /catalogs/{c}/schemas/{s}/tables/{t}, POST .../rename
//   POST   /catalogs/{c}/schemas/{s}/tables/{t}/metrics  (accepted, 204)
//
// (Its credentials routes are UcCredentialsApi's.) The catalog is the one
// UC REST 2.1 serves (UcTables holds the rules both follow) and a commit is
// the one the preview API makes (UcCommitter): a table has one history
// whichever API writes it. Errors are the Delta API's shape
// ({"error": {"message", "type", "code"}}).
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include <string>

#include "service/unity/uc_committer.h"
#include "service/unity/uc_credentials_api.h"
#include "service/unity/uc_tables.h"

namespace deltacommit::service::unity {

class DeltaRestApi {
 public:
  // `credentials` must outlive this.
  DeltaRestApi(UcCommitsDeps deps, UcCredentialsApi& credentials)
      : deps_(deps.names), tables_(deps.names), committer_(deps), credentials_(credentials) {}

  // Registers every route on `router`; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response GetConfig(const http::Request& request);
  http::Response CreateStagingTable(const http::Request& request);
  http::Response CreateTable(const http::Request& request);
  http::Response LoadTable(const http::Request& request);
  http::Response UpdateTable(const http::Request& request);
  http::Response DeleteTable(const http::Request& request);
  http::Response TableExists(const http::Request& request);
  http::Response RenameTable(const http::Request& request);
  http::Response ReportMetrics(const http::Request& request);

  // The endpoints GET /config advertises: every route above and the
  // credentials routes, in the spec's spelling ("POST /v1/catalogs/...").
  static const std::vector<std::string>& Endpoints();

 private:
  // The table named by the path, once `token` may do `action` on the name.
  UcOr<TableEntry> FindTable(const TokenConfig& token, const TableName& name, Action action) const;
  // The load-table answer of the table of `table_id` as stored now.
  http::Response LoadAnswer(const std::string& table_id) const;

  const UnityApiDeps deps_;
  const UcTables tables_;
  const UcCommitter committer_;
  UcCredentialsApi& credentials_;
};

}  // namespace deltacommit::service::unity
