// Tables opened by their catalog name, uc://catalog.schema.table (the
// `unity-catalog` mode, docs/protocols/catalog-managed.md): the catalog
// (--catalog-url / DELTACOMMIT_CATALOG_URL, --catalog-token /
// DELTACOMMIT_CATALOG_TOKEN; Unity Catalog's Delta REST API, which
// `deltacommit serve` answers) resolves the name to the table's id and
// location and vends credentials for it; the catalog log store commits
// through it. The S3 endpoint and region come from the options and the
// environment as for s3:// tables: the catalog vends credentials, never
// where to send them.
#pragma once

#include <functional>

#include <string_view>

#include "deltacommit/status.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit {

// Asks the catalog for the table (load table) and sets every adapter: the
// store at its location (local or S3 with vended credentials, asked on
// first use and again before they expire: READ_WRITE, else READ when the
// token may only read), the catalog client and the log store.
// kInvalidArgument for a malformed name, a missing URL or token, or options
// that do not fit (another --log-store, --service-*); the catalog's errors
// (kNotFound for an unknown table, ...) name the catalog and the table;
// kFailedPrecondition for a table the catalog does not manage (EXTERNAL:
// open it by its location). `warn` is told of a commit that stands but
// could not be published (CatalogLogStore::OnWarning).
StatusOr<std::unique_ptr<TableAdapters>> OpenCatalogTable(
    std::string_view uri, const TableOptions& options,
    std::function<void(const std::string&)> warn = nullptr);

// Table::Create of a uc:// table the catalog does not know yet
// (PROTOCOL.md "Creating and Dropping Catalog-managed Tables"; the Delta
// REST API's order): StageCatalogTable asks the catalog for a staging
// table, points open.store and open.log at its location (with the staging
// table's credentials) and adds what the catalog requires to `metadata`
// (its properties; its features as delta.feature.X=supported). The caller
// then commits version 0 there, and RegisterCatalogTable registers the
// table under its name. kAlreadyExists when the name is a table already;
// kInvalidArgument when `metadata` sets a required property otherwise.
// REQUIRES: no other call uses `open` meanwhile.
StatusOr<CatalogStagingTable> StageCatalogTable(TableAdapters& open, Metadata& metadata);
Status RegisterCatalogTable(TableAdapters& open, const CatalogStagingTable& staging,
                            const Protocol& protocol, const Metadata& metadata,
                            int64_t commit_timestamp_ms);

// kInvalidArgument when --catalog-url or --catalog-token is given for a
// table that is not opened by its catalog name.
Status CheckNoCatalogOptions(const TableOptions& options);

}  // namespace deltacommit
