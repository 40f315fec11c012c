// The entries of the commit service's catalog (CatalogStore): what a Unity
// Catalog client names and the service keeps of each. Field names follow
// Unity Catalog's TableInfo / CatalogInfo / SchemaInfo where one exists.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"
#include "service/config/catalog_names.h"

namespace deltacommit::service {

using PropertyMap = std::map<std::string, std::string, std::less<>>;

// What a catalog and a schema both hold: they are named containers of the
// names below them.
struct ContainerEntry {
  std::string name;
  std::string id;  // a UUID the service chose
  std::string comment;
  PropertyMap properties;
  // Where managed tables below it live (a normalised table URI under a
  // served root or bucket). A schema's empty root means its catalog's.
  std::string storage_root;
  std::string owner;  // the [[token]] name that created it
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  friend bool operator==(const ContainerEntry&, const ContainerEntry&) = default;
};

struct CatalogEntry : ContainerEntry {
  friend bool operator==(const CatalogEntry&, const CatalogEntry&) = default;
};

struct SchemaEntry : ContainerEntry {
  std::string catalog;
  friend bool operator==(const SchemaEntry&, const SchemaEntry&) = default;
};

struct TableName {
  std::string catalog;
  std::string schema;
  std::string name;
  // "catalog.schema.name"
  std::string FullName() const;
  friend bool operator==(const TableName&, const TableName&) = default;
};

enum class TableType { kManaged, kExternal };
std::string_view TableTypeName(TableType type);  // "MANAGED", "EXTERNAL"
StatusOr<TableType> ParseTableType(std::string_view name);

struct TableEntry {
  TableName name;
  std::string table_id;  // UUID; for a managed table, its staging table's
  TableType type = TableType::kManaged;
  std::string data_source_format = "DELTA";
  std::string storage_location;  // normalised table URI, unique
  std::string comment;
  // The Delta schema as the table's metaData.schemaString holds it: a JSON
  // struct type ({"type":"struct","fields":[...]}).
  std::string columns_json = R"({"type":"struct","fields":[]})";
  std::vector<std::string> partition_columns;
  // The client's table properties, without the ones the APIs derive
  // (delta.feature.*, delta.minReaderVersion, ...: see unity_properties.h).
  PropertyMap properties;
  // The Delta protocol as JSON ({"min-reader-version":3,...}) and the
  // domain metadata the Delta API carries (a JSON object by domain), as
  // received; empty when none was sent.
  std::string protocol_json;
  std::string domain_metadata_json;
  std::string owner;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;  // changes with the catalog metadata only
  int64_t last_commit_timestamp_ms = 0;
  // The commit version whose metadata (Unity Catalog's commit `metadata`)
  // the entry holds; -1: none since the table was created. A commit's
  // metadata is applied only over an older one's.
  int64_t metadata_version = -1;
  friend bool operator==(const TableEntry&, const TableEntry&) = default;
};

struct StagingTableEntry {
  std::string table_id;
  std::string catalog;
  std::string schema;
  std::string name;
  std::string location;  // normalised table URI, unique
  std::string owner;     // only its creator may finalise it
  int64_t created_at_ms = 0;
  bool finalized = false;
  friend bool operator==(const StagingTableEntry&, const StagingTableEntry&) = default;
};

// The checks every CatalogStore write makes, kInvalidArgument naming the
// field: names, ids, a non-empty location, times >= 0.
Status ValidateEntry(const CatalogEntry& entry);
Status ValidateEntry(const SchemaEntry& entry);
Status ValidateEntry(const TableEntry& entry);
Status ValidateEntry(const StagingTableEntry& entry);

// The errors every CatalogStore answers for a name that is taken or absent:
// `what` is the kind of entry ("catalog", "schema", "table").
Status EntryExistsError(std::string_view what, std::string_view name);
Status EntryMissingError(std::string_view what, std::string_view name);
// A staging table that a table was already created from.
Status StagingFinalizedError(std::string_view staging_id);

}  // namespace deltacommit::service
