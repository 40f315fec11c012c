// POST /v1/commits. The order of the checks decides which error a request
// with several problems gets: 401 before anything is read, then 400 for
// the body and the table URI, 403 for the token and the endpoint, then 422
// for the credentials, and only then the commit logic (which writes).
#include "service/api/service_api.h"

#include <nlohmann/json.hpp>

#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {

using service_wire::CommitBody;

ServiceApi::ServiceApi(ServiceApiDeps deps) : deps_(deps) {}

Status ServiceApi::AddRoutes(http::Router& router) {
  auto bind = [this](http::Response (ServiceApi::*handler)(const http::Request&)) {
    return [this, handler](const http::Request& request) { return (this->*handler)(request); };
  };
  DC_RETURN_IF_ERROR(router.Add("POST", "/v1/commits", bind(&ServiceApi::PostCommit)));
  DC_RETURN_IF_ERROR(
      router.Add("GET", "/v1/tables/{table}/commits", bind(&ServiceApi::GetPendingCommits)));
  DC_RETURN_IF_ERROR(router.Add("GET", "/healthz", bind(&ServiceApi::Healthz)));
  DC_RETURN_IF_ERROR(router.Add("GET", "/readyz", bind(&ServiceApi::Readyz)));
  return router.Add("GET", "/metrics", bind(&ServiceApi::MetricsText));
}

http::Response ServiceApi::PostCommit(const http::Request& request) {
  StatusOr<const TokenConfig*> token =
      deps_.authenticator->Authenticate(request.Header("authorization"));
  if (!token.ok()) {
    ApiError error = ErrorFor(token.status());
    LogCommit(request, nullptr, nullptr, &error, nullptr);
    return ErrorAnswer(error);
  }
  StatusOr<CommitBody> body = service_wire::ParseCommitBody(request.body);
  if (!body.ok()) {
    ApiError error = ErrorFor(body.status());
    LogCommit(request, *token, nullptr, &error, nullptr);
    return ErrorAnswer(error);
  }
  return Commit(request, **token, *body);
}

std::optional<ApiError> ServiceApi::Prepare(const CommitBody& body, const TokenConfig& token,
                                            CommitRequest& out) const {
  StatusOr<TableUri> table = NormalizeTableUri(body.table);
  if (!table.ok()) return ErrorFor(table.status());
  if (body.staged_file) {
    Status staged = ValidateStagedCommitKey(*body.staged_file, body.version);
    if (!staged.ok()) return ErrorFor(staged);
  }
  Status allowed = Authorize(token, *table, Action::kCommit);
  if (!allowed.ok()) return ErrorFor(allowed);
  out.access.table = table->uri;
  if (table->is_local()) {
    if (std::optional<ApiError> refused = PrepareLocal(body, *table)) return refused;
    out.access.endpoint = {"local", {}, /*enforces_if_none_match=*/true};
    out.access.local_root = LocalRootOf(deps_.config->local, *table).value_or("");
  } else {
    StatusOr<S3EndpointConfig> endpoint =
        ResolveS3Endpoint(deps_.config->s3, table->bucket, body.endpoint);
    if (!endpoint.ok()) return ErrorFor(endpoint.status());
    // None at all: empty, which the commit logic answers 422 as well.
    StatusOr<aws::Credentials> credentials = aws::Credentials{};
    if (body.credentials) credentials = service_wire::ToAwsCredentials(*body.credentials);
    if (!credentials.ok()) {
      return ApiError{422, {"credentials_invalid", credentials.status().message(), {}, {}}};
    }
    out.access.endpoint = {endpoint->name, endpoint->service, endpoint->enforces_if_none_match};
    out.access.credentials = *std::move(credentials);
  }
  out.version = body.version;
  out.append = body.append;
  out.read_version = body.read_version;
  out.actions = body.actions;
  out.staged_file = body.staged_file;
  return std::nullopt;
}

// A local table: under a [local] root, and with nothing that only an S3
// table takes (refused rather than ignored: a client sending AWS secrets to
// a service that does not need them has mistaken the table).
std::optional<ApiError> ServiceApi::PrepareLocal(const CommitBody& body,
                                                 const TableUri& table) const {
  Status served = CheckLocalTable(deps_.config->local, table);
  if (!served.ok()) return ErrorFor(served);
  if (!body.endpoint.empty()) {
    return ErrorFor(InvalidArgumentError("field \"endpoint\": " + table.uri +
                                         " is a local table, which has no S3 endpoint"));
  }
  if (body.credentials) {
    return ErrorFor(InvalidArgumentError(
        "field \"credentials\": " + table.uri +
        " is a local table, which the service writes as its own user: send no credentials"));
  }
  return std::nullopt;
}

http::Response ServiceApi::Commit(const http::Request& request, const TokenConfig& token,
                                  const CommitBody& body) {
  CommitRequest commit;
  if (std::optional<ApiError> refused = Prepare(body, token, commit)) {
    LogCommit(request, &token, &body, &*refused, nullptr);
    return ErrorAnswer(*refused);
  }
  deps_.commit_metrics->CommitStarted();
  CommitReply reply = deps_.commits->Commit(commit);
  deps_.commit_metrics->CommitFinished();
  LogCommit(request, &token, &body, nullptr, &reply);
  return CommitReplyResponse(reply);
}

void ServiceApi::LogCommit(const http::Request& request, const TokenConfig* token,
                           const CommitBody* body, const ApiError* refused,
                           const CommitReply* reply) const {
  const ApiError error = refused  ? *refused
                         : !reply->ok() ? ErrorFor(*reply)
                                        : ApiError{200, {"", "", {}, {}}};
  const http::LogLevel level = error.status >= 500   ? http::LogLevel::kError
                               : error.status >= 400 ? http::LogLevel::kWarn
                                                     : http::LogLevel::kInfo;
  if (!deps_.logger->Enabled(level)) return;
  nlohmann::json fields = {{"request_id", request.request_id}, {"status", error.status}};
  // The [[token]]'s name; a field named "token" would be redacted.
  if (token != nullptr) fields["client"] = token->name;
  if (body != nullptr) {
    fields["table"] = body->table.substr(0, 300);  // JSON escapes what it must
    fields["mode"] = body->append ? "append" : body->staged_file ? "coordinated" : "service";
    if (body->append) {
      fields["read_version"] = body->read_version;
    } else {
      fields["version"] = body->version;
    }
    if (!body->endpoint.empty()) fields["endpoint"] = body->endpoint.substr(0, 64);
    if (body->credentials && !body->credentials->access_key_id.empty()) {
      aws::Credentials key;
      key.access_key_id = body->credentials->access_key_id;
      fields["key_id"] = key.RedactedKeyId();
    }
  }
  if (reply != nullptr && reply->ok()) {
    fields["published"] = reply->published;
    if (body != nullptr && body->append) fields["version"] = reply->version;
    if (reply->merged > 0) fields["merged"] = reply->merged;
    if (reply->duplicate) fields["duplicate"] = true;
  }
  if (error.status != 200) {
    fields["code"] = error.body.code;
    fields["error"] = error.body.message;
    if (error.body.latest_version) fields["latest_version"] = *error.body.latest_version;
  }
  deps_.logger->Log(level, "commit", fields);
}

}  // namespace deltacommit::service
