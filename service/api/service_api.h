// ServiceApi: the handlers of the commit service's HTTP API (docs/api.md),
// between the HTTP server (service/http) and the commit logic
// (service/commits):
//   POST /v1/commits                   authenticate, parse, authorise,
//                                      resolve the endpoint, commit
//   GET  /v1/tables/{table}/commits    ratified, unpublished commits
//   GET  /healthz, /readyz, /metrics   no token
// Every commit request is logged as one JSON line ("commit") naming the
// token by its name; credentials are never logged.
//
// Thread-safety: handlers run concurrently on the server's workers; every
// dependency is safe for that.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "deltacommit/service_wire/commit_body.h"
#include "service/api/commit_metrics.h"
#include "service/api/replies.h"
#include "service/commits/commit_service.h"
#include "service/config/auth.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"
#include "service/http/json_logger.h"
#include "service/http/metrics.h"
#include "service/http/router.h"
#include "service/state/state_store.h"

namespace deltacommit::service {

// What the handlers use; each must outlive the ServiceApi.
struct ServiceApiDeps {
  const ServiceConfig* config = nullptr;
  const Authenticator* authenticator = nullptr;
  CommitService* commits = nullptr;
  StateStore* state = nullptr;
  CommitMetrics* commit_metrics = nullptr;
  http::Metrics* metrics = nullptr;
  http::JsonLogger* logger = nullptr;
};

class ServiceApi {
 public:
  explicit ServiceApi(ServiceApiDeps deps);

  // Registers every route on `router`; the router must not outlive this.
  Status AddRoutes(http::Router& router);

  // /readyz answers 503 while `stopping` returns true (set it before the
  // server starts; HttpServer::stopping).
  void SetStoppingProbe(std::function<bool()> stopping) { stopping_ = std::move(stopping); }

  http::Response PostCommit(const http::Request& request);
  http::Response GetPendingCommits(const http::Request& request);
  http::Response Healthz(const http::Request& request);
  http::Response Readyz(const http::Request& request);
  http::Response MetricsText(const http::Request& request);

 private:
  // The commit request for `body` from `token` in `out`, or the refusal.
  std::optional<ApiError> Prepare(const service_wire::CommitBody& body, const TokenConfig& token,
                                  CommitRequest& out) const;
  std::optional<ApiError> PrepareLocal(const service_wire::CommitBody& body,
                                       const TableUri& table) const;
  http::Response Commit(const http::Request& request, const TokenConfig& token,
                        const service_wire::CommitBody& body);
  // Logs the outcome of a commit request: `error` when refused, else
  // `reply`.
  void LogCommit(const http::Request& request, const TokenConfig* token,
                 const service_wire::CommitBody* body, const ApiError* error,
                 const CommitReply* reply) const;

  const ServiceApiDeps deps_;
  std::function<bool()> stopping_ = [] { return false; };
};

}  // namespace deltacommit::service
