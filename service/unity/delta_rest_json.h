// The Delta REST API's (/delta/v1, api/delta.yaml) values, read from
// requests and written into answers: the protocol (DeltaProtocol), domain
// metadata (DeltaDomainMetadataUpdates), commits (DeltaCommit), a table
// (DeltaLoadTableResponse) and a staging table (DeltaStagingTableResponse).
// Field names are kebab-case, as the spec spells them.
//
// The catalog keeps a table's protocol and domain metadata as the JSON the
// API carries (TableEntry::protocol_json, domain_metadata_json), checked on
// the way in; a loaded table's `properties` carry what the spec derives
// from them (delta.minReaderVersion, delta.feature.*, ...), which a client
// never sends back (IsDerivedProperty).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"
#include "service/unity/uc_committer.h"

namespace deltacommit::service::unity {

// A DeltaProtocol (`where` names it in messages): min-reader-version 1-3,
// min-writer-version 1-7, reader-features only with reader version 3 and
// writer-features only with writer version 7, each a list of distinct
// feature names. The protocol as stored (features sorted).
StatusOr<nlohmann::ordered_json> ParseDeltaProtocol(const nlohmann::json& protocol,
                                                    std::string_view where);

// DeltaDomainMetadataUpdates: `delta.clustering` ({"clusteringColumns":
// [[name, ...], ...]}) and `delta.rowTracking` ({"rowIdHighWaterMark": n
// >= -1}); any other domain is refused. The object as stored.
StatusOr<nlohmann::ordered_json> ParseDeltaDomainMetadata(const nlohmann::json& updates,
                                                          std::string_view where);

// A DeltaCommit, read as ParseCommitInfo reads the Delta API's spelling.
StatusOr<UcCommitInfo> ParseDeltaCommit(const nlohmann::json& commit, std::string_view where);
nlohmann::ordered_json DeltaCommitJson(const UcCommitInfo& commit);

// What a catalog-managed table must be created with, as the staging table's
// answer says: reader 3 / writer 7 with catalogManaged, deletionVectors,
// v2Checkpoint, vacuumProtocolCheck (and inCommitTimestamp for writers),
// and the properties those need plus the table's id.
nlohmann::ordered_json RequiredManagedProtocol();
std::vector<std::pair<std::string, std::string>> RequiredManagedProperties(
    const std::string& table_id);
// kInvalidArgument naming the first feature or property missing.
Status CheckManagedTable(const nlohmann::ordered_json& protocol, const PropertyMap& properties,
                         const std::string& table_id);

// The properties a loaded table's answer derives from its protocol,
// domain metadata and last commit: clients must not set or remove them.
bool IsDerivedProperty(std::string_view key);

// "etag-<updated_at_ms>": changes with every change of the catalog's entry.
std::string DeltaEtag(const TableEntry& table);

// DeltaLoadTableResponse: `metadata`, and for a managed table its
// unpublished `commits` (newest first) and `latest-table-version`.
// kDataLoss when the stored schema or protocol does not parse.
StatusOr<nlohmann::ordered_json> DeltaLoadTableResponse(const TableEntry& table,
                                                        const UcPendingCommits* pending);

// DeltaStagingTableResponse, `credentials` the DeltaStorageCredential list.
nlohmann::ordered_json DeltaStagingTableResponse(const StagingTableEntry& staging,
                                                 nlohmann::ordered_json credentials);

}  // namespace deltacommit::service::unity
