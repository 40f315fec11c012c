// The Delta REST API's handlers. Each reads the token first (401), then the
// path's names and the body (400), then the token's rights on the name
// (403), then finds the table (404), then acts through UcTables (the
// catalog's rules) or UcCommitter (commits).
#include "service/unity/delta_rest_api.h"

#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/config/catalog_names.h"
#include "service/unity/delta_rest_json.h"
#include "service/unity/delta_table_update.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;
using http::Request;
using http::Response;

// The Delta API's protocol versions this service speaks: 1.0 only.
constexpr int kProtocolMajor = 1;
constexpr char kProtocolVersion[] = "1.0";

constexpr char kTablesPath[] = "/catalogs/{catalog}/schemas/{schema}/tables";
constexpr char kTablePath[] = "/catalogs/{catalog}/schemas/{schema}/tables/{table}";

Response Fail(const UcError& error) { return DeltaApiErrorAnswer(error); }
Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return Fail(UcErrorFor(status, object));
}
Response Answer(const Json& json) { return Response::Json(200, DumpJson(json)); }
Response NoContent() { return Response{204, {}, ""}; }

// protocol-versions: "1.1,2.3" says the client speaks 1.0-1.1 and 2.0-2.3.
// kInvalidArgument unless one of them is major version 1.
Status CheckProtocolVersions(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view version = text.substr(start, comma - start);
    const size_t dot = version.find('.');
    const std::string_view major = version.substr(0, dot);
    if (!major.empty() && major.find_first_not_of("0123456789") == std::string_view::npos &&
        major.size() < 6 && std::stoi(std::string(major)) == kProtocolMajor) {
      return OkStatus();
    }
    start = comma + 1;
  }
  return InvalidArgumentError("query parameter \"protocol-versions\" is " +
                              QuoteForMessage(text, 64) + ": this service speaks version " +
                              kProtocolVersion + " of the Delta REST API only");
}

// The body, parsed; kInvalidArgument as UcBody answers.
StatusOr<UcBody> Body(const Request& request) { return UcBody::Parse(request.body); }

}  // namespace

const std::vector<std::string>& DeltaRestApi::Endpoints() {
  static const std::vector<std::string> endpoints = {
      "POST /v1/catalogs/{catalog}/schemas/{schema}/staging-tables",
      "POST /v1/catalogs/{catalog}/schemas/{schema}/tables",
      "GET /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
      "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
      "DELETE /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
      "HEAD /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}",
      "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/rename",
      "GET /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/credentials",
      "POST /v1/catalogs/{catalog}/schemas/{schema}/tables/{table}/metrics",
      "GET /v1/staging-tables/{table_id}/credentials",
      "GET /v1/temporary-path-credentials",
  };
  return endpoints;
}

Status DeltaRestApi::AddRoutes(http::Router& router) {
  const std::string base = std::string(kUcRestBase) + kDeltaApiBase;
  const std::string tables = base + kTablesPath;
  const std::string table = base + kTablePath;
  using Handler = Response (DeltaRestApi::*)(const Request&);
  const std::pair<std::pair<const char*, std::string>, Handler> routes[] = {
      {{"GET", base + "/config"}, &DeltaRestApi::GetConfig},
      {{"POST", base + "/catalogs/{catalog}/schemas/{schema}/staging-tables"},
       &DeltaRestApi::CreateStagingTable},
      {{"POST", tables}, &DeltaRestApi::CreateTable},
      {{"GET", table}, &DeltaRestApi::LoadTable},
      {{"POST", table}, &DeltaRestApi::UpdateTable},
      {{"DELETE", table}, &DeltaRestApi::DeleteTable},
      {{"HEAD", table}, &DeltaRestApi::TableExists},
      {{"POST", table + "/rename"}, &DeltaRestApi::RenameTable},
      {{"POST", table + "/metrics"}, &DeltaRestApi::ReportMetrics},
  };
  for (const auto& [route, handler] : routes) {
    DC_RETURN_IF_ERROR(router.Add(route.first, route.second,
                                  [this, h = handler](const Request& r) { return (this->*h)(r); }));
  }
  return OkStatus();
}

UcOr<TableEntry> DeltaRestApi::FindTable(const TokenConfig& token, const TableName& name,
                                         Action action) const {
  // The name is authorised before it is looked up: a token learns nothing
  // of names it may not use.
  if (Status allowed = AuthorizeName(token, name.FullName(), action); !allowed.ok()) {
    return UcErrorFor(allowed);
  }
  StatusOr<std::optional<TableEntry>> table = deps_.catalog->GetTable(name);
  if (!table.ok()) return UcErrorFor(table.status());
  if (!*table) return tables_.TableNotFound(name);
  return **std::move(table);
}

Response DeltaRestApi::LoadAnswer(const std::string& table_id) const {
  StatusOr<std::optional<TableEntry>> table = deps_.catalog->GetTableById(table_id);
  if (!table.ok()) return Fail(table.status());
  if (!*table) return Fail(NotFoundError("Table not found: " + table_id), UcObject::kTable);
  std::optional<UcPendingCommits> pending;
  if ((*table)->type == TableType::kManaged) {
    StatusOr<UcPendingCommits> listed = committer_.Pending((*table)->storage_location);
    if (!listed.ok()) return Fail(listed.status());
    pending = *std::move(listed);
  }
  StatusOr<Json> answer = DeltaLoadTableResponse(**table, pending ? &*pending : nullptr);
  if (!answer.ok()) return Fail(answer.status());
  return Answer(*answer);
}

Response DeltaRestApi::GetConfig(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    const std::string catalog(request.QueryParam("catalog").value_or(""));
    if (Status valid = ValidateCatalogName("catalog", catalog); !valid.ok()) {
      return Fail(InvalidArgumentError("query parameter \"catalog\": " + valid.message()));
    }
    std::optional<std::string_view> versions = request.QueryParam("protocol-versions");
    if (!versions || versions->empty()) {
      return Fail(InvalidArgumentError("query parameter \"protocol-versions\" is required"));
    }
    if (Status spoken = CheckProtocolVersions(*versions); !spoken.ok()) return Fail(spoken);
    if (Status allowed = AuthorizeName(token, catalog, Action::kRead); !allowed.ok()) {
      return Fail(allowed);
    }
    StatusOr<std::optional<CatalogEntry>> found = deps_.catalog->GetCatalog(catalog);
    if (!found.ok()) return Fail(found.status());
    if (!*found) return Fail(NotFoundError("Catalog not found: " + catalog), UcObject::kCatalog);
    return Answer({{"endpoints", Endpoints()}, {"protocol-version", kProtocolVersion}});
  });
}

Response DeltaRestApi::CreateStagingTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    StatusOr<UcBody> body = Body(request);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> table = body->RequiredString("name");
    if (!table.ok()) return Fail(table.status());
    name->name = *table;
    if (Status valid = ValidateCatalogName("table", name->name); !valid.ok()) return Fail(valid);
    UcOr<StagingTableEntry> staging = tables_.Stage(token, *name);
    if (!staging.ok()) return Fail(staging.error());
    StatusOr<Json> credentials =
        credentials_.StagingTableStorageCredentials(token, staging->table_id,
                                                    SentCredentialsOf(request));
    if (!credentials.ok()) return Fail(credentials.status(), UcObject::kTable);
    Response answer = Answer(DeltaStagingTableResponse(*staging, *std::move(credentials)));
    answer.headers.emplace_back("Cache-Control", "no-store");
    return answer;
  });
}

Response DeltaRestApi::CreateTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> path = PathTableName(request);
    if (!path.ok()) return Fail(path.status());
    StatusOr<UcBody> body = Body(request);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> name = body->RequiredString("name");
    StatusOr<std::string> location = body->RequiredString("location");
    StatusOr<std::string> type_name = body->RequiredString("table-type");
    StatusOr<std::optional<std::string>> comment = body->OptionalString("comment");
    StatusOr<const nlohmann::json*> protocol_json = body->RequiredObject("protocol");
    StatusOr<PropertyMap> properties = body->Properties("properties");
    StatusOr<int64_t> last_commit = body->RequiredInt("last-commit-timestamp-ms");
    if (std::optional<Status> bad =
            FirstError({name.status(), location.status(), type_name.status(), comment.status(),
                        protocol_json.status(), properties.status(), last_commit.status()}))
      return Fail(*bad);
    if (const nlohmann::json* uniform = body->Find("uniform");
        uniform != nullptr && !uniform->is_null()) {
      return Fail(InvalidArgumentError(
          "field \"uniform\": UniForm (Iceberg) conversion is not supported by this service"));
    }
    TableEntry table;
    table.name = {path->catalog, path->schema, *name};
    if (Status valid = ValidateCatalogName("table", *name); !valid.ok()) return Fail(valid);
    StatusOr<TableType> type = ParseTableType(*type_name);
    if (!type.ok()) {
      return Fail(InvalidArgumentError("field \"table-type\": " + type.status().message()));
    }
    // Delta's client leaves `columns` out for a table without columns, and
    // `properties` for one without configuration, though the spec lists both
    // as required: absent is empty.
    const nlohmann::json* columns = body->Find("columns");
    StatusOr<std::string> schema_string =
        columns == nullptr || columns->is_null()
            ? StatusOr<std::string>(std::string(R"({"type":"struct","fields":[]})"))
            : SchemaStringFromDeltaColumns(Json(*columns));
    if (!schema_string.ok()) return Fail(schema_string.status());
    StatusOr<Json> protocol = ParseDeltaProtocol(**protocol_json, "protocol");
    if (!protocol.ok()) return Fail(protocol.status());
    for (const auto& [key, value] : *properties) {
      if (IsDerivedProperty(key)) {
        return Fail(InvalidArgumentError(
            "field \"properties\" names " + QuoteForMessage(key, 128) +
            ", which the catalog derives from the protocol and commits: leave it out"));
      }
    }
    if (*last_commit <= 0) {
      return Fail(InvalidArgumentError("field \"last-commit-timestamp-ms\" must be above 0"));
    }
    if (*type == TableType::kManaged) {
      if (Status managed = CheckManagedTable(*protocol, *properties,
                                             properties->contains(kTableIdProperty)
                                                 ? properties->at(kTableIdProperty)
                                                 : std::string("the staging table's id"));
          !managed.ok()) {
        return Fail(managed);
      }
    }
    table.type = *type;
    table.storage_location = *location;
    table.comment = comment->value_or("");
    table.columns_json = *schema_string;
    table.properties = *std::move(properties);
    table.protocol_json = DumpJson(*protocol);
    table.last_commit_timestamp_ms = *last_commit;
    // A managed table's create describes its version 0, which the client
    // wrote before; an external table's history is its own.
    if (table.type == TableType::kManaged) table.metadata_version = 0;
    // Partition columns and domain metadata as update-table makes them.
    DeltaTableUpdate initial;
    if (const nlohmann::json* partitions = body->Find("partition-columns");
        partitions != nullptr && !partitions->is_null()) {
      initial.partition_columns.emplace();
      for (const nlohmann::json& column :
           partitions->is_array() ? *partitions : nlohmann::json::array({nullptr})) {
        if (!column.is_string() || column.get_ref<const std::string&>().empty()) {
          return Fail(
              InvalidArgumentError("field \"partition-columns\" must be a list of column names"));
        }
        initial.partition_columns->push_back(column.get<std::string>());
      }
    }
    if (const nlohmann::json* domains = body->Find("domain-metadata");
        domains != nullptr && !domains->is_null()) {
      StatusOr<Json> parsed = ParseDeltaDomainMetadata(*domains, "domain-metadata");
      if (!parsed.ok()) return Fail(parsed.status());
      initial.set_domains = *std::move(parsed);
    }
    if (Status applied = initial.ApplyTo(table); !applied.ok()) return Fail(applied);
    UcOr<TableEntry> created = tables_.Register(token, std::move(table));
    if (!created.ok()) return Fail(created.error());
    return LoadAnswer(created->table_id);
  });
}

Response DeltaRestApi::LoadTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    UcOr<TableEntry> table = FindTable(token, *name, Action::kRead);
    if (!table.ok()) return Fail(table.error());
    return LoadAnswer(table->table_id);
  });
}

// Requirements first (the table's uuid, then its etag), then the commit,
// then the metadata: a commit's metadata is applied once it is ratified,
// as that commit's (never over a later one's); metadata alone is applied
// over the entry the etag names.
Response DeltaRestApi::UpdateTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    StatusOr<UcBody> body = Body(request);
    if (!body.ok()) return Fail(body.status());
    StatusOr<DeltaTableUpdate> update = ParseDeltaTableUpdate(body->value());
    if (!update.ok()) return Fail(update.status());
    UcOr<TableEntry> table = FindTable(token, *name, Action::kCommit);
    if (!table.ok()) return Fail(table.error());
    if (table->table_id != update->table_uuid) {
      return Fail(UpdateRequirementConflict("assert-table-uuid: the table " + name->FullName() +
                                            " is " + table->table_id + ", not " +
                                            update->table_uuid));
    }
    const bool commits = update->commit || update->latest_published_version;
    if (commits && table->type != TableType::kManaged) {
      return Fail(
          InvalidArgumentError("add-commit and set-latest-backfilled-version are for "
                               "managed tables; " +
                               name->FullName() + " is EXTERNAL"));
    }
    if (update->snapshot_version && table->type == TableType::kManaged) {
      return Fail(InvalidArgumentError("update-metadata-snapshot-version is for external tables; " +
                                       name->FullName() +
                                       " is MANAGED (its commits say its version)"));
    }
    const bool etag_matches = !update->etag || *update->etag == DeltaEtag(*table);
    if (!commits) {
      Status applied =
          committer_.ApplyMetadata(table->table_id, std::nullopt, [&](TableEntry& entry) {
            if (update->etag && *update->etag != DeltaEtag(entry)) {
              return FailedPreconditionError("assert-etag: the table's etag is " +
                                             DeltaEtag(entry) + ", not " + *update->etag +
                                             ": load the table again");
            }
            return update->ApplyTo(entry);
          });
      if (applied.code() == StatusCode::kFailedPrecondition) {
        return Fail(UpdateRequirementConflict(applied.message()));
      }
      if (!applied.ok()) return Fail(applied);
      return LoadAnswer(table->table_id);
    }

    StatusOr<UcCommitTarget> target =
        committer_.Find(token, table->table_id, Action::kCommit, SentCredentialsOf(request));
    if (!target.ok()) return Fail(target.status(), UcObject::kTable);
    if (!update->commit) {
      if (!etag_matches) {
        return Fail(UpdateRequirementConflict("assert-etag: the table's etag is " +
                                              DeltaEtag(*table) + ", not " + *update->etag));
      }
      if (std::optional<UcError> failed =
              committer_.Backfilled(*target, *update->latest_published_version)) {
        return Fail(*failed);
      }
    } else {
      if (!etag_matches) {
        // A resend of a commit that landed (its reply lost) carries the
        // etag the table had before: it is a replay, answered 200, and must
        // never look like a conflict, which would make the writer commit
        // its transaction again. A version not yet taken is refused.
        StatusOr<UcPendingCommits> pending = committer_.Pending(target->access.table);
        if (!pending.ok()) return Fail(pending.status());
        if (update->commit->version > pending->latest_version) {
          return Fail(UpdateRequirementConflict("assert-etag: the table's etag is " +
                                                DeltaEtag(*table) + ", not " + *update->etag +
                                                ": load the table again"));
        }
      }
      if (std::optional<UcError> failed =
              committer_.Ratify(*target, *update->commit, "add-commit.commit.file-name")) {
        return Fail(*failed);
      }
      if (update->ChangesMetadata()) {
        // Also on a replay: the first attempt may have stopped between
        // ratifying and this. The commit stands either way and is answered
        // so; the Delta log holds the metadata, the catalog's copy waits
        // for a resend or the next commit that carries metadata.
        Status applied = committer_.ApplyMetadata(
            table->table_id, update->commit->version, [&](TableEntry& entry) {
              DC_RETURN_IF_ERROR(update->ApplyTo(entry));
              entry.last_commit_timestamp_ms = update->commit->timestamp;
              return OkStatus();
            });
        if (!applied.ok()) {
          committer_.WarnMetadataNotApplied(table->table_id, update->commit->version, applied);
        }
      }
      // A set-latest-backfilled-version beside the commit is only a hint:
      // the service publishes every ratified commit itself.
    }
    return LoadAnswer(table->table_id);
  });
}

// Drops the name only: the table's files and its commit history stay (the
// service never deletes data).
Response DeltaRestApi::DeleteTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    if (Status allowed = AuthorizeName(token, name->FullName(), Action::kManage); !allowed.ok()) {
      return Fail(allowed);
    }
    Status deleted = deps_.catalog->DeleteTable(*name);
    if (deleted.IsNotFound()) return Fail(tables_.TableNotFound(*name));
    if (!deleted.ok()) return Fail(deleted, UcObject::kTable);
    return NoContent();
  });
}

// HEAD: a status and no body, whatever the answer.
Response DeltaRestApi::TableExists(const Request& request) {
  Response answer = WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    UcOr<TableEntry> table = FindTable(token, *name, Action::kRead);
    if (!table.ok()) return Fail(table.error());
    return NoContent();
  });
  answer.body.clear();
  return answer;
}

Response DeltaRestApi::RenameTable(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    StatusOr<UcBody> body = Body(request);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> new_name = body->RequiredString("new-name");
    if (!new_name.ok()) return Fail(new_name.status());
    if (Status valid = ValidateCatalogName("table", *new_name); !valid.ok()) return Fail(valid);
    const TableName to{name->catalog, name->schema, *new_name};
    for (const TableName* each : {static_cast<const TableName*>(&*name), &to}) {
      if (Status allowed = AuthorizeName(token, each->FullName(), Action::kManage); !allowed.ok()) {
        return Fail(allowed);
      }
    }
    Status renamed = deps_.catalog->RenameTable(*name, *new_name, deps_.clock->NowMillis());
    if (renamed.IsNotFound()) return Fail(tables_.TableNotFound(*name));
    if (!renamed.ok()) return Fail(renamed, UcObject::kTable);
    return NoContent();
  });
}

// Telemetry: checked (the table and its id agree) and accepted; the
// service keeps its own metrics of commits (GET /metrics).
Response DeltaRestApi::ReportMetrics(const Request& request) {
  return WithDeltaToken(*deps_.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = PathTableName(request);
    if (!name.ok()) return Fail(name.status());
    StatusOr<UcBody> body = Body(request);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> table_id = body->RequiredString("table-id");
    if (!table_id.ok()) return Fail(table_id.status());
    if (const nlohmann::json* report = body->Find("report");
        report != nullptr && !report->is_null() && !report->is_object()) {
      return Fail(InvalidArgumentError("field \"report\" must be an object"));
    }
    UcOr<TableEntry> table = FindTable(token, *name, Action::kCommit);
    if (!table.ok()) return Fail(table.error());
    if (table->table_id != *table_id) {
      return Fail(InvalidArgumentError("field \"table-id\" is " + QuoteForMessage(*table_id, 64) +
                                       " but " + name->FullName() + " is " + table->table_id));
    }
    return NoContent();
  });
}

}  // namespace deltacommit::service::unity
