// The names a Unity Catalog request may use (catalogs, schemas, tables)
// and the token rule that covers them, checked before a name reaches a key,
// a path or a message: the catalog's counterpart of table_uri.h.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "deltacommit/status.h"

namespace deltacommit::service {

// OK when `name` may name a catalog, schema or table: 1 to 255 bytes of
// ASCII letters, digits, '_' and '-'. kInvalidArgument naming `what`
// ("catalog", "schema", "table") and the first character that is not
// allowed, so a name with '.', '/', '%', a space or a control character
// never reaches a path or a key.
Status ValidateCatalogName(std::string_view what, std::string_view name);

// OK when `text` is a UUID in its canonical lower-case 8-4-4-4-12 form.
Status ValidateUuid(std::string_view what, std::string_view text);

// True when a token's `catalogs` entry `prefix` covers `full_name`
// ("catalog", "catalog.schema" or "catalog.schema.table") at a '.'
// boundary: "main" covers main, main.sales and main.sales.orders, not
// mainframe; "*" covers every name.
bool CatalogPrefixCovers(std::string_view prefix, std::string_view full_name);

// OK when `prefix` may be a token's `catalogs` entry: "*", or one to three
// names (ValidateCatalogName) joined by '.'.
Status ValidateCatalogPrefix(std::string_view prefix);

}  // namespace deltacommit::service
