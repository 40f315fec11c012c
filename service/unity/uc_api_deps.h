// What every Unity Catalog API handler of the service uses (UnityApiDeps),
// and the token check each runs first, in its API's error shape.
//
// Thread-safety: the dependencies are safe for concurrent use.
#pragma once

#include <functional>

#include "deltacommit/clock.h"
#include "service/catalog/catalog_store.h"
#include "service/config/auth.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"
#include "service/http/router.h"
#include "service/unity/uc_body.h"
#include "service/unity/uc_errors.h"

namespace deltacommit::service::unity {

inline constexpr char kUcRestBase[] = "/api/2.1/unity-catalog";
// The Delta REST API, below kUcRestBase.
inline constexpr char kDeltaApiBase[] = "/delta/v1";

// What the handlers use; each must outlive the API object.
struct UnityApiDeps {
  const ServiceConfig* config = nullptr;
  const Authenticator* authenticator = nullptr;
  CatalogStore* catalog = nullptr;
  Clock* clock = nullptr;
};

// Runs `handle` with the request's token, or answers 401 in UC REST's
// shape (WithUcToken) or the Delta REST API's (WithDeltaToken): every
// handler authenticates before it reads anything else.
http::Response WithUcToken(const Authenticator& authenticator, const http::Request& request,
                           const std::function<http::Response(const TokenConfig&)>& handle);
http::Response WithDeltaToken(const Authenticator& authenticator, const http::Request& request,
                              const std::function<http::Response(const TokenConfig&)>& handle);

// The names of the Delta API's paths (/catalogs/{catalog}/schemas/{schema}
// [/tables/{table}]), each checked with ValidateCatalogName; `name` is left
// empty when the route has no {table}.
StatusOr<TableName> PathTableName(const http::Request& request);

}  // namespace deltacommit::service::unity
