// The credential vending handlers: token, body, names, locations, then the
// vendor.
#include "service/unity/uc_credentials_api.h"

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

Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return UcRestErrorAnswer(UcErrorFor(status, object));
}

Action ActionFor(VendOperation operation) {
  return operation == VendOperation::kReadWrite ? Action::kCommit : Action::kRead;
}

// TableOperation of temporary-table-credentials.
StatusOr<VendOperation> TableOperation(const std::string& text) {
  if (text == "READ") return VendOperation::kRead;
  if (text == "READ_WRITE") return VendOperation::kReadWrite;
  return InvalidArgumentError("field \"operation\" is " + QuoteForMessage(text, 64) +
                              "; it must be READ or READ_WRITE");
}

// PathOperation of temporary-path-credentials: creating a table writes it.
StatusOr<VendOperation> PathOperation(const std::string& text) {
  if (text == "PATH_READ") return VendOperation::kRead;
  if (text == "PATH_READ_WRITE" || text == "PATH_CREATE_TABLE") return VendOperation::kReadWrite;
  return InvalidArgumentError("field \"operation\" is " + QuoteForMessage(text, 64) +
                              "; it must be PATH_READ, PATH_READ_WRITE or PATH_CREATE_TABLE");
}

// A table or staging table found by id: its name and location.
struct TableById {
  TableName name;
  std::string location;
  std::optional<std::string> staging_owner;  // set for an unfinalised staging table
};

}  // namespace

Status UcCredentialsApi::AddRoutes(http::Router& router) {
  const std::string base = kUcRestBase;
  DC_RETURN_IF_ERROR(router.Add("POST", base + "/temporary-table-credentials",
                                [this](const Request& r) { return TemporaryTableCredentials(r); }));
  return router.Add("POST", base + "/temporary-path-credentials",
                    [this](const Request& r) { return TemporaryPathCredentials(r); });
}

Response UcCredentialsApi::TemporaryTableCredentials(const Request& request) {
  return WithUcToken(*deps_.authenticator, request, [&](const TokenConfig& token) -> Response {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> table_id = body->RequiredString("table_id");
    StatusOr<std::string> operation_text = body->RequiredString("operation");
    if (std::optional<Status> bad = FirstError({table_id.status(), operation_text.status()})) {
      return Fail(*bad);
    }
    if (Status id = ValidateUuid("table_id", *table_id); !id.ok()) return Fail(id);
    StatusOr<VendOperation> operation = TableOperation(*operation_text);
    if (!operation.ok()) return Fail(operation.status());

    std::optional<TableById> found;
    StatusOr<std::optional<TableEntry>> table = deps_.catalog->GetTableById(*table_id);
    if (!table.ok()) return Fail(table.status());
    if (*table) {
      found = TableById{(*table)->name, (*table)->storage_location, std::nullopt};
    } else {
      StatusOr<std::optional<StagingTableEntry>> staging =
          deps_.catalog->GetStagingTable(*table_id);
      if (!staging.ok()) return Fail(staging.status());
      if (*staging && !(*staging)->finalized) {
        const StagingTableEntry& s = **staging;
        found = TableById{{s.catalog, s.schema, s.name}, s.location, s.owner};
      }
    }
    if (!found) {
      return Fail(NotFoundError("Table not found: no table or staging table has id " + *table_id),
                  UcObject::kTable);
    }
    const Action action = ActionFor(*operation);
    if (Status named = AuthorizeName(token, found->name.FullName(), action); !named.ok()) {
      return Fail(named);
    }
    if (found->staging_owner && *found->staging_owner != token.name) {
      return Fail(PermissionDeniedError("the staging table " + found->name.FullName() +
                                        " was created by another token; only its creator may "
                                        "have its credentials"));
    }
    StatusOr<TableUri> location = NormalizeTableUri(found->location);
    if (!location.ok()) return Fail(location.status());
    if (Status allowed = Authorize(token, *location, action); !allowed.ok()) return Fail(allowed);
    return Vend(token, *location, *operation);
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
    StatusOr<TableUri> location = NormalizeTableUri(*url);
    if (!location.ok()) {
      return Fail(InvalidArgumentError("field \"url\": " + location.status().message()));
    }
    Status served = location->is_local()
                        ? CheckLocalTable(deps_.config->local, *location)
                        : ResolveS3Endpoint(deps_.config->s3, location->bucket, "").status();
    if (!served.ok()) return Fail(served);
    if (Status allowed = Authorize(token, *location, ActionFor(*operation)); !allowed.ok()) {
      return Fail(allowed);
    }
    return Vend(token, *location, *operation);
  });
}

Response UcCredentialsApi::Vend(const TokenConfig& token, const TableUri& location,
                                VendOperation operation) {
  Json answer = Json::object();
  if (!location.is_local()) {
    StatusOr<VendedCredentials> vended = vendor_.Vend({location, operation, token.name});
    if (!vended.ok()) return Fail(vended.status());
    const aws::Credentials& c = vended->credentials;
    answer["aws_temp_credentials"] = {{"access_key_id", c.access_key_id},
                                      {"secret_access_key", c.secret_access_key},
                                      {"session_token", c.session_token}};
    if (c.expiration_ms) answer["expiration_time"] = *c.expiration_ms;
  }
  answer["url"] = location.uri;
  Response response = Response::Json(200, DumpJson(answer));
  // Credentials are for this client only: no proxy or cache keeps them.
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace deltacommit::service::unity
