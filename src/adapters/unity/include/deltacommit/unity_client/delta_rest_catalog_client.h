// DeltaRestCatalogClient: the CatalogClient port over Unity Catalog's Delta
// REST API (/api/2.1/unity-catalog/delta/v1), the API Delta Spark's
// UCDeltaTokenBasedRestClient and Kernel's UCCatalogManagedCommitter call;
// `deltacommit serve` answers it (docs/unity-catalog.md), and so does Unity
// Catalog's own server. Calls, as those clients make them:
//   LoadTable         GET  .../catalogs/{c}/schemas/{s}/tables/{t}
//   TableCredentials  GET  .../tables/{t}/credentials?operation=READ|READ_WRITE
//   Commit            POST .../tables/{t}: requirement assert-table-uuid;
//                     updates add-commit and, when given,
//                     set-latest-backfilled-version
//   CreateStagingTable POST .../catalogs/{c}/schemas/{s}/staging-tables
//   StagingTableCredentials GET .../staging-tables/{id}/credentials
//   CreateTable       POST .../catalogs/{c}/schemas/{s}/tables
// Names are percent-encoded path segments. Every call sends the bearer
// token, which never appears in a message. With `send_credentials`, the
// calls that vend credentials or commit (TableCredentials, Commit,
// CreateStagingTable, StagingTableCredentials) also send the writer's own
// temporary S3 credentials in X-Deltacommit-* headers, for a catalog that
// passes them through (service_wire/sent_credentials.h); never otherwise.
//
// Retries (with jittered backoff, RetryPolicy): transport failures and the
// transient answers 408, 429, 500, 502, 503 and 504, for commits too: the
// catalog answers a resend of the same staged file as a replay, never a
// second commit. A commit whose last answer was 500, 502 or 504, or whose
// reply was lost, is kUnknownOutcome.
//
// Thread-safety: safe for concurrent use (the HTTP client and sleeper are).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/retry.h"
#include "deltacommit/catalog_client.h"
#include "deltacommit/clock.h"

namespace deltacommit::unity_client {

struct DeltaRestCatalogOptions {
  // The catalog's server, "http(s)://host:port"; "/api/2.1/unity-catalog"
  // is appended unless the URL ends with it already.
  std::string url;
  std::string token;  // bearer token
  aws::RetryPolicy retry;
  // The writer's own temporary credentials, sent to a catalog that passes
  // them through (null: never sent). Must outlive the client.
  aws::CredentialsProvider* send_credentials = nullptr;
};

class DeltaRestCatalogClient : public CatalogClient {
 public:
  // kInvalidArgument for a URL that is not http(s)://host[:port][/path].
  static StatusOr<std::unique_ptr<DeltaRestCatalogClient>> Create(DeltaRestCatalogOptions options,
                                                                  aws::HttpClient& http,
                                                                  Sleeper& sleeper);

  std::string Describe() const override;
  StatusOr<CatalogTable> LoadTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> TableCredentials(const CatalogTableName& name,
                                               std::string_view location,
                                               CatalogAccess access) override;
  Status Commit(const CatalogTableName& name, const std::string& table_id,
                const CatalogCommit& commit, std::optional<Version> backfilled) override;
  StatusOr<CatalogStagingTable> CreateStagingTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> StagingTableCredentials(const std::string& table_id) override;
  Status CreateTable(const CatalogTableName& name, const CatalogNewTable& table) override;

 private:
  DeltaRestCatalogClient(DeltaRestCatalogOptions options, std::string api_base,
                         aws::HttpClient& http, Sleeper& sleeper);
  std::string TableUrl(const CatalogTableName& name) const;
  std::string TablesUrl(const CatalogTableName& name) const;
  // `replayable`: a resend of the request changes nothing once it was
  // applied (reads, and commits of the same staged file), so every
  // transient failure is retried; otherwise only refusals made before
  // anything was done (429, 503, a request never sent).
  // `with_credentials`: also send options_.send_credentials, if set.
  StatusOr<aws::HttpResponse> Send(const std::string& method, const std::string& url,
                                   std::string body, bool replayable = true,
                                   bool with_credentials = false);

  const DeltaRestCatalogOptions options_;
  const std::string api_base_;  // ".../api/2.1/unity-catalog/delta/v1"
  aws::HttpClient& http_;
  Sleeper& sleeper_;
};

// The answers' parsers, for tests. `context` names the call in errors.
StatusOr<CatalogTable> ParseLoadTableAnswer(std::string_view body, const std::string& context);
// The credential whose prefix is the longest one `location` starts with.
StatusOr<VendedCredentials> ParseCredentialsAnswer(std::string_view body, std::string_view location,
                                                   const std::string& context);
StatusOr<CatalogStagingTable> ParseStagingTableAnswer(std::string_view body,
                                                      const std::string& context);
// "file:/p" and "file:///p" -> "file:///p"; anything else unchanged.
std::string NormalizeLocation(std::string_view location);

}  // namespace deltacommit::unity_client
