// UcCredentialsApi: Unity Catalog's temporary credentials (credential
// vending) under /api/2.1/unity-catalog, for engines that hold only a
// catalog token and read or write a table's files directly:
//
//   POST /temporary-table-credentials  {"table_id", "operation": READ | READ_WRITE}
//   POST /temporary-path-credentials   {"url", "operation": PATH_READ |
//                                       PATH_READ_WRITE | PATH_CREATE_TABLE}
//
// Both answer UC's TemporaryCredentials: {"aws_temp_credentials":
// {"access_key_id", "secret_access_key", "session_token"}, "expiration_time"
// (epoch ms), "url"}; for a local (file://) location only "url", as Unity
// Catalog's own server answers, since a local table needs no credential.
//
// Authorisation, in this order after the token (401): the body (400); for a
// table, its name by the token's `catalogs` prefixes (READ needs read,
// READ_WRITE commit); the location by its `tables` prefixes (the same
// actions), so vending never reaches storage that /v1/commits would not.
// A staging table's credentials are its creator's only. Credentials come
// from the CredentialVendor (the bucket's vend_* configuration); answers
// carry Cache-Control: no-store, and no credential reaches a log.
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include "service/http/router.h"
#include "service/unity/uc_rest_api.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service::unity {

class UcCredentialsApi {
 public:
  // `vendor` must outlive this.
  UcCredentialsApi(UnityApiDeps deps, CredentialVendor& vendor) : deps_(deps), vendor_(vendor) {}

  // Registers both routes on `router`; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response TemporaryTableCredentials(const http::Request& request);
  http::Response TemporaryPathCredentials(const http::Request& request);

 private:
  // The answer for `location`: vended credentials, or only the url for a
  // local location.
  http::Response Vend(const TokenConfig& token, const TableUri& location, VendOperation operation);

  const UnityApiDeps deps_;
  CredentialVendor& vendor_;
};

}  // namespace deltacommit::service::unity
