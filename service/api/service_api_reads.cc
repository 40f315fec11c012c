// The reading side of the API: GET /v1/tables/{table}/commits, and the
// unauthenticated /healthz, /readyz and /metrics.
#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

#include "service/api/service_api.h"
#include "service/api/state_probe.h"
#include "service/config/local_tables.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {
namespace {

// `start` of GET .../commits: a decimal version, default 0.
StatusOr<Version> StartVersion(const http::Request& request) {
  for (const auto& [name, value] : request.query) {
    if (name != "start") {
      return InvalidArgumentError("unknown query parameter " + QuoteForMessage(name, 64) +
                                  " (this takes: start)");
    }
  }
  std::optional<std::string_view> text = request.QueryParam("start");
  if (!text) return Version{0};
  Version start = -1;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), start);
  if (text->empty() || error != std::errc() || end != text->data() + text->size() ||
      start < 0) {
    return InvalidArgumentError("query parameter start=" + QuoteForMessage(*text, 40) +
                                " is not a version (0 or more)");
  }
  return start;
}

nlohmann::json PendingJson(const std::string& table, const PendingCommitList& list) {
  nlohmann::json commits = nlohmann::json::array();
  for (const CommitRecord& record : list.commits) {
    commits.push_back({{"version", record.version},
                       {"staged_file", record.staged_file},
                       {"size", record.size},
                       {"commit_timestamp", record.commit_timestamp_ms}});
  }
  return {{"table", table}, {"latest_version", list.latest}, {"commits", std::move(commits)}};
}

}  // namespace

http::Response ServiceApi::GetPendingCommits(const http::Request& request) {
  StatusOr<const TokenConfig*> token =
      deps_.authenticator->Authenticate(request.Header("authorization"));
  if (!token.ok()) return ErrorAnswer(ErrorFor(token.status()));
  StatusOr<TableUri> table = NormalizeTableUri(request.PathParam("table").value_or(""));
  if (!table.ok()) return ErrorAnswer(ErrorFor(table.status()));
  Status allowed = Authorize(**token, *table, Action::kRead);
  if (allowed.ok() && table->is_local()) allowed = CheckLocalTable(deps_.config->local, *table);
  if (!allowed.ok()) return ErrorAnswer(ErrorFor(allowed));
  StatusOr<Version> start = StartVersion(request);
  if (!start.ok()) return ErrorAnswer(ErrorFor(start.status()));
  StatusOr<PendingCommitList> list = deps_.commits->PendingCommits(table->uri, *start);
  if (!list.ok()) {
    // The service's own state store failing is never the client's fault.
    const bool bad_request = list.status().code() == StatusCode::kInvalidArgument;
    return ErrorAnswer({bad_request ? 400 : 503, bad_request ? "bad_request" : "unavailable",
                        list.status().message(), {}, {}});
  }
  return http::Response::Json(200, PendingJson(table->uri, *list).dump());
}

http::Response ServiceApi::Healthz(const http::Request& /*request*/) {
  return http::Response::Json(200, R"({"status":"ok"})");
}

http::Response ServiceApi::Readyz(const http::Request& request) {
  if (stopping_()) {
    return http::Response::Json(503, R"({"status":"stopping"})");
  }
  StatusOr<std::optional<CommitRecord>> probe = deps_.state->Latest(kStateProbeTable);
  if (!probe.ok()) {
    // The details (paths, table names) go to the log, not to anyone who asks.
    deps_.logger->Warn("not ready", {{"request_id", request.request_id},
                                     {"state_store", deps_.state->Describe()},
                                     {"error", probe.status().ToString()}});
    return http::Response::Json(
        503, nlohmann::json{{"status", "unavailable"},
                            {"reason", "state store: " +
                                           std::string(StatusCodeName(probe.status().code()))}}
                 .dump());
  }
  return http::Response::Json(200, R"({"status":"ready"})");
}

http::Response ServiceApi::MetricsText(const http::Request& /*request*/) {
  deps_.commit_metrics->SetScheduledTables(deps_.commits->publisher().ScheduledTables());
  http::Response response;
  response.status = 200;
  response.headers.emplace_back("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
  response.body = deps_.metrics->Render();
  return response;
}

}  // namespace deltacommit::service
