// The credential vending handlers of both APIs: token, request, names and
// locations (one Grant function per kind of target), then the vendor; each
// API only reads its request and writes its answer's shape.
#include "service/unity/uc_credentials_api.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/config/catalog_names.h"
#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"
#include "service/unity/uc_json.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;
using http::Request;
using http::Response;
using service_wire::SentCredentials;

Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return UcRestErrorAnswer(UcErrorFor(status, object));
}
Response DeltaFail(const Status& status, UcObject object = UcObject::kOther) {
  return DeltaApiErrorAnswer(UcErrorFor(status, object));
}

Action ActionFor(VendOperation operation) {
  return operation == VendOperation::kReadWrite ? Action::kCommit : Action::kRead;
}

// TableOperation of temporary-table-credentials, and the Delta API's
// DeltaCredentialOperation (`what` names the field or parameter).
StatusOr<VendOperation> TableOperation(std::string_view what, std::string_view text) {
  if (text == "READ") return VendOperation::kRead;
  if (text == "READ_WRITE") return VendOperation::kReadWrite;
  return InvalidArgumentError(std::string(what) + " is " + QuoteForMessage(text, 64) +
                              "; it must be READ or READ_WRITE");
}

// PathOperation of temporary-path-credentials: creating a table writes it.
StatusOr<VendOperation> PathOperation(const std::string& text) {
  if (text == "PATH_READ") return VendOperation::kRead;
  if (text == "PATH_READ_WRITE" || text == "PATH_CREATE_TABLE") return VendOperation::kReadWrite;
  return InvalidArgumentError("field \"operation\" is " + QuoteForMessage(text, 64) +
                              "; it must be PATH_READ, PATH_READ_WRITE or PATH_CREATE_TABLE");
}

// A required query parameter of the Delta API.
StatusOr<std::string> RequiredQuery(const Request& request, std::string_view name) {
  std::optional<std::string_view> value = request.QueryParam(name);
  if (!value || value->empty()) {
    return InvalidArgumentError("query parameter \"" + std::string(name) + "\" is required");
  }
  return std::string(*value);
}

// No proxy or cache keeps credentials meant for one client.
Response NoStore(Response response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

// UC REST's TemporaryCredentials.
Response TemporaryCredentialsAnswer(const UcCredentialsApi::Grant& grant) {
  Json answer = Json::object();
  if (grant.credentials) {
    const aws::Credentials& c = *grant.credentials;
    answer["aws_temp_credentials"] = {{"access_key_id", c.access_key_id},
                                      {"secret_access_key", c.secret_access_key},
                                      {"session_token", c.session_token}};
    if (c.expiration_ms) answer["expiration_time"] = *c.expiration_ms;
  }
  answer["url"] = grant.location.uri;
  return NoStore(Response::Json(200, DumpJson(answer)));
}

// The Delta API's DeltaStorageCredential list: one credential for the
// location.
Json DeltaStorageCredentials(const UcCredentialsApi::Grant& grant) {
  // The prefix ends in '/', as the spec's examples do: a client that picks
  // the longest prefix a path starts with never applies a table's
  // credential to a sibling that shares its name.
  Json credential = {{"prefix", grant.location.uri + "/"},
                     {"operation", std::string(VendOperationName(grant.operation))},
                     {"config", Json::object()}};
  if (grant.credentials) {
    const aws::Credentials& c = *grant.credentials;
    credential["config"] = {{"s3.access-key-id", c.access_key_id},
                            {"s3.secret-access-key", c.secret_access_key},
                            {"s3.session-token", c.session_token}};
    credential["expiration-time-ms"] = c.expiration_ms.value_or(0);
  }
  // A local location's credential is empty and never expires: no
  // expiration, as Unity Catalog's own server leaves it out.
  return Json::array({credential});
}

// DeltaCredentialsResponse.
Response DeltaCredentialsAnswer(const UcCredentialsApi::Grant& grant) {
  return NoStore(
      Response::Json(200, DumpJson(Json{{"storage-credentials", DeltaStorageCredentials(grant)}})));
}

}  // namespace

Status UcCredentialsApi::AddRoutes(http::Router& router) {
  const std::string base = kUcRestBase;
  const std::string delta = base + kDeltaApiBase;
  using Handler = Response (UcCredentialsApi::*)(const Request&);
  const std::pair<std::pair<const char*, std::string>, Handler> routes[] = {
      {{"POST", base + "/temporary-table-credentials"},
       &UcCredentialsApi::TemporaryTableCredentials},
      {{"POST", base + "/temporary-path-credentials"}, &UcCredentialsApi::TemporaryPathCredentials},
      {{"GET", delta + "/catalogs/{catalog}/schemas/{schema}/tables/{table}/credentials"},
       &UcCredentialsApi::DeltaTableCredentials},
      {{"GET", delta + "/staging-tables/{table_id}/credentials"},
       &UcCredentialsApi::DeltaStagingTableCredentials},
      {{"GET", delta + "/temporary-path-credentials"}, &UcCredentialsApi::DeltaPathCredentials},
  };
  for (const auto& [route, handler] : routes) {
    DC_RETURN_IF_ERROR(router.Add(route.first, route.second,
                                  [this, h = handler](const Request& r) { return (this->*h)(r); }));
  }
  return OkStatus();
}

// ---- UC REST 2.1 --------------------------------------------------------------

Response UcCredentialsApi::TemporaryTableCredentials(const Request& request) {
  return WithUcToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> table_id = body->RequiredString("table_id");
    StatusOr<std::string> operation_text = body->RequiredString("operation");
    if (std::optional<Status> bad = FirstError({table_id.status(), operation_text.status()})) {
      return Fail(*bad);
    }
    StatusOr<VendOperation> operation = TableOperation("field \"operation\"", *operation_text);
    if (!operation.ok()) return Fail(operation.status());
    StatusOr<Grant> grant = ForTableId(token, *table_id, *operation, /*staging_only=*/false,
                                        SentCredentialsOf(request));
    if (!grant.ok()) return Fail(grant.status(), UcObject::kTable);
    return TemporaryCredentialsAnswer(*grant);
  });
}

Response UcCredentialsApi::TemporaryPathCredentials(const Request& request) {
  return WithUcToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> url = body->RequiredString("url");
    StatusOr<std::string> operation_text = body->RequiredString("operation");
    if (std::optional<Status> bad = FirstError({url.status(), operation_text.status()})) {
      return Fail(*bad);
    }
    StatusOr<VendOperation> operation = PathOperation(*operation_text);
    if (!operation.ok()) return Fail(operation.status());
    StatusOr<Grant> grant =
        ForPath(token, "field \"url\"", *url, *operation, SentCredentialsOf(request));
    if (!grant.ok()) return Fail(grant.status());
    return TemporaryCredentialsAnswer(*grant);
  });
}

// ---- Delta REST API (v1) ---------------------------------------------------------

Response UcCredentialsApi::DeltaTableCredentials(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return DeltaFail(name.status());
    StatusOr<std::string> text = RequiredQuery(request, "operation");
    if (!text.ok()) return DeltaFail(text.status());
    StatusOr<VendOperation> operation = TableOperation("query parameter \"operation\"", *text);
    if (!operation.ok()) return DeltaFail(operation.status());
    StatusOr<Grant> grant = ForTableName(token, *name, *operation, SentCredentialsOf(request));
    if (!grant.ok()) return DeltaFail(grant.status(), UcObject::kTable);
    return DeltaCredentialsAnswer(*grant);
  });
}

Response UcCredentialsApi::DeltaStagingTableCredentials(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    const std::string table_id(request.PathParam("table_id").value_or(""));
    // The client writes the table's first commit with them: always
    // READ_WRITE.
    StatusOr<Grant> grant =
        ForTableId(token, table_id, VendOperation::kReadWrite, /*staging_only=*/true,
                   SentCredentialsOf(request));
    if (!grant.ok()) return DeltaFail(grant.status(), UcObject::kTable);
    return DeltaCredentialsAnswer(*grant);
  });
}

Response UcCredentialsApi::DeltaPathCredentials(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    StatusOr<std::string> location = RequiredQuery(request, "location");
    StatusOr<std::string> text = RequiredQuery(request, "operation");
    if (std::optional<Status> bad = FirstError({location.status(), text.status()})) {
      return DeltaFail(*bad);
    }
    StatusOr<VendOperation> operation = TableOperation("query parameter \"operation\"", *text);
    if (!operation.ok()) return DeltaFail(operation.status());
    StatusOr<Grant> grant = ForPath(token, "query parameter \"location\"", *location, *operation,
                                     SentCredentialsOf(request));
    if (!grant.ok()) return DeltaFail(grant.status());
    return DeltaCredentialsAnswer(*grant);
  });
}

StatusOr<nlohmann::ordered_json> UcCredentialsApi::StagingTableStorageCredentials(
    const TokenConfig& token, const std::string& table_id,
    const service_wire::SentCredentials& sent) {
  DC_ASSIGN_OR_RETURN(Grant grant, ForTableId(token, table_id, VendOperation::kReadWrite,
                                              /*staging_only=*/true, sent));
  return DeltaStorageCredentials(grant);
}

// ---- Grants ----------------------------------------------------------------------

StatusOr<UcCredentialsApi::Grant> UcCredentialsApi::ForTableId(const TokenConfig& token,
                                                               const std::string& table_id,
                                                               VendOperation operation,
                                                               bool staging_only,
                                                               const SentCredentials& sent) {
  DC_RETURN_IF_ERROR(ValidateUuid("table_id", table_id));
  if (!staging_only) {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table, deps_.catalog->GetTableById(table_id));
    if (table) {
      return ForFoundTable(token, table->name, table->storage_location, std::nullopt, operation,
                           sent);
    }
  }
  DC_ASSIGN_OR_RETURN(std::optional<StagingTableEntry> staging,
                      deps_.catalog->GetStagingTable(table_id));
  if (!staging || staging->finalized) {
    return NotFoundError(std::string("Table not found: no ") +
                         (staging_only ? "staging table" : "table or staging table") + " has id " +
                         table_id);
  }
  return ForFoundTable(token, {staging->catalog, staging->schema, staging->name}, staging->location,
                       staging->owner, operation, sent);
}

StatusOr<UcCredentialsApi::Grant> UcCredentialsApi::ForTableName(const TokenConfig& token,
                                                                 const TableName& name,
                                                                 VendOperation operation,
                                                                 const SentCredentials& sent) {
  // The name is authorised before it is looked up: a token learns nothing
  // of names it may not use.
  DC_RETURN_IF_ERROR(AuthorizeName(token, name.FullName(), ActionFor(operation)));
  DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table, deps_.catalog->GetTable(name));
  if (!table) return NotFoundError("Table not found: " + name.FullName());
  return ForFoundTable(token, name, table->storage_location, std::nullopt, operation, sent);
}

StatusOr<UcCredentialsApi::Grant> UcCredentialsApi::ForFoundTable(
    const TokenConfig& token, const TableName& name, const std::string& location,
    const std::optional<std::string>& staging_owner, VendOperation operation,
    const SentCredentials& sent) {
  const Action action = ActionFor(operation);
  DC_RETURN_IF_ERROR(AuthorizeName(token, name.FullName(), action));
  if (staging_owner && *staging_owner != token.name) {
    return PermissionDeniedError("the staging table " + name.FullName() +
                                 " was created by another token; only its creator may have its "
                                 "credentials");
  }
  DC_ASSIGN_OR_RETURN(TableUri uri, NormalizeTableUri(location));
  DC_RETURN_IF_ERROR(Authorize(token, uri, action));
  return Vend(token, uri, operation, sent);
}

StatusOr<UcCredentialsApi::Grant> UcCredentialsApi::ForPath(const TokenConfig& token,
                                                            std::string_view field,
                                                            std::string_view url,
                                                            VendOperation operation,
                                                            const SentCredentials& sent) {
  StatusOr<TableUri> location = NormalizeTableUri(url);
  if (!location.ok()) {
    return InvalidArgumentError(std::string(field) + ": " + location.status().message());
  }
  DC_RETURN_IF_ERROR(location->is_local()
                         ? CheckLocalTable(deps_.config->local, *location)
                         : ResolveS3Endpoint(deps_.config->s3, location->bucket, "").status());
  DC_RETURN_IF_ERROR(Authorize(token, *location, ActionFor(operation)));
  return Vend(token, *location, operation, sent);
}

StatusOr<UcCredentialsApi::Grant> UcCredentialsApi::Vend(const TokenConfig& token,
                                                         const TableUri& location,
                                                         VendOperation operation,
                                                         const SentCredentials& sent) {
  Grant grant{location, operation, std::nullopt};
  if (location.is_local()) return grant;
  const VendRequest request{location, operation, token.name, sent};
  StatusOr<VendedCredentials> vended = vendor_.Vend(request);
  if (!vended.ok()) return VendFailureForClient(vended.status(), request, logger_);
  grant.credentials = std::move(vended->credentials);
  return grant;
}

SentCredentials SentCredentialsOf(const Request& request) {
  return service_wire::ReadSentCredentials(
      [&](std::string_view name) { return request.Header(name); });
}

Status VendFailureForClient(const Status& failure, const VendRequest& request,
                            http::JsonLogger* logger) {
  if (failure.code() != StatusCode::kInternal) return failure;
  if (logger != nullptr) {
    logger->Warn("credential vending failed",
                 {{"location", request.location.uri},
                  {"operation", std::string(VendOperationName(request.operation))},
                  {"principal", request.principal},
                  {"error", failure.message()}});
  }
  return InternalError(std::string(VendOperationName(request.operation)) + " credentials for " +
                       request.location.uri +
                       " could not be vended: STS refused this service's request, which its "
                       "operator must fix (the service's log says why, under \"credential "
                       "vending failed\")");
}

}  // namespace deltacommit::service::unity
