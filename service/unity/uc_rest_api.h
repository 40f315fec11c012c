// UcRestApi: the Unity Catalog REST 2.1 names the commit service answers
// under /api/2.1/unity-catalog (docs/unity-catalog.md), the calls a Unity
// Catalog client makes to resolve, create and drop what it names:
//
//   POST   /catalogs                 GET /catalogs, /catalogs/{name}
//   DELETE /catalogs/{name}
//   POST   /schemas                  GET /schemas?catalog_name=, /schemas/{full_name}
//   DELETE /schemas/{full_name}
//   POST   /staging-tables           a managed table's id and location
//   POST   /tables                   GET /tables?catalog_name=&schema_name=,
//                                        /tables/{full_name}
//   DELETE /tables/{full_name}
//
// Every request is authenticated by its bearer token and authorised twice:
// the name by the token's `catalogs` prefixes and its actions (read; commit
// to create tables; manage for catalogs, schemas and dropping tables), and
// every storage location it names or makes by the token's `tables`
// prefixes, so a catalog never lets a token reach storage it could not
// reach through /v1/commits. Locations must be served by this service: under
// a [local] root, or in a bucket of the [s3] configuration.
//
// Errors are UC REST's shape and status (uc_errors.h).
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "service/unity/uc_api_deps.h"
#include "service/unity/uc_tables.h"

namespace deltacommit::service::unity {

class UcRestApi {
 public:
  explicit UcRestApi(UnityApiDeps deps);

  // Registers every route on `router`; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response CreateCatalog(const http::Request& request);
  http::Response GetCatalog(const http::Request& request);
  http::Response ListCatalogs(const http::Request& request);
  http::Response GetMetastoreSummary(const http::Request& request);
  http::Response DeleteCatalog(const http::Request& request);
  http::Response CreateSchema(const http::Request& request);
  http::Response GetSchema(const http::Request& request);
  http::Response ListSchemas(const http::Request& request);
  http::Response DeleteSchema(const http::Request& request);
  http::Response CreateStagingTable(const http::Request& request);
  http::Response CreateTable(const http::Request& request);
  http::Response GetTable(const http::Request& request);
  http::Response ListTables(const http::Request& request);
  http::Response DeleteTable(const http::Request& request);

 private:
  // Runs `handle` with the request's token, or answers 401: every handler
  // authenticates before it reads anything else.
  http::Response WithToken(const http::Request& request,
                           const std::function<http::Response(const TokenConfig&)>& handle) const;
  // The fields POST /catalogs and POST /schemas share, read from `body`:
  // a new container (catalog or schema) of `full_name`, not yet named,
  // once `token` may manage that name and its storage_root (if any) is a
  // location it serves. kInvalidArgument, kPermissionDenied otherwise.
  StatusOr<ContainerEntry> NewContainer(const UcBody& body, const TokenConfig& token,
                                        const std::string& full_name) const;
  const UnityApiDeps deps_;
  const UcTables tables_;
};

}  // namespace deltacommit::service::unity
