// The Delta log actions (PROTOCOL.md "Actions"), one struct per action type,
// with every field the protocol defines.
//
// Each struct keeps the fields it does not know in `unknown_fields` (raw JSON
// text keyed by field name, in order of appearance) so a read -> write round
// trip never drops what a newer writer put there. Optional fields are
// std::optional: absent and present-but-default are different on the wire.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit {

using Version = int64_t;

// Field name -> raw JSON text of its value, in order of appearance.
using UnknownFields = std::vector<std::pair<std::string, std::string>>;

// partitionValues / tags: a value may be JSON null.
using NullableStringMap = std::map<std::string, std::optional<std::string>>;
using StringMap = std::map<std::string, std::string>;

struct Format {
  std::string provider = "parquet";
  StringMap options;
  friend bool operator==(const Format&, const Format&) = default;
};

struct DeletionVectorDescriptor {
  std::string storage_type;  // "u" (relative uuid path), "i" (inline), "p" (absolute path)
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;
  UnknownFields unknown_fields;

  // storageType + pathOrInlineDv [+ "@" + offset]: the protocol's unique id.
  std::string UniqueId() const;
  friend bool operator==(const DeletionVectorDescriptor&,
                         const DeletionVectorDescriptor&) = default;
};

struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::optional<std::vector<std::string>> reader_features;  // reader v3 only
  std::optional<std::vector<std::string>> writer_features;  // writer v7 only
  UnknownFields unknown_fields;
  friend bool operator==(const Protocol&, const Protocol&) = default;
};

struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  Format format;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::optional<int64_t> created_time;
  StringMap configuration;
  UnknownFields unknown_fields;
  friend bool operator==(const Metadata&, const Metadata&) = default;
};

struct AddFile {
  std::string path;  // URI-encoded, relative to the table root or absolute
  NullableStringMap partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;  // JSON text, kept verbatim
  std::optional<NullableStringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
  UnknownFields unknown_fields;
  friend bool operator==(const AddFile&, const AddFile&) = default;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<NullableStringMap> partition_values;
  std::optional<int64_t> size;
  std::optional<std::string> stats;
  std::optional<NullableStringMap> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  UnknownFields unknown_fields;
  friend bool operator==(const RemoveFile&, const RemoveFile&) = default;
};

struct AddCdcFile {
  std::string path;
  NullableStringMap partition_values;
  int64_t size = 0;
  bool data_change = false;
  std::optional<NullableStringMap> tags;
  UnknownFields unknown_fields;
  friend bool operator==(const AddCdcFile&, const AddCdcFile&) = default;
};

// The `txn` action: the latest version an application committed.
struct SetTransaction {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
  UnknownFields unknown_fields;
  friend bool operator==(const SetTransaction&, const SetTransaction&) = default;
};

// commitInfo is free-form in the protocol; these are the fields Delta writers
// use and we read. Everything else lands in unknown_fields.
struct CommitInfo {
  std::optional<int64_t> in_commit_timestamp;  // first field when present
  std::optional<int64_t> timestamp;
  std::optional<std::string> operation;
  // Values are raw JSON text: writers put strings, numbers and objects here.
  std::optional<std::vector<std::pair<std::string, std::string>>> operation_parameters;
  std::optional<int64_t> read_version;
  std::optional<std::string> isolation_level;
  std::optional<bool> is_blind_append;
  std::optional<std::string> txn_id;
  std::optional<std::string> engine_info;
  UnknownFields unknown_fields;
  friend bool operator==(const CommitInfo&, const CommitInfo&) = default;
};

struct DomainMetadata {
  std::string domain;
  std::string configuration;  // JSON text as written
  bool removed = false;
  UnknownFields unknown_fields;
  friend bool operator==(const DomainMetadata&, const DomainMetadata&) = default;
};

struct CheckpointMetadata {
  int64_t version = 0;
  std::optional<StringMap> tags;
  UnknownFields unknown_fields;
  friend bool operator==(const CheckpointMetadata&, const CheckpointMetadata&) = default;
};

struct Sidecar {
  std::string path;  // relative to _delta_log/_sidecars, or absolute
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
  std::optional<StringMap> tags;
  UnknownFields unknown_fields;
  friend bool operator==(const Sidecar&, const Sidecar&) = default;
};

// An action type this build does not know (a newer protocol). Kept verbatim so
// a reader can name it; writers refuse to emit one they did not read.
struct UnknownAction {
  std::string type;      // the top-level key, e.g. "futureThing"
  std::string raw_json;  // the whole action's value
  friend bool operator==(const UnknownAction&, const UnknownAction&) = default;
};

using Action = std::variant<Protocol, Metadata, AddFile, RemoveFile, AddCdcFile,
                            SetTransaction, CommitInfo, DomainMetadata,
                            CheckpointMetadata, Sidecar, UnknownAction>;

// The protocol's key for an action: "protocol", "metaData", "add", "remove",
// "cdc", "txn", "commitInfo", "domainMetadata", "checkpointMetadata",
// "sidecar", or UnknownAction::type.
std::string_view ActionType(const Action& action);

}  // namespace deltacommit
