#include "service/unity/delta_rest_json.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/unity/uc_body.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_tables.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kClusteringDomain[] = "delta.clustering";
constexpr char kRowTrackingDomain[] = "delta.rowTracking";

Status Bad(std::string_view where, const std::string& problem) {
  return InvalidArgumentError("field \"" + std::string(where) + "\" " + problem);
}

StatusOr<Json> Features(const nlohmann::json& protocol, const char* key, std::string_view where) {
  const std::string path = std::string(where) + "." + key;
  Json features = Json::array();
  auto found = protocol.find(key);
  if (found == protocol.end() || found->is_null()) return features;
  if (!found->is_array()) return Bad(path, "must be a list of feature names");
  std::set<std::string, std::less<>> seen;
  for (const nlohmann::json& feature : *found) {
    if (!feature.is_string() || feature.get_ref<const std::string&>().empty()) {
      return Bad(path, "must be a list of feature names");
    }
    const std::string& name = feature.get_ref<const std::string&>();
    if (!std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
        })) {
      return Bad(path, "holds " + QuoteForMessage(name, 64) +
                           ", which is not a table feature name (letters, digits, '-')");
    }
    if (!seen.insert(name).second) return Bad(path, "names " + name + " twice");
    features.push_back(name);
  }
  return features;
}

StatusOr<int64_t> Version(const nlohmann::json& protocol, const char* key, std::string_view where,
                          int64_t highest) {
  const std::string path = std::string(where) + "." + key;
  auto found = protocol.find(key);
  if (found == protocol.end() || found->is_null()) return Bad(path, "is required");
  if (!found->is_number_integer() || found->get<int64_t>() < 1 || found->get<int64_t>() > highest) {
    return Bad(path, "must be a whole number from 1 to " + std::to_string(highest));
  }
  return found->get<int64_t>();
}

bool HasFeature(const Json& protocol, const char* list, std::string_view feature) {
  auto found = protocol.find(list);
  if (found == protocol.end()) return false;
  return std::any_of(found->begin(), found->end(),
                     [&](const Json& f) { return f.get_ref<const std::string&>() == feature; });
}

constexpr const char* kRequiredReaderFeatures[] = {"catalogManaged", "deletionVectors",
                                                   "v2Checkpoint", "vacuumProtocolCheck"};
constexpr const char* kRequiredWriterFeatures[] = {"catalogManaged", "deletionVectors",
                                                   "inCommitTimestamp", "v2Checkpoint",
                                                   "vacuumProtocolCheck"};

// The properties a table's answer derives, by key.
PropertyMap DerivedProperties(const TableEntry& table, const Json& protocol, const Json& domains) {
  PropertyMap derived;
  if (!protocol.is_null()) {
    derived["delta.minReaderVersion"] = std::to_string(protocol["min-reader-version"].get<int>());
    derived["delta.minWriterVersion"] = std::to_string(protocol["min-writer-version"].get<int>());
    for (const char* list : {"reader-features", "writer-features"}) {
      for (const Json& feature : protocol[list]) {
        derived["delta.feature." + feature.get<std::string>()] = "supported";
      }
    }
  }
  if (domains.contains(kClusteringDomain)) {
    derived["delta.clusteringColumns"] = domains[kClusteringDomain]["clusteringColumns"].dump();
  }
  if (domains.contains(kRowTrackingDomain)) {
    derived["delta.rowTracking.rowIdHighWaterMark"] =
        std::to_string(domains[kRowTrackingDomain]["rowIdHighWaterMark"].get<int64_t>());
  }
  if (table.metadata_version >= 0) {
    derived["delta.lastUpdateVersion"] = std::to_string(table.metadata_version);
  }
  if (table.last_commit_timestamp_ms > 0) {
    derived["delta.lastCommitTimestamp"] = std::to_string(table.last_commit_timestamp_ms);
  }
  return derived;
}

// A stored JSON value: null when empty, kDataLoss when it does not parse.
StatusOr<Json> Stored(const std::string& text, std::string_view what) {
  if (text.empty()) return Json();
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return DataLossError("the catalog's " + std::string(what) + " of this table does not parse");
  }
  return value;
}

}  // namespace

StatusOr<Json> ParseDeltaProtocol(const nlohmann::json& protocol, std::string_view where) {
  if (!protocol.is_object()) return Bad(where, "must be an object");
  DC_ASSIGN_OR_RETURN(int64_t reader, Version(protocol, "min-reader-version", where, 3));
  DC_ASSIGN_OR_RETURN(int64_t writer, Version(protocol, "min-writer-version", where, 7));
  DC_ASSIGN_OR_RETURN(Json reader_features, Features(protocol, "reader-features", where));
  DC_ASSIGN_OR_RETURN(Json writer_features, Features(protocol, "writer-features", where));
  if (!reader_features.empty() && reader != 3) {
    return Bad(std::string(where) + ".reader-features", "need min-reader-version 3");
  }
  if (!writer_features.empty() && writer != 7) {
    return Bad(std::string(where) + ".writer-features", "need min-writer-version 7");
  }
  // PROTOCOL.md: every reader feature is also a writer feature.
  for (const Json& feature : reader_features) {
    if (std::find(writer_features.begin(), writer_features.end(), feature) ==
        writer_features.end()) {
      return Bad(std::string(where) + ".writer-features",
                 "must also name the reader feature " + feature.get<std::string>());
    }
  }
  return Json{{"min-reader-version", reader},
              {"min-writer-version", writer},
              {"reader-features", std::move(reader_features)},
              {"writer-features", std::move(writer_features)}};
}

StatusOr<Json> ParseDeltaDomainMetadata(const nlohmann::json& updates, std::string_view where) {
  if (!updates.is_object() || updates.empty()) {
    return Bad(where, "must be an object of one or more domains");
  }
  Json parsed = Json::object();
  for (const auto& [domain, value] : updates.items()) {
    const std::string path = std::string(where) + "." + domain;
    if (!value.is_object()) return Bad(path, "must be an object");
    if (domain == kClusteringDomain) {
      auto columns = value.find("clusteringColumns");
      bool valid = columns != value.end() && columns->is_array();
      if (valid) {
        for (const nlohmann::json& column : *columns) {
          valid = valid && column.is_array() && !column.empty() &&
                  std::all_of(column.begin(), column.end(), [](const nlohmann::json& part) {
                    return part.is_string() && !part.get_ref<const std::string&>().empty();
                  });
        }
      }
      if (!valid) {
        return Bad(path + ".clusteringColumns",
                   "must be a list of column paths, each a list of names");
      }
      parsed[domain] = {{"clusteringColumns", *columns}};
    } else if (domain == kRowTrackingDomain) {
      auto mark = value.find("rowIdHighWaterMark");
      if (mark == value.end() || !mark->is_number_integer() || mark->get<int64_t>() < -1) {
        return Bad(path + ".rowIdHighWaterMark", "must be a whole number >= -1");
      }
      parsed[domain] = {{"rowIdHighWaterMark", mark->get<int64_t>()}};
    } else {
      return Bad(path, std::string("is not a domain this API carries (") + kClusteringDomain +
                           ", " + kRowTrackingDomain + ")");
    }
  }
  return parsed;
}

StatusOr<UcCommitInfo> ParseDeltaCommit(const nlohmann::json& commit, std::string_view where) {
  return ParseCommitInfo(commit, where, kDeltaApiCommitFields);
}

Json DeltaCommitJson(const UcCommitInfo& commit) {
  return {{"version", commit.version},
          {"timestamp", commit.timestamp},
          {"file-name", commit.file_name},
          {"file-size", commit.file_size},
          {"file-modification-timestamp", commit.file_modification_timestamp}};
}

Json RequiredManagedProtocol() {
  Json protocol = {{"min-reader-version", 3},
                   {"min-writer-version", 7},
                   {"reader-features", Json::array()},
                   {"writer-features", Json::array()}};
  for (const char* feature : kRequiredReaderFeatures)
    protocol["reader-features"].push_back(feature);
  for (const char* feature : kRequiredWriterFeatures)
    protocol["writer-features"].push_back(feature);
  return protocol;
}

std::vector<std::pair<std::string, std::string>> RequiredManagedProperties(
    const std::string& table_id) {
  return {{"delta.checkpointPolicy", "v2"},
          {"delta.enableDeletionVectors", "true"},
          {"delta.enableInCommitTimestamps", "true"},
          {"delta.checkpoint.writeStatsAsStruct", "true"},
          {"delta.checkpoint.writeStatsAsJson", "true"},
          {kTableIdProperty, table_id}};
}

Status CheckManagedTable(const Json& protocol, const PropertyMap& properties,
                         const std::string& table_id) {
  for (const auto& [list, features] :
       {std::pair<const char*, std::vector<const char*>>{
            "reader-features",
            {std::begin(kRequiredReaderFeatures), std::end(kRequiredReaderFeatures)}},
        {"writer-features",
         {std::begin(kRequiredWriterFeatures), std::end(kRequiredWriterFeatures)}}}) {
    for (const char* feature : features) {
      if (!HasFeature(protocol, list, feature)) {
        return InvalidArgumentError(std::string("field \"protocol.") + list + "\" must name " +
                                    feature +
                                    ": a managed table has the staging table's required-protocol");
      }
    }
  }
  for (const auto& [key, value] : RequiredManagedProperties(table_id)) {
    auto found = properties.find(key);
    if (found == properties.end() || found->second != value) {
      return InvalidArgumentError("field \"properties\" must set " + key + " to \"" + value +
                                  "\": a managed table has the staging table's "
                                  "required-properties");
    }
  }
  return OkStatus();
}

bool IsDerivedProperty(std::string_view key) {
  static constexpr std::string_view kDerived[] = {
      "delta.minReaderVersion",  "delta.minWriterVersion",
      "delta.clusteringColumns", "delta.rowTracking.rowIdHighWaterMark",
      "delta.lastUpdateVersion", "delta.lastCommitTimestamp"};
  return key.starts_with("delta.feature.") ||
         std::find(std::begin(kDerived), std::end(kDerived), key) != std::end(kDerived);
}

std::string DeltaEtag(const TableEntry& table) {
  return "etag-" + std::to_string(table.updated_at_ms);
}

StatusOr<Json> DeltaLoadTableResponse(const TableEntry& table, const UcPendingCommits* pending) {
  DC_ASSIGN_OR_RETURN(Json columns, DeltaColumnsFromSchemaString(table.columns_json));
  DC_ASSIGN_OR_RETURN(Json protocol, Stored(table.protocol_json, "protocol"));
  DC_ASSIGN_OR_RETURN(Json domains, Stored(table.domain_metadata_json, "domain metadata"));
  if (domains.is_null()) domains = Json::object();
  Json properties = Json::object();
  for (const auto& [key, value] : table.properties) properties[key] = value;
  for (const auto& [key, value] : DerivedProperties(table, protocol, domains)) {
    properties[key] = value;
  }
  Json metadata = {{"etag", DeltaEtag(table)},
                   {"table-type", std::string(TableTypeName(table.type))},
                   {"table-uuid", table.table_id},
                   {"location", table.storage_location},
                   {"created-time", table.created_at_ms},
                   {"updated-time", table.updated_at_ms},
                   {"columns", std::move(columns)},
                   {"partition-columns", table.partition_columns},
                   {"properties", std::move(properties)}};
  if (!table.comment.empty()) metadata["comment"] = table.comment;
  if (table.metadata_version >= 0) metadata["last-commit-version"] = table.metadata_version;
  if (table.last_commit_timestamp_ms > 0) {
    metadata["last-commit-timestamp-ms"] = table.last_commit_timestamp_ms;
  }
  Json answer = {{"metadata", std::move(metadata)}};
  if (pending != nullptr) {
    Json commits = Json::array();
    for (auto it = pending->commits.rbegin(); it != pending->commits.rend(); ++it) {
      commits.push_back(DeltaCommitJson(*it));
    }
    answer["commits"] = std::move(commits);
    answer["latest-table-version"] = pending->latest_version;
  }
  return answer;
}

Json DeltaStagingTableResponse(const StagingTableEntry& staging, Json credentials) {
  Json required_properties = Json::object();
  for (const auto& [key, value] : RequiredManagedProperties(staging.table_id)) {
    required_properties[key] = value;
  }
  return {{"table-id", staging.table_id},
          {"table-type", "MANAGED"},
          {"location", staging.location},
          {"storage-credentials", std::move(credentials)},
          {"required-protocol", RequiredManagedProtocol()},
          {"suggested-protocol",
           {{"reader-features", {"columnMapping"}},
            {"writer-features", {"columnMapping", "domainMetadata", "rowTracking"}}}},
          {"required-properties", std::move(required_properties)},
          {"suggested-properties",
           {{"delta.columnMapping.mode", "name"},
            {"delta.columnMapping.maxColumnId", nullptr},
            {"delta.enableRowTracking", "true"},
            {"delta.parquet.compression.codec", "zstd"},
            {"delta.rowTracking.materializedRowIdColumnName", nullptr},
            {"delta.rowTracking.materializedRowCommitVersionColumnName", nullptr}}}};
}

}  // namespace deltacommit::service::unity
