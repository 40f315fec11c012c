// The catalog's entries as Unity Catalog REST 2.1 answers them
// (api/all.yaml: CatalogInfo, SchemaInfo, TableInfo, StagingTableInfo).
// Field names and value forms follow that spec; times are epoch ms.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"

namespace deltacommit::service::unity {

nlohmann::ordered_json CatalogInfo(const CatalogEntry& catalog);
nlohmann::ordered_json SchemaInfo(const SchemaEntry& schema);
// kDataLoss when the stored schema does not parse (uc_types.h).
StatusOr<nlohmann::ordered_json> TableInfo(const TableEntry& table);
nlohmann::ordered_json StagingTableInfo(const StagingTableEntry& staging);

// The compact JSON text of `json`, with invalid UTF-8 replaced (request
// parsing refuses it, so only a damaged store could hold it).
std::string DumpJson(const nlohmann::ordered_json& json);

}  // namespace deltacommit::service::unity
