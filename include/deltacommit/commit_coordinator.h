// Coordinated tables (docs/protocols/coordinated.md; Delta 4.x "coordinated
// commits"): a table whose metadata names a commit coordinator in
// delta.coordinatedCommits.commitCoordinator-preview has its commits
// ratified by that coordinator. A writer that puts `<v>.json` itself would
// bypass it, and a reader that only lists `_delta_log` misses ratified but
// unpublished commits; so who may write such a table is decided here.
//
// The rules, for a commit that reads metadata `before` (none when it creates
// the table) and leaves metadata `after`, written by a log store whose
// coordinator is `writer` ("" for the filesystem modes):
//   - before names coordinator C: only writers through C; `after` must still
//     name C (changing or removing the coordinator is not supported).
//   - before names none, after names C: creating the table (commit 0) or
//     converting it. Commit 0 goes through the filesystem path in every mode,
//     so a filesystem writer or C's own writer may create; a conversion
//     commit must be a filesystem write (only put-if-absent on `<v>.json`
//     keeps it exclusive before the coordinator knows the table).
//   - neither names one: filesystem writers only; a coordinated writer would
//     let filesystem writers commit around its coordinator.
// A table naming a coordinator must also support the coordinatedCommits-
// preview writer feature and have in-commit timestamps enabled (Delta
// requires both), and its ...Conf-preview properties must be JSON objects.
//
// Error codes: FailedPrecondition when the table and the writer do not match
// (the message says which --log-store to use); InvalidArgument for a
// malformed coordinated table (missing feature, timestamps off, conf not a
// JSON object) or a coordinator change.
//
// Thread-safety: free functions on values; all thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

inline constexpr std::string_view kCommitCoordinatorProperty =
    "delta.coordinatedCommits.commitCoordinator-preview";
inline constexpr std::string_view kCommitCoordinatorConfProperty =
    "delta.coordinatedCommits.commitCoordinatorConf-preview";
inline constexpr std::string_view kCoordinatedTableConfProperty =
    "delta.coordinatedCommits.tableConf-preview";
inline constexpr std::string_view kCoordinatedCommitsFeature = "coordinatedCommits-preview";
// The name under which tables record the commit service as their coordinator.
inline constexpr std::string_view kDeltacommitCoordinator = "deltacommit";

// The coordinator `m` names, "" when none.
std::string CommitCoordinatorOf(const Metadata& m);

// See the rules above. `before` is null when the commit creates the table.
Status CheckCommitCoordinator(const Metadata* before, const Protocol& protocol,
                              const Metadata& after, std::string_view writer);

// Catalog-managed tables (PROTOCOL.md "Catalog-managed tables"): a table
// whose protocol has catalogManaged (or catalogOwned-preview) has its
// commits ratified by the catalog that manages it, so only a writer through
// that catalog (`catalog`, LogStore::ManagingCatalog) may commit to it, and
// such a writer commits only to catalog-managed tables. The feature must
// come with the table: making an existing table catalog-managed is not
// supported. Catalog-managed tables need in-commit timestamps.
// `before` is null when the commit creates the table.
// FailedPrecondition when the table and the writer do not match (the
// message says how to open the table); InvalidArgument for a conversion or
// missing in-commit timestamps.
Status CheckManagingCatalog(const Protocol* before, const Protocol& protocol,
                            const Metadata& metadata, std::string_view catalog);

// True when `p` has catalogManaged or catalogOwned-preview.
bool IsCatalogManaged(const Protocol& p);

// Makes a new table's metadata name `coordinator` with configuration
// `coordinator_conf` (a JSON object) and enable in-commit timestamps, for the
// properties `m` does not set already (a conflicting value the user gave is
// then refused by CheckCommitCoordinator, not overwritten).
void AddCommitCoordinatorProperties(std::string_view coordinator,
                                    std::string_view coordinator_conf, Metadata* m);

}  // namespace deltacommit
