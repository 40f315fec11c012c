// How a CatalogStore keeps an entry: one JSON object per entry, written and
// read here for every implementation (SQLite keeps it in a TEXT column,
// DynamoDB in a string attribute), so the stores differ only in their keys.
//
// Decoding is strict about what it needs: a missing or mistyped field is
// kDataLoss naming `where` (the store and key) and the field, since the
// store holds only what EncodeEntry wrote. Unknown fields are ignored, so a
// newer build may add some.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"

namespace deltacommit::service {

std::string EncodeEntry(const CatalogEntry& entry);
std::string EncodeEntry(const SchemaEntry& entry);
std::string EncodeEntry(const TableEntry& entry);
std::string EncodeEntry(const StagingTableEntry& entry);

StatusOr<CatalogEntry> DecodeCatalogEntry(std::string_view json, std::string_view where);
StatusOr<SchemaEntry> DecodeSchemaEntry(std::string_view json, std::string_view where);
StatusOr<TableEntry> DecodeTableEntry(std::string_view json, std::string_view where);
StatusOr<StagingTableEntry> DecodeStagingTableEntry(std::string_view json, std::string_view where);

}  // namespace deltacommit::service
