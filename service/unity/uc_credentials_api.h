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
// And the Delta REST API's (v1) equivalents under /delta/v1, with its error
// shape:
//
//   GET /catalogs/{catalog}/schemas/{schema}/tables/{table}/credentials?operation=
//   GET /staging-tables/{table_id}/credentials      (always READ_WRITE)
//   GET /temporary-path-credentials?location=&operation=
//
// answering DeltaCredentialsResponse: {"storage-credentials": [{"prefix"
// (the location and '/'), "operation", "config": {"s3.access-key-id",
// "s3.secret-access-key", "s3.session-token"}, "expiration-time-ms"}]}
// (for a local location one credential with an empty config and no
// expiration).
//
// Authorisation, in this order after the token (401): the body (400); for a
// table, its name by the token's `catalogs` prefixes (READ needs read,
// READ_WRITE commit); the location by its `tables` prefixes (the same
// actions), so vending never reaches storage that /v1/commits would not.
// A staging table's credentials are its creator's only. Credentials come
// from the CredentialVendor (the bucket's vend_* configuration; for a
// pass-through bucket, the credentials the request's X-Deltacommit-*
// headers carry); answers carry Cache-Control: no-store, and no credential
// reaches a log.
//
// Thread-safety: handlers run concurrently; every dependency is safe for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "service/http/json_logger.h"
#include "service/http/router.h"
#include "service/unity/uc_api_deps.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service::unity {

class UcCredentialsApi {
 public:
  // `vendor` and `logger` (null: no log) must outlive this.
  UcCredentialsApi(UnityApiDeps deps, CredentialVendor& vendor, http::JsonLogger* logger)
      : deps_(deps), vendor_(vendor), logger_(logger) {}

  // Registers every route on `router`; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  http::Response TemporaryTableCredentials(const http::Request& request);
  http::Response TemporaryPathCredentials(const http::Request& request);
  http::Response DeltaTableCredentials(const http::Request& request);
  http::Response DeltaStagingTableCredentials(const http::Request& request);
  http::Response DeltaPathCredentials(const http::Request& request);

  // The Delta API's storage-credentials list (DeltaStorageCredential) of
  // an unfinalised staging table for the token that staged it: READ_WRITE,
  // which its first commit needs. Errors as the staging credentials route
  // answers them; the caller's answer must carry Cache-Control: no-store.
  StatusOr<nlohmann::ordered_json> StagingTableStorageCredentials(
      const TokenConfig& token, const std::string& table_id,
      const service_wire::SentCredentials& sent);

  // What a request is granted: its location and operation, and the vended
  // credentials (none for a local location).
  struct Grant {
    TableUri location;
    VendOperation operation = VendOperation::kRead;
    std::optional<aws::Credentials> credentials;
  };

 private:
  // A table or staging table by id (`staging_only`: an unfinalised staging
  // table only), or by name.
  // `sent` is the request's credential headers, throughout.
  StatusOr<Grant> ForTableId(const TokenConfig& token, const std::string& table_id,
                             VendOperation operation, bool staging_only,
                             const service_wire::SentCredentials& sent);
  StatusOr<Grant> ForTableName(const TokenConfig& token, const TableName& name,
                               VendOperation operation, const service_wire::SentCredentials& sent);
  // A path (`field` names it in messages).
  StatusOr<Grant> ForPath(const TokenConfig& token, std::string_view field, std::string_view url,
                          VendOperation operation, const service_wire::SentCredentials& sent);
  // The checks every table's grant makes once it is found: its name, then
  // its creator (a staging table's), then its location.
  StatusOr<Grant> ForFoundTable(const TokenConfig& token, const TableName& name,
                                const std::string& location,
                                const std::optional<std::string>& staging_owner,
                                VendOperation operation, const service_wire::SentCredentials& sent);
  // The vendor's credentials for `location` (none when local).
  StatusOr<Grant> Vend(const TokenConfig& token, const TableUri& location, VendOperation operation,
                       const service_wire::SentCredentials& sent);

  const UnityApiDeps deps_;
  CredentialVendor& vendor_;
  http::JsonLogger* const logger_;
};

// The writer's own credentials as `request`'s X-Deltacommit-* headers carry
// them (for a bucket whose credentials pass through).
service_wire::SentCredentials SentCredentialsOf(const http::Request& request);

// What a client is told when the vendor fails: its own errors (bad
// location, vending not configured, STS unreachable) as they are; STS
// refusing the service (kInternal: the service's credentials, role or
// trust policy) only as "the operator's set-up", since the details (role
// ARN, the service's key id and credential source, STS's text) are the
// operator's, who finds them in the log line "credential vending failed".
Status VendFailureForClient(const Status& failure, const VendRequest& request,
                            http::JsonLogger* logger);

}  // namespace deltacommit::service::unity
