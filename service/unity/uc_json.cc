#include "service/unity/uc_json.h"

#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;

Json Properties(const PropertyMap& properties) {
  Json object = Json::object();
  for (const auto& [key, value] : properties) object[key] = value;
  return object;
}

// `comment` is left out when empty, as Unity Catalog's server does for an
// unset one.
void SetComment(Json& json, const std::string& comment) {
  if (!comment.empty()) json["comment"] = comment;
}

// What CatalogInfo and SchemaInfo share; the id is `id_field`.
void AddContainerFields(Json& json, const ContainerEntry& entry, const char* id_field) {
  SetComment(json, entry.comment);
  json["properties"] = Properties(entry.properties);
  json["owner"] = entry.owner;
  json["created_at"] = entry.created_at_ms;
  json["created_by"] = entry.owner;
  json["updated_at"] = entry.updated_at_ms;
  json["updated_by"] = entry.owner;
  json[id_field] = entry.id;
  if (!entry.storage_root.empty()) {
    json["storage_root"] = entry.storage_root;
    json["storage_location"] = entry.storage_root;
  }
}

}  // namespace

std::string DumpJson(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json CatalogInfo(const CatalogEntry& catalog) {
  Json json = {{"name", catalog.name}};
  AddContainerFields(json, catalog, "id");
  return json;
}

Json SchemaInfo(const SchemaEntry& schema) {
  Json json = {{"name", schema.name},
               {"catalog_name", schema.catalog},
               {"full_name", schema.catalog + "." + schema.name}};
  AddContainerFields(json, schema, "schema_id");
  return json;
}

StatusOr<Json> TableInfo(const TableEntry& table) {
  DC_ASSIGN_OR_RETURN(Json columns,
                      ColumnInfosFromSchemaString(table.columns_json, table.partition_columns));
  Json json = {{"name", table.name.name},
               {"catalog_name", table.name.catalog},
               {"schema_name", table.name.schema},
               {"table_type", TableTypeName(table.type)},
               {"data_source_format", table.data_source_format},
               {"columns", std::move(columns)},
               {"storage_location", table.storage_location}};
  SetComment(json, table.comment);
  json["properties"] = Properties(table.properties);
  json["owner"] = table.owner;
  json["created_at"] = table.created_at_ms;
  json["created_by"] = table.owner;
  json["updated_at"] = table.updated_at_ms;
  json["updated_by"] = table.owner;
  json["table_id"] = table.table_id;
  return json;
}

Json StagingTableInfo(const StagingTableEntry& staging) {
  return {{"name", staging.name},
          {"catalog_name", staging.catalog},
          {"schema_name", staging.schema},
          {"id", staging.table_id},
          {"staging_location", staging.location}};
}

}  // namespace deltacommit::service::unity
