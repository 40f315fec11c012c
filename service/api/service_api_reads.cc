// The reading side of the API: GET /v1/tables/{table}/commits, and the
// unauthenticated /healthz, /readyz and /metrics.
#include <charconv>
#include <string>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/service_wire/answers.h"
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

std::string PendingJson(const std::string& table, const PendingCommitList& list) {
  service_wire::PendingCommitsAnswer answer;
  answer.table = table;
  answer.pending.latest_version = list.latest;
  for (const CommitRecord& record : list.commits) {
    answer.pending.commits.push_back(
        {record.version, record.staged_file, record.size, record.commit_timestamp_ms});
  }
  return service_wire::SerializePendingCommits(answer);
}

// The body of /healthz and /readyz.
http::Response HealthJson(int status, std::string state, std::string reason = {}) {
  return http::Response::Json(
      status, service_wire::SerializeHealthAnswer({std::move(state), std::move(reason)}));
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
    return ErrorAnswer({bad_request ? 400 : 503,
                        {bad_request ? "bad_request" : "unavailable", list.status().message(),
                         {}, {}}});
  }
  return http::Response::Json(200, PendingJson(table->uri, *list));
}

http::Response ServiceApi::Healthz(const http::Request& /*request*/) {
  return HealthJson(200, "ok");
}

http::Response ServiceApi::Readyz(const http::Request& request) {
  if (stopping_()) return HealthJson(503, "stopping");
  StatusOr<std::optional<CommitRecord>> probe = deps_.state->Latest(kStateProbeTable);
  if (!probe.ok()) {
    // The details (paths, table names) go to the log, not to anyone who asks.
    deps_.logger->Warn("not ready", {{"request_id", request.request_id},
                                     {"state_store", deps_.state->Describe()},
                                     {"error", probe.status().ToString()}});
    return HealthJson(503, "unavailable",
                      "state store: " + std::string(StatusCodeName(probe.status().code())));
  }
  return HealthJson(200, "ready");
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
