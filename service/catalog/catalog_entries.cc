#include "service/catalog/catalog_entries.h"

#include <string>

#include "deltacommit/core/message_quote.h"

namespace deltacommit::service {
namespace {

Status NonNegative(std::string_view what, int64_t value) {
  if (value >= 0) return OkStatus();
  return InvalidArgumentError(std::string(what) + " is " + std::to_string(value) + ", below 0");
}

Status Location(std::string_view what, const std::string& location) {
  if (!location.empty() && location.back() != '/') return OkStatus();
  return InvalidArgumentError(std::string(what) + " " + QuoteForMessage(location) +
                              " is not a normalised table URI");
}

}  // namespace

std::string TableName::FullName() const { return catalog + "." + schema + "." + name; }

std::string_view TableTypeName(TableType type) {
  return type == TableType::kManaged ? "MANAGED" : "EXTERNAL";
}

StatusOr<TableType> ParseTableType(std::string_view name) {
  if (name == "MANAGED") return TableType::kManaged;
  if (name == "EXTERNAL") return TableType::kExternal;
  return InvalidArgumentError("table type " + QuoteForMessage(name) +
                              " is not one of MANAGED, EXTERNAL");
}

namespace {

// `kind`: "catalog" or "schema", for the messages.
Status ValidateContainer(std::string_view kind, const ContainerEntry& entry) {
  const std::string what(kind);
  DC_RETURN_IF_ERROR(ValidateCatalogName(kind, entry.name));
  DC_RETURN_IF_ERROR(ValidateUuid(what + " id", entry.id));
  if (!entry.storage_root.empty()) {
    DC_RETURN_IF_ERROR(Location(what + " storage root", entry.storage_root));
  }
  DC_RETURN_IF_ERROR(NonNegative(what + " created_at", entry.created_at_ms));
  return NonNegative(what + " updated_at", entry.updated_at_ms);
}

}  // namespace

Status ValidateEntry(const CatalogEntry& entry) { return ValidateContainer("catalog", entry); }

Status ValidateEntry(const SchemaEntry& entry) {
  DC_RETURN_IF_ERROR(ValidateCatalogName("catalog", entry.catalog));
  return ValidateContainer("schema", entry);
}

Status ValidateEntry(const TableEntry& entry) {
  DC_RETURN_IF_ERROR(ValidateCatalogName("catalog", entry.name.catalog));
  DC_RETURN_IF_ERROR(ValidateCatalogName("schema", entry.name.schema));
  DC_RETURN_IF_ERROR(ValidateCatalogName("table", entry.name.name));
  DC_RETURN_IF_ERROR(ValidateUuid("table id", entry.table_id));
  DC_RETURN_IF_ERROR(Location("table storage location", entry.storage_location));
  if (entry.data_source_format.empty()) {
    return InvalidArgumentError("table data source format is empty");
  }
  DC_RETURN_IF_ERROR(NonNegative("table created_at", entry.created_at_ms));
  DC_RETURN_IF_ERROR(NonNegative("table updated_at", entry.updated_at_ms));
  DC_RETURN_IF_ERROR(NonNegative("table last commit timestamp", entry.last_commit_timestamp_ms));
  if (entry.metadata_version < -1) {
    return InvalidArgumentError("table metadata version is " +
                                std::to_string(entry.metadata_version) + ", below -1");
  }
  return OkStatus();
}

Status ValidateEntry(const StagingTableEntry& entry) {
  DC_RETURN_IF_ERROR(ValidateCatalogName("catalog", entry.catalog));
  DC_RETURN_IF_ERROR(ValidateCatalogName("schema", entry.schema));
  DC_RETURN_IF_ERROR(ValidateCatalogName("table", entry.name));
  DC_RETURN_IF_ERROR(ValidateUuid("staging table id", entry.table_id));
  DC_RETURN_IF_ERROR(Location("staging table location", entry.location));
  return NonNegative("staging table created_at", entry.created_at_ms);
}

Status EntryExistsError(std::string_view what, std::string_view name) {
  return AlreadyExistsError(std::string(what) + " " + QuoteForMessage(name) + " already exists");
}

Status EntryMissingError(std::string_view what, std::string_view name) {
  return NotFoundError(std::string(what) + " " + QuoteForMessage(name) + " does not exist");
}

Status StagingFinalizedError(std::string_view staging_id) {
  return FailedPreconditionError("staging table " + QuoteForMessage(staging_id) +
                                 " was made a table already");
}

}  // namespace deltacommit::service
