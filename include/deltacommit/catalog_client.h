// CatalogClient: the port to the catalog that manages a catalog-managed
// table (PROTOCOL.md "Catalog-managed tables", docs/protocols/
// catalog-managed.md). The catalog is the source of truth for commits: it
// resolves the table's name to its id and storage location, vends storage
// credentials for it, ratifies a staged commit file as version v, and lists
// the ratified commits it still holds. The catalog log store
// (src/logstore/catalog_log_store.h) is written against this port; the
// implementation speaks Unity Catalog's Delta REST API
// (src/adapters/unity/, the API Delta Spark and Kernel call).
//
// Codes (messages name the catalog, the table and the version):
//   kNotFound           no table of that name (or id), or it was dropped.
//   kPermissionDenied   the token may not do this to the table (403).
//   kUnauthenticated    no or unknown token (401).
//   kInvalidArgument    the catalog refused the request as malformed (400).
//   kUnavailable        the catalog could not be reached, or answered that it
//                       is busy (429, 503): nothing was done.
//   kUnknownOutcome     the request may have been applied (reply lost, 500
//                       after a commit was sent); resending the same commit
//                       is safe: the catalog answers a resend as a replay.
// and for Commit:
//   OK                  ratified as `version` (also a resend of the same
//                       staged file whose first reply was lost).
//   kAlreadyExists      another commit is `version` (409).
//   kFailedPrecondition `version` is not the catalog's latest + 1, or the
//                       table's id changed (it was dropped and re-created).
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/status.h"

namespace deltacommit {

// A table's name in its catalog: catalog.schema.table.
struct CatalogTableName {
  std::string catalog;
  std::string schema;
  std::string table;
  std::string FullName() const { return catalog + "." + schema + "." + table; }
};

// "main.sales.orders" (or "uc://main.sales.orders"). kInvalidArgument for
// anything but three non-empty parts without '/', '%' or control
// characters.
StatusOr<CatalogTableName> ParseCatalogTableName(std::string_view text);

// What the catalog says of a table when it resolves its name.
struct CatalogTable {
  std::string table_id;  // the catalog's UUID of the table
  // The storage location as the catalog gives it: "s3://bucket/prefix" or
  // "file:///path" (Hadoop's "file:/path" is normalised to file:///).
  std::string location;
  bool managed = false;  // MANAGED: the catalog ratifies its commits
  // Ratified commits the catalog still holds (ascending) and its latest
  // ratified version; PendingCommit::staged_file is relative to the table
  // root ("_delta_log/_staged_commits/<v>.<uuid>.json").
  PendingCommits commits;
};

// A staged commit offered as `version` (PROTOCOL.md "Staged commit").
struct CatalogCommit {
  Version version = -1;
  std::string staged_file;  // relative to the table root
  int64_t size = 0;         // bytes of the staged file
  int64_t modification_ms = 0;
  int64_t timestamp_ms = 0;  // the commit's inCommitTimestamp
};

// Temporary storage credentials the catalog vends for a table.
struct VendedCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::optional<int64_t> expiration_ms;  // epoch ms; unset: not said
};

enum class CatalogAccess { kRead, kReadWrite };

// A table the catalog has allocated but not yet registered (PROTOCOL.md
// "Creating and Dropping Catalog-managed Tables", phase 1): where to write
// version 0, and what the catalog requires of it.
struct CatalogStagingTable {
  std::string table_id;
  std::string location;           // normalised as CatalogTable::location
  VendedCredentials credentials;  // for the location; empty for a local one
  // Features the table's protocol must have, and properties its
  // configuration must hold (io.unitycatalog.tableId among them).
  std::vector<std::string> required_reader_features;
  std::vector<std::string> required_writer_features;
  std::map<std::string, std::string> required_properties;
};

// The registration of a staged table whose version 0 exists (phase 3).
struct CatalogNewTable {
  std::string location;
  Protocol protocol;
  Metadata metadata;                // version 0's
  int64_t commit_timestamp_ms = 0;  // version 0's in-commit timestamp
};

class CatalogClient {
 public:
  virtual ~CatalogClient() = default;

  // "catalog http://host:8642", for messages.
  virtual std::string Describe() const = 0;

  virtual StatusOr<CatalogTable> LoadTable(const CatalogTableName& name) = 0;

  // Credentials for the table at `location` (as LoadTable gave it). A
  // local location needs none: the answer is then empty credentials.
  virtual StatusOr<VendedCredentials> TableCredentials(const CatalogTableName& name,
                                                       std::string_view location,
                                                       CatalogAccess access) = 0;

  // Allocates a staging table for `name` (which must not exist yet).
  virtual StatusOr<CatalogStagingTable> CreateStagingTable(const CatalogTableName& name) = 0;
  // Credentials for a staging table's location, until it is registered.
  virtual StatusOr<VendedCredentials> StagingTableCredentials(const std::string& table_id) = 0;
  // Registers the staged table at `table.location` as `name`.
  virtual Status CreateTable(const CatalogTableName& name, const CatalogNewTable& table) = 0;

  // Ratifies `commit` for the table whose id is `table_id`. When
  // `backfilled` is set, also tells the catalog that every version up to it
  // is published as <v>.json (so it may forget them).
  virtual Status Commit(const CatalogTableName& name, const std::string& table_id,
                        const CatalogCommit& commit, std::optional<Version> backfilled) = 0;
};

}  // namespace deltacommit
