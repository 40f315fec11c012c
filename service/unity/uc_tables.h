// UcTables: the rules of the catalog's tables that both Unity Catalog APIs
// follow (UC REST 2.1, uc_rest_api.h; the Delta REST API, delta_rest_api.h),
// written once: where a managed table may go, how it is staged and then
// created, and which location a token may name. Each API reads its own
// request into these calls and writes its own answer; errors come back as
// UcError, which carries both APIs' shapes.
//
// Thread-safety: safe for concurrent use; every dependency is.
#pragma once

#include <string>
#include <string_view>

#include "service/unity/uc_api_deps.h"

namespace deltacommit::service::unity {

// The table property that names a managed table's id (UC and Delta agree).
inline constexpr char kTableIdProperty[] = "io.unitycatalog.tableId";

class UcTables {
 public:
  explicit UcTables(UnityApiDeps deps) : deps_(deps) {}

  // The storage location `uri` normalised, if this service serves it (a
  // [local] root, a configured bucket) and `token` may commit there;
  // kInvalidArgument / kPermissionDenied naming `field` otherwise.
  StatusOr<TableUri> ServedLocation(const TokenConfig& token, std::string_view field,
                                    std::string_view uri) const;

  // A new staging table for `name` (checked names), once `token` may commit
  // to it: an id, and a location under the schema's (else the catalog's)
  // storage root, `<root>/tables/<id>`. 404 for a missing catalog or
  // schema, 400 when neither has a storage root, a name already a table's
  // is TABLE_ALREADY_EXISTS.
  UcOr<StagingTableEntry> Stage(const TokenConfig& token, const TableName& name) const;

  // Registers `table` (name, type, storage_location as sent, columns,
  // properties and the rest filled in by the API), once `token` may commit
  // to its name and location. A MANAGED table must be at a staging location
  // this token staged under the same name, with kTableIdProperty set to the
  // staging table's id, which becomes its id; an EXTERNAL one may be at any
  // served location that is no staging table's. The entry as registered.
  UcOr<TableEntry> Register(const TokenConfig& token, TableEntry table) const;

  // The most precise "not found" for a table that is not there: its catalog,
  // its schema, or the table itself.
  UcError TableNotFound(const TableName& name) const;

 private:
  // Where the managed tables of `catalog`.`schema` go: the schema's
  // storage root, else the catalog's; kInvalidArgument when neither has
  // one, kNotFound naming which is missing.
  StatusOr<std::string> ManagedRoot(const std::string& catalog, const std::string& schema) const;

  const UnityApiDeps deps_;
};

}  // namespace deltacommit::service::unity
