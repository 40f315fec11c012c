// The Delta REST API's update-table request (DeltaUpdateTableRequest),
// read and checked as the spec's shape rules say before anything is
// looked up: requirements and updates each non-empty, at most one of each
// type, assert-table-uuid always present, set-/remove-properties never on
// the same key nor set-/remove-domain-metadata on the same domain, no
// derived property set or removed, and the table id property kept.
//
// DeltaTableUpdate::ApplyTo makes the metadata updates on a catalog entry;
// add-commit and set-latest-backfilled-version are the commit logic's
// (UcCommitter).
//
// Thread-safety: values and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/status.h"
#include "service/catalog/catalog_entries.h"
#include "service/unity/uc_committer.h"

namespace deltacommit::service::unity {

struct DeltaTableUpdate {
  // Requirements.
  std::string table_uuid;           // assert-table-uuid
  std::optional<std::string> etag;  // assert-etag
  // Commits.
  std::optional<UcCommitInfo> commit;               // add-commit
  std::optional<int64_t> latest_published_version;  // set-latest-backfilled-version
  // Metadata.
  std::optional<std::string> schema_string;                               // set-columns
  std::optional<std::vector<std::string>> partition_columns;              // set-partition-columns
  std::optional<std::string> comment;                                     // set-table-comment
  PropertyMap set_properties;                                             // set-properties
  std::vector<std::string> remove_properties;                             // remove-properties
  std::optional<nlohmann::ordered_json> protocol;                         // set-protocol
  nlohmann::ordered_json set_domains = nlohmann::ordered_json::object();  // set-domain-metadata
  std::vector<std::string> remove_domains;                                // remove-domain-metadata
  // update-metadata-snapshot-version (external tables only).
  std::optional<int64_t> snapshot_version;
  std::optional<int64_t> snapshot_timestamp_ms;

  // True when an update changes the catalog's entry.
  bool ChangesMetadata() const;

  // Makes the metadata updates on `table`: kInvalidArgument when a
  // partition column is not a top-level column of the (new) schema,
  // compared without case as the spec says.
  Status ApplyTo(TableEntry& table) const;
};

// kInvalidArgument naming the requirement or update (by its index) and
// field that is wrong.
StatusOr<DeltaTableUpdate> ParseDeltaTableUpdate(const nlohmann::json& body);

}  // namespace deltacommit::service::unity
