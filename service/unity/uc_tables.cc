#include "service/unity/uc_tables.h"

#include <optional>
#include <utility>

#include "deltacommit/log_path.h"
#include "service/config/catalog_names.h"
#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"

namespace deltacommit::service::unity {

StatusOr<TableUri> UcTables::ServedLocation(const TokenConfig& token, std::string_view field,
                                            std::string_view uri) const {
  StatusOr<TableUri> location = NormalizeTableUri(uri);
  if (!location.ok()) {
    return InvalidArgumentError("field \"" + std::string(field) +
                                "\": " + location.status().message());
  }
  if (location->is_local()) {
    DC_RETURN_IF_ERROR(CheckLocalTable(deps_.config->local, *location));
  } else {
    DC_RETURN_IF_ERROR(ResolveS3Endpoint(deps_.config->s3, location->bucket, "").status());
  }
  DC_RETURN_IF_ERROR(Authorize(token, *location, Action::kCommit));
  return location;
}

StatusOr<std::string> UcTables::ManagedRoot(const std::string& catalog,
                                            const std::string& schema) const {
  DC_ASSIGN_OR_RETURN(std::optional<CatalogEntry> catalog_entry,
                      deps_.catalog->GetCatalog(catalog));
  if (!catalog_entry) return NotFoundError("Catalog not found: " + catalog);
  DC_ASSIGN_OR_RETURN(std::optional<SchemaEntry> schema_entry,
                      deps_.catalog->GetSchema(catalog, schema));
  if (!schema_entry) return NotFoundError("Schema not found: " + catalog + "." + schema);
  if (!schema_entry->storage_root.empty()) return schema_entry->storage_root;
  if (!catalog_entry->storage_root.empty()) return catalog_entry->storage_root;
  return InvalidArgumentError("neither schema " + catalog + "." + schema + " nor catalog " +
                              catalog +
                              " has a storage_root, so a managed table there has no place: "
                              "create the catalog or schema with a storage_root");
}

UcError UcTables::TableNotFound(const TableName& name) const {
  StatusOr<std::optional<SchemaEntry>> schema = deps_.catalog->GetSchema(name.catalog, name.schema);
  if (!schema.ok()) return UcErrorFor(schema.status());
  if (!*schema) {
    StatusOr<std::optional<CatalogEntry>> catalog = deps_.catalog->GetCatalog(name.catalog);
    if (catalog.ok() && !*catalog) {
      return UcErrorFor(NotFoundError("Catalog not found: " + name.catalog), UcObject::kCatalog);
    }
    return UcErrorFor(NotFoundError("Schema not found: " + name.catalog + "." + name.schema),
                      UcObject::kSchema);
  }
  return UcErrorFor(NotFoundError("Table not found: " + name.FullName()), UcObject::kTable);
}

UcOr<StagingTableEntry> UcTables::Stage(const TokenConfig& token, const TableName& name) const {
  if (Status allowed = AuthorizeName(token, name.FullName(), Action::kCommit); !allowed.ok()) {
    return UcErrorFor(allowed);
  }
  StatusOr<std::string> root = ManagedRoot(name.catalog, name.schema);
  if (root.status().IsNotFound()) return TableNotFound(name);
  if (!root.ok()) return UcErrorFor(root.status());
  StatusOr<std::optional<TableEntry>> existing = deps_.catalog->GetTable(name);
  if (!existing.ok()) return UcErrorFor(existing.status());
  if (*existing) {
    return UcErrorFor(AlreadyExistsError("Table already exists: " + name.FullName()),
                      UcObject::kTable);
  }
  StagingTableEntry staging;
  staging.table_id = NewUuid();
  StatusOr<TableUri> location =
      ServedLocation(token, "storage_root", *root + "/tables/" + staging.table_id);
  if (!location.ok()) return UcErrorFor(location.status());
  staging.catalog = name.catalog;
  staging.schema = name.schema;
  staging.name = name.name;
  staging.location = location->uri;
  staging.owner = token.name;
  staging.created_at_ms = deps_.clock->NowMillis();
  Status created = deps_.catalog->CreateStagingTable(staging);
  if (!created.ok()) return UcErrorFor(created, UcObject::kSchema);
  return staging;
}

UcOr<TableEntry> UcTables::Register(const TokenConfig& token, TableEntry table) const {
  if (Status allowed = AuthorizeName(token, table.name.FullName(), Action::kCommit);
      !allowed.ok()) {
    return UcErrorFor(allowed);
  }
  StatusOr<TableUri> location = ServedLocation(token, "storage_location", table.storage_location);
  if (!location.ok()) return UcErrorFor(location.status());
  table.storage_location = location->uri;
  table.owner = token.name;
  table.created_at_ms = table.updated_at_ms = deps_.clock->NowMillis();

  StatusOr<std::optional<StagingTableEntry>> staging =
      deps_.catalog->FindStagingTableByLocation(table.storage_location);
  if (!staging.ok()) return UcErrorFor(staging.status());
  std::optional<std::string> staging_id;
  if (table.type == TableType::kManaged) {
    if (!*staging) {
      return UcErrorFor(NotFoundError("Staging table not found: " + table.storage_location +
                                      " (create a managed table at the location a staging "
                                      "table was given)"),
                        UcObject::kTable);
    }
    const TableName staged_as{(*staging)->catalog, (*staging)->schema, (*staging)->name};
    if (!(staged_as == table.name)) {
      return UcErrorFor(InvalidArgumentError("the staging table at " + table.storage_location +
                                             " was staged as " + staged_as.FullName() + ", not " +
                                             table.name.FullName()));
    }
    if ((*staging)->owner != token.name) {
      return UcErrorFor(PermissionDeniedError("the staging table at " + table.storage_location +
                                              " was created by another token"));
    }
    auto id = table.properties.find(kTableIdProperty);
    if (id == table.properties.end() || id->second != (*staging)->table_id) {
      return UcErrorFor(InvalidArgumentError(std::string("property ") + kTableIdProperty +
                                             " must be " + (*staging)->table_id +
                                             ", the staging table's id"));
    }
    table.table_id = (*staging)->table_id;
    staging_id = table.table_id;
  } else {
    // A staging location is its managed table's, staged or not.
    if (*staging) {
      return UcErrorFor(
          AlreadyExistsError(table.storage_location + " is the location of staging table " +
                             (*staging)->table_id + " (" + (*staging)->catalog + "." +
                             (*staging)->schema + "." + (*staging)->name +
                             "): an external table cannot be made there"),
          UcObject::kTable);
    }
    table.table_id = NewUuid();
  }
  Status created = deps_.catalog->CreateTable(table, staging_id);
  if (created.IsNotFound()) return TableNotFound(table.name);
  if (!created.ok()) return UcErrorFor(created, UcObject::kTable);
  return table;
}

}  // namespace deltacommit::service::unity
