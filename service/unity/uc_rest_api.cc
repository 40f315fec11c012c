// The UC REST 2.1 handlers. Each reads the token first (401 before the body
// is looked at), then the body and names (400), then the token's rights on
// the name and on the storage it touches (403), then acts on the catalog.
#include "service/unity/uc_rest_api.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "service/config/catalog_names.h"
#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;
using http::Request;
using http::Response;

constexpr int64_t kDefaultMaxResults = 100;
constexpr int64_t kMaxMaxResults = 1000;

Response Answer(const Json& json) { return Response::Json(200, DumpJson(json)); }
Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return UcRestErrorAnswer(UcErrorFor(status, object));
}
Response Fail(const UcError& error) { return UcRestErrorAnswer(error); }

// "catalog.schema" or "catalog.schema.table" split and each name checked.
StatusOr<std::vector<std::string>> SplitFullName(std::string_view full_name, size_t parts,
                                                 std::string_view what) {
  static constexpr std::string_view kParts[] = {"catalog", "schema", "table"};
  std::vector<std::string> names;
  size_t start = 0;
  for (size_t i = 0; i < parts; ++i) {
    const size_t dot = i + 1 < parts ? full_name.find('.', start) : std::string_view::npos;
    if (i + 1 < parts && dot == std::string_view::npos) {
      return InvalidArgumentError("invalid " + std::string(what) + " name " +
                                  QuoteForMessage(full_name) + ": give " +
                                  (parts == 2 ? "catalog.schema" : "catalog.schema.table"));
    }
    names.emplace_back(full_name.substr(start, dot - start));
    DC_RETURN_IF_ERROR(ValidateCatalogName(kParts[i], names.back()));
    start = dot + 1;
  }
  return names;
}

StatusOr<TableName> ParseTableName(std::string_view full_name) {
  DC_ASSIGN_OR_RETURN(std::vector<std::string> names, SplitFullName(full_name, 3, "table"));
  return TableName{names[0], names[1], names[2]};
}

std::string PathParam(const Request& request, std::string_view name) {
  return std::string(request.PathParam(name).value_or(""));
}

// max_results (1..kMaxMaxResults, default kDefaultMaxResults).
StatusOr<int64_t> MaxResults(const Request& request) {
  std::optional<std::string_view> text = request.QueryParam("max_results");
  if (!text) return kDefaultMaxResults;
  int64_t value = 0;
  for (char c : *text) {
    if (c < '0' || c > '9' || value > kMaxMaxResults) break;
    value = value * 10 + (c - '0');
  }
  if (text->empty() || text->size() > 4 || value < 1 || value > kMaxMaxResults ||
      text->find_first_not_of("0123456789") != std::string_view::npos) {
    return InvalidArgumentError("max_results " + QuoteForMessage(*text) +
                                " is not a number from 1 to " + std::to_string(kMaxMaxResults));
  }
  return value;
}

}  // namespace

UcRestApi::UcRestApi(UnityApiDeps deps) : deps_(deps), tables_(deps) {}

Response UcRestApi::WithToken(const Request& request,
                              const std::function<Response(const TokenConfig&)>& handle) const {
  return WithUcToken(*deps_.authenticator, request, handle);
}

Status UcRestApi::AddRoutes(http::Router& router) {
  using Handler = Response (UcRestApi::*)(const Request&);
  const std::string base = kUcRestBase;
  const std::pair<const char*, std::pair<const char*, Handler>> routes[] = {
      {"POST", {"/catalogs", &UcRestApi::CreateCatalog}},
      {"GET", {"/catalogs", &UcRestApi::ListCatalogs}},
      {"GET", {"/catalogs/{name}", &UcRestApi::GetCatalog}},
      {"DELETE", {"/catalogs/{name}", &UcRestApi::DeleteCatalog}},
      {"POST", {"/schemas", &UcRestApi::CreateSchema}},
      {"GET", {"/schemas", &UcRestApi::ListSchemas}},
      {"GET", {"/schemas/{full_name}", &UcRestApi::GetSchema}},
      {"DELETE", {"/schemas/{full_name}", &UcRestApi::DeleteSchema}},
      {"POST", {"/staging-tables", &UcRestApi::CreateStagingTable}},
      {"POST", {"/tables", &UcRestApi::CreateTable}},
      {"GET", {"/tables", &UcRestApi::ListTables}},
      {"GET", {"/tables/{full_name}", &UcRestApi::GetTable}},
      {"DELETE", {"/tables/{full_name}", &UcRestApi::DeleteTable}},
      {"GET", {"/metastore_summary", &UcRestApi::GetMetastoreSummary}},
  };
  for (const auto& [method, route] : routes) {
    Handler handler = route.second;
    DC_RETURN_IF_ERROR(router.Add(method, base + route.first, [this, handler](const Request& r) {
      return (this->*handler)(r);
    }));
  }
  return OkStatus();
}

// --- catalogs ---------------------------------------------------------------

StatusOr<ContainerEntry> UcRestApi::NewContainer(const UcBody& body, const TokenConfig& token,
                                                 const std::string& full_name) const {
  StatusOr<std::optional<std::string>> comment = body.OptionalString("comment");
  StatusOr<PropertyMap> properties = body.Properties("properties");
  StatusOr<std::optional<std::string>> root = body.OptionalString("storage_root");
  if (std::optional<Status> bad =
          FirstError({comment.status(), properties.status(), root.status()}))
    return *bad;
  DC_RETURN_IF_ERROR(AuthorizeName(token, full_name, Action::kManage));
  ContainerEntry entry;
  if (*root) {
    DC_ASSIGN_OR_RETURN(TableUri location, tables_.ServedLocation(token, "storage_root", **root));
    entry.storage_root = location.uri;
  }
  entry.id = NewUuid();
  entry.comment = comment->value_or("");
  entry.properties = *std::move(properties);
  entry.owner = token.name;
  entry.created_at_ms = entry.updated_at_ms = deps_.clock->NowMillis();
  return entry;
}

Response UcRestApi::CreateCatalog(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> name = body->RequiredString("name");
    if (!name.ok()) return Fail(name.status());
    if (Status valid = ValidateCatalogName("catalog", *name); !valid.ok()) return Fail(valid);
    StatusOr<ContainerEntry> fields = NewContainer(*body, token, *name);
    if (!fields.ok()) return Fail(fields.status());
    CatalogEntry catalog{*std::move(fields)};
    catalog.name = *name;
    Status created = deps_.catalog->CreateCatalog(catalog);
    if (!created.ok()) return Fail(created, UcObject::kCatalog);
    return Answer(CatalogInfo(catalog));
  });
}

Response UcRestApi::GetCatalog(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string name = PathParam(request, "name");
    if (Status valid = ValidateCatalogName("catalog", name); !valid.ok()) return Fail(valid);
    if (Status allowed = AuthorizeName(token, name, Action::kRead); !allowed.ok()) {
      return Fail(allowed);
    }
    StatusOr<std::optional<CatalogEntry>> catalog = deps_.catalog->GetCatalog(name);
    if (!catalog.ok()) return Fail(catalog.status());
    if (!*catalog) return Fail(NotFoundError("Catalog not found: " + name), UcObject::kCatalog);
    return Answer(CatalogInfo(**catalog));
  });
}

// The catalogs the token may read; others are not listed (nor counted).
Response UcRestApi::ListCatalogs(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<std::vector<CatalogEntry>> catalogs = deps_.catalog->ListCatalogs();
    if (!catalogs.ok()) return Fail(catalogs.status());
    Json listed = Json::array();
    for (const CatalogEntry& catalog : *catalogs) {
      if (AuthorizeName(token, catalog.name, Action::kRead).ok()) {
        listed.push_back(CatalogInfo(catalog));
      }
    }
    return Answer({{"catalogs", std::move(listed)}});
  });
}

// Delta Spark asks it to find which configured catalog holds a table (the
// table's ucMetastoreId): any valid token may, as Unity Catalog's server
// answers every authenticated caller.
Response UcRestApi::GetMetastoreSummary(const Request& request) {
  return WithToken(request, [&](const TokenConfig&) {
    StatusOr<std::string> id = deps_.catalog->MetastoreId();
    if (!id.ok()) return Fail(id.status());
    return Answer({{"metastore_id", *id}});
  });
}

Response UcRestApi::DeleteCatalog(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string name = PathParam(request, "name");
    if (Status valid = ValidateCatalogName("catalog", name); !valid.ok()) return Fail(valid);
    if (Status allowed = AuthorizeName(token, name, Action::kManage); !allowed.ok()) {
      return Fail(allowed);
    }
    Status deleted = deps_.catalog->DeleteCatalog(name);
    if (!deleted.ok()) return Fail(deleted, UcObject::kCatalog);
    return Answer(Json::object());
  });
}

// --- schemas ----------------------------------------------------------------

Response UcRestApi::CreateSchema(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> name = body->RequiredString("name");
    StatusOr<std::string> catalog_name = body->RequiredString("catalog_name");
    if (std::optional<Status> bad = FirstError({name.status(), catalog_name.status()}))
      return Fail(*bad);
    if (std::optional<Status> bad = FirstError(
            {ValidateCatalogName("catalog", *catalog_name), ValidateCatalogName("schema", *name)}))
      return Fail(*bad);
    StatusOr<ContainerEntry> fields = NewContainer(*body, token, *catalog_name + "." + *name);
    if (!fields.ok()) return Fail(fields.status());
    SchemaEntry schema{*std::move(fields), *catalog_name};
    schema.name = *name;
    Status created = deps_.catalog->CreateSchema(schema);
    if (created.code() == StatusCode::kNotFound) {
      return Fail(NotFoundError("Catalog not found: " + *catalog_name), UcObject::kCatalog);
    }
    if (!created.ok()) return Fail(created, UcObject::kSchema);
    return Answer(SchemaInfo(schema));
  });
}

Response UcRestApi::GetSchema(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string full_name = PathParam(request, "full_name");
    StatusOr<std::vector<std::string>> names = SplitFullName(full_name, 2, "schema");
    if (!names.ok()) return Fail(names.status());
    if (Status allowed = AuthorizeName(token, full_name, Action::kRead); !allowed.ok()) {
      return Fail(allowed);
    }
    StatusOr<std::optional<SchemaEntry>> schema =
        deps_.catalog->GetSchema((*names)[0], (*names)[1]);
    if (!schema.ok()) return Fail(schema.status());
    if (!*schema) {
      StatusOr<std::optional<CatalogEntry>> catalog = deps_.catalog->GetCatalog((*names)[0]);
      if (catalog.ok() && !*catalog) {
        return Fail(NotFoundError("Catalog not found: " + (*names)[0]), UcObject::kCatalog);
      }
      return Fail(NotFoundError("Schema not found: " + full_name), UcObject::kSchema);
    }
    return Answer(SchemaInfo(**schema));
  });
}

Response UcRestApi::ListSchemas(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string catalog(request.QueryParam("catalog_name").value_or(""));
    if (Status valid = ValidateCatalogName("catalog", catalog); !valid.ok()) {
      return Fail(InvalidArgumentError("query parameter catalog_name: " + valid.message()));
    }
    StatusOr<std::vector<SchemaEntry>> schemas = deps_.catalog->ListSchemas(catalog);
    if (!schemas.ok()) {
      if (schemas.status().IsNotFound()) {
        return Fail(NotFoundError("Catalog not found: " + catalog), UcObject::kCatalog);
      }
      return Fail(schemas.status());
    }
    Json listed = Json::array();
    for (const SchemaEntry& schema : *schemas) {
      if (AuthorizeName(token, catalog + "." + schema.name, Action::kRead).ok()) {
        listed.push_back(SchemaInfo(schema));
      }
    }
    return Answer({{"schemas", std::move(listed)}});
  });
}

Response UcRestApi::DeleteSchema(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string full_name = PathParam(request, "full_name");
    StatusOr<std::vector<std::string>> names = SplitFullName(full_name, 2, "schema");
    if (!names.ok()) return Fail(names.status());
    if (Status allowed = AuthorizeName(token, full_name, Action::kManage); !allowed.ok()) {
      return Fail(allowed);
    }
    Status deleted = deps_.catalog->DeleteSchema((*names)[0], (*names)[1]);
    if (!deleted.ok()) return Fail(deleted, UcObject::kSchema);
    return Answer(Json::object());
  });
}

// --- tables -----------------------------------------------------------------

// A managed table's id and place, handed to the client that will write its
// version 0 there and then create it (POST /tables with that location).
Response UcRestApi::CreateStagingTable(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> name = body->RequiredString("name");
    StatusOr<std::string> catalog = body->RequiredString("catalog_name");
    StatusOr<std::string> schema = body->RequiredString("schema_name");
    if (std::optional<Status> bad = FirstError({catalog.status(), schema.status(), name.status()}))
      return Fail(*bad);
    const TableName table{*catalog, *schema, *name};
    StatusOr<TableName> checked = ParseTableName(table.FullName());
    if (!checked.ok()) return Fail(checked.status());
    UcOr<StagingTableEntry> staging = tables_.Stage(token, table);
    if (!staging.ok()) return Fail(staging.error());
    return Answer(StagingTableInfo(*staging));
  });
}

Response UcRestApi::CreateTable(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> name = body->RequiredString("name");
    StatusOr<std::string> catalog = body->RequiredString("catalog_name");
    StatusOr<std::string> schema = body->RequiredString("schema_name");
    StatusOr<std::string> type_name = body->RequiredString("table_type");
    StatusOr<std::optional<std::string>> format = body->OptionalString("data_source_format");
    StatusOr<std::string> location_text = body->RequiredString("storage_location");
    StatusOr<std::optional<std::string>> comment = body->OptionalString("comment");
    StatusOr<PropertyMap> properties = body->Properties("properties");
    if (std::optional<Status> bad = FirstError(
            {name.status(), catalog.status(), schema.status(), type_name.status(), format.status(),
             location_text.status(), comment.status(), properties.status()}))
      return Fail(*bad);
    TableEntry table;
    table.name = {*catalog, *schema, *name};
    if (Status checked = ParseTableName(table.name.FullName()).status(); !checked.ok()) {
      return Fail(checked);
    }
    StatusOr<TableType> type = ParseTableType(*type_name);
    if (!type.ok())
      return Fail(InvalidArgumentError("field \"table_type\": " + type.status().message()));
    if (format->value_or("DELTA") != "DELTA") {
      return Fail(InvalidArgumentError("field \"data_source_format\" is " +
                                       QuoteForMessage(**format) +
                                       ": this service serves Delta tables only (DELTA)"));
    }
    const nlohmann::json* columns = body->Find("columns");
    StatusOr<std::string> schema_string =
        columns == nullptr ? InvalidArgumentError("field \"columns\" is required")
                           : SchemaStringFromColumnInfos(Json(*columns));
    if (!schema_string.ok()) return Fail(schema_string.status());
    table.type = *type;
    table.storage_location = *location_text;
    table.comment = comment->value_or("");
    table.columns_json = *schema_string;
    table.properties = *std::move(properties);
    for (const nlohmann::json& column : *columns) {
      if (column.contains("partition_index") && column["partition_index"].is_number_integer()) {
        table.partition_columns.push_back(column.value("name", ""));
      }
    }
    UcOr<TableEntry> created = tables_.Register(token, std::move(table));
    if (!created.ok()) return Fail(created.error());
    StatusOr<Json> info = TableInfo(*created);
    if (!info.ok()) return Fail(info.status());
    return Answer(*info);
  });
}

Response UcRestApi::GetTable(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = ParseTableName(PathParam(request, "full_name"));
    if (!name.ok()) return Fail(name.status());
    if (Status allowed = AuthorizeName(token, name->FullName(), Action::kRead); !allowed.ok()) {
      return Fail(allowed);
    }
    StatusOr<std::optional<TableEntry>> table = deps_.catalog->GetTable(*name);
    if (!table.ok()) return Fail(table.status());
    if (!*table) return Fail(tables_.TableNotFound(*name));
    StatusOr<Json> info = TableInfo(**table);
    if (!info.ok()) return Fail(info.status());
    return Answer(*info);
  });
}

// Pages of max_results tables, ascending by name; next_page_token is the
// last name of a full page.
Response UcRestApi::ListTables(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    const std::string catalog(request.QueryParam("catalog_name").value_or(""));
    const std::string schema(request.QueryParam("schema_name").value_or(""));
    const std::string after(request.QueryParam("page_token").value_or(""));
    const std::pair<const char*, const std::string*> parameters[] = {{"catalog_name", &catalog},
                                                                     {"schema_name", &schema}};
    for (const auto& [parameter, value] : parameters) {
      Status valid =
          ValidateCatalogName(parameter == parameters[0].first ? "catalog" : "schema", *value);
      if (!valid.ok()) {
        return Fail(InvalidArgumentError("query parameter " + std::string(parameter) + ": " +
                                         valid.message()));
      }
    }
    if (!after.empty()) {
      if (Status valid = ValidateCatalogName("table", after); !valid.ok()) {
        return Fail(
            InvalidArgumentError("query parameter page_token is not one this service gave"));
      }
    }
    StatusOr<int64_t> limit = MaxResults(request);
    if (!limit.ok()) return Fail(limit.status());
    if (Status allowed = AuthorizeName(token, catalog + "." + schema, Action::kRead);
        !allowed.ok()) {
      return Fail(allowed);
    }
    StatusOr<std::vector<TableEntry>> tables =
        deps_.catalog->ListTables(catalog, schema, after, *limit);
    if (!tables.ok()) {
      if (tables.status().IsNotFound()) return Fail(tables_.TableNotFound({catalog, schema, "-"}));
      return Fail(tables.status());
    }
    Json listed = Json::array();
    for (const TableEntry& table : *tables) {
      StatusOr<Json> info = TableInfo(table);
      if (!info.ok()) return Fail(info.status());
      listed.push_back(*std::move(info));
    }
    Json answer = {{"tables", std::move(listed)}};
    if (static_cast<int64_t>(tables->size()) == *limit) {
      answer["next_page_token"] = tables->back().name.name;
    }
    return Answer(answer);
  });
}

// Drops the name only: the table's files and its commit history stay (the
// service never deletes data); the table id is not reused.
Response UcRestApi::DeleteTable(const Request& request) {
  return WithToken(request, [&](const TokenConfig& token) {
    StatusOr<TableName> name = ParseTableName(PathParam(request, "full_name"));
    if (!name.ok()) return Fail(name.status());
    if (Status allowed = AuthorizeName(token, name->FullName(), Action::kManage); !allowed.ok()) {
      return Fail(allowed);
    }
    Status deleted = deps_.catalog->DeleteTable(*name);
    if (deleted.IsNotFound()) return Fail(tables_.TableNotFound(*name));
    if (!deleted.ok()) return Fail(deleted, UcObject::kTable);
    return Answer(Json::object());
  });
}

}  // namespace deltacommit::service::unity
