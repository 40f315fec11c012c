#include "service/unity/delta_table_update.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "deltacommit/core/ascii.h"
#include "deltacommit/core/message_quote.h"
#include "service/unity/delta_rest_json.h"
#include "service/unity/uc_body.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_tables.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;

Status Bad(const std::string& where, const std::string& problem) {
  return InvalidArgumentError("field \"" + where + "\" " + problem);
}

// The list `key` of `object`, as one entry each of the expected type.
StatusOr<const nlohmann::json*> List(const nlohmann::json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return Bad(key, "is required");
  if (!found->is_array() || found->empty()) return Bad(key, "must be a non-empty list");
  return &*found;
}

StatusOr<std::vector<std::string>> Strings(const nlohmann::json& object, const std::string& where,
                                           const char* key) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return Bad(where + "." + key, "is required");
  if (!found->is_array()) return Bad(where + "." + key, "must be a list of strings");
  std::vector<std::string> values;
  for (const nlohmann::json& value : *found) {
    if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
      return Bad(where + "." + key, "must be a list of non-empty strings");
    }
    values.push_back(value.get<std::string>());
  }
  return values;
}

Status CheckPropertyKey(const std::string& where, const std::string& key) {
  if (IsDerivedProperty(key)) {
    return Bad(where, "names " + QuoteForMessage(key, 128) +
                          ", which the catalog derives from the table's protocol, domain metadata "
                          "and commits: it is never set or removed");
  }
  return OkStatus();
}

Status ParseRequirement(const nlohmann::json& requirement, const std::string& where,
                        DeltaTableUpdate& update, std::set<std::string>& seen) {
  if (!requirement.is_object()) return Bad(where, "must be an object");
  DC_ASSIGN_OR_RETURN(std::string type, RequiredString(requirement, where, "type"));
  if (!seen.insert(type).second) return Bad(where, "repeats requirement " + type);
  if (type == "assert-table-uuid") {
    DC_ASSIGN_OR_RETURN(update.table_uuid, RequiredString(requirement, where, "uuid"));
    return OkStatus();
  }
  if (type == "assert-etag") {
    DC_ASSIGN_OR_RETURN(update.etag, RequiredString(requirement, where, "etag"));
    return OkStatus();
  }
  return Bad(where + ".type", "is " + QuoteForMessage(type, 64) +
                                  ": a requirement is assert-table-uuid or assert-etag");
}

Status ParseAction(const nlohmann::json& action, const std::string& where,
                   DeltaTableUpdate& update) {
  DC_ASSIGN_OR_RETURN(std::string name, RequiredString(action, where, "action"));
  auto member = [&](const char* key) -> StatusOr<const nlohmann::json*> {
    auto found = action.find(key);
    if (found == action.end() || found->is_null()) {
      return Bad(where + "." + key, "is required for " + name);
    }
    return &*found;
  };
  if (name == "add-commit") {
    if (const auto uniform = action.find("uniform");
        uniform != action.end() && !uniform->is_null()) {
      return Bad(where + ".uniform",
                 "is set: UniForm (Iceberg) conversion is not supported by this service");
    }
    DC_ASSIGN_OR_RETURN(const nlohmann::json* commit, member("commit"));
    DC_ASSIGN_OR_RETURN(update.commit, ParseDeltaCommit(*commit, where + ".commit"));
  } else if (name == "set-latest-backfilled-version") {
    DC_ASSIGN_OR_RETURN(update.latest_published_version,
                        RequiredInt(action, where, "latest-published-version"));
    if (*update.latest_published_version < 0) {
      return Bad(where + ".latest-published-version", "must be >= 0");
    }
  } else if (name == "set-columns") {
    DC_ASSIGN_OR_RETURN(const nlohmann::json* columns, member("columns"));
    DC_ASSIGN_OR_RETURN(update.schema_string, SchemaStringFromDeltaColumns(Json(*columns)));
  } else if (name == "set-partition-columns") {
    DC_ASSIGN_OR_RETURN(update.partition_columns, Strings(action, where, "partition-columns"));
  } else if (name == "set-table-comment") {
    DC_ASSIGN_OR_RETURN(update.comment, RequiredString(action, where, "comment"));
  } else if (name == "set-properties") {
    DC_ASSIGN_OR_RETURN(const nlohmann::json* updates, member("updates"));
    if (!updates->is_object()) return Bad(where + ".updates", "must be an object of strings");
    DC_ASSIGN_OR_RETURN(update.set_properties, UcBody(action).Properties("updates"));
    for (const auto& [key, value] : update.set_properties) {
      DC_RETURN_IF_ERROR(CheckPropertyKey(where + ".updates", key));
    }
  } else if (name == "remove-properties") {
    DC_ASSIGN_OR_RETURN(update.remove_properties, Strings(action, where, "removals"));
    for (const std::string& key : update.remove_properties) {
      DC_RETURN_IF_ERROR(CheckPropertyKey(where + ".removals", key));
      if (key == kTableIdProperty) {
        return Bad(where + ".removals",
                   std::string("names ") + kTableIdProperty + ", the table's id, which stays");
      }
    }
  } else if (name == "set-protocol") {
    DC_ASSIGN_OR_RETURN(const nlohmann::json* protocol, member("protocol"));
    DC_ASSIGN_OR_RETURN(update.protocol, ParseDeltaProtocol(*protocol, where + ".protocol"));
  } else if (name == "set-domain-metadata") {
    DC_ASSIGN_OR_RETURN(const nlohmann::json* updates, member("updates"));
    DC_ASSIGN_OR_RETURN(update.set_domains, ParseDeltaDomainMetadata(*updates, where + ".updates"));
  } else if (name == "remove-domain-metadata") {
    DC_ASSIGN_OR_RETURN(update.remove_domains, Strings(action, where, "domains"));
  } else if (name == "update-metadata-snapshot-version") {
    DC_ASSIGN_OR_RETURN(update.snapshot_version, RequiredInt(action, where, "last-commit-version"));
    DC_ASSIGN_OR_RETURN(update.snapshot_timestamp_ms,
                        RequiredInt(action, where, "last-commit-timestamp-ms"));
    if (*update.snapshot_version < 0 || *update.snapshot_timestamp_ms < 0) {
      return Bad(where, "must have last-commit-version and last-commit-timestamp-ms >= 0");
    }
  } else {
    return Bad(where + ".action", "is " + QuoteForMessage(name, 64) +
                                      ", which is not an update of the Delta REST API");
  }
  return OkStatus();
}

// The top-level column names of a schemaString.
std::vector<std::string> TopLevelColumns(const std::string& schema_string) {
  std::vector<std::string> names;
  nlohmann::json schema = nlohmann::json::parse(schema_string, nullptr, false);
  if (!schema.is_object() || !schema.contains("fields")) return names;
  for (const nlohmann::json& field : schema["fields"]) {
    if (field.contains("name") && field["name"].is_string()) names.push_back(field["name"]);
  }
  return names;
}

}  // namespace

bool DeltaTableUpdate::ChangesMetadata() const {
  return schema_string || partition_columns || comment || !set_properties.empty() ||
         !remove_properties.empty() || protocol || !set_domains.empty() ||
         !remove_domains.empty() || snapshot_version;
}

Status DeltaTableUpdate::ApplyTo(TableEntry& table) const {
  if (schema_string) table.columns_json = *schema_string;
  if (partition_columns) {
    const std::vector<std::string> columns = TopLevelColumns(table.columns_json);
    for (const std::string& name : *partition_columns) {
      if (std::none_of(columns.begin(), columns.end(),
                       [&](const std::string& c) { return EqualsIgnoreCase(c, name); })) {
        return InvalidArgumentError("partition column " + QuoteForMessage(name, 128) +
                                    " is not a top-level column of the table's schema");
      }
    }
    table.partition_columns = *partition_columns;
  }
  if (comment) table.comment = *comment;
  if (auto id = set_properties.find(kTableIdProperty);
      id != set_properties.end() && id->second != table.table_id) {
    return InvalidArgumentError(std::string("set-properties may not change ") + kTableIdProperty +
                                ": it is the table's id, " + table.table_id);
  }
  for (const auto& [key, value] : set_properties) table.properties[key] = value;
  for (const std::string& key : remove_properties) table.properties.erase(key);
  if (protocol) table.protocol_json = DumpJson(*protocol);
  if (!set_domains.empty() || !remove_domains.empty()) {
    Json domains = Json::object();
    if (!table.domain_metadata_json.empty()) {
      domains = Json::parse(table.domain_metadata_json, nullptr, false);
      if (!domains.is_object()) {
        return DataLossError("the catalog's domain metadata of this table does not parse");
      }
    }
    for (const auto& [domain, value] : set_domains.items()) domains[domain] = value;
    for (const std::string& domain : remove_domains) domains.erase(domain);
    table.domain_metadata_json = domains.empty() ? "" : DumpJson(domains);
  }
  if (snapshot_version) {
    table.metadata_version = *snapshot_version;
    table.last_commit_timestamp_ms = *snapshot_timestamp_ms;
  }
  return OkStatus();
}

StatusOr<DeltaTableUpdate> ParseDeltaTableUpdate(const nlohmann::json& body) {
  DeltaTableUpdate update;
  DC_ASSIGN_OR_RETURN(const nlohmann::json* requirements, List(body, "requirements"));
  DC_ASSIGN_OR_RETURN(const nlohmann::json* updates, List(body, "updates"));
  std::set<std::string> seen;
  for (size_t i = 0; i < requirements->size(); ++i) {
    DC_RETURN_IF_ERROR(ParseRequirement((*requirements)[i],
                                        "requirements[" + std::to_string(i) + "]", update, seen));
  }
  if (!seen.contains("assert-table-uuid")) {
    return Bad("requirements", "must hold an assert-table-uuid requirement");
  }
  DC_RETURN_IF_ERROR(ValidateUuid("requirements: assert-table-uuid uuid", update.table_uuid));
  seen.clear();
  for (size_t i = 0; i < updates->size(); ++i) {
    const std::string where = "updates[" + std::to_string(i) + "]";
    const nlohmann::json& action = (*updates)[i];
    if (!action.is_object()) return Bad(where, "must be an object");
    DC_ASSIGN_OR_RETURN(std::string name, RequiredString(action, where, "action"));
    if (!seen.insert(name).second) return Bad(where, "repeats update " + name);
    DC_RETURN_IF_ERROR(ParseAction(action, where, update));
  }
  for (const std::string& key : update.remove_properties) {
    if (update.set_properties.contains(key)) {
      return Bad("updates", "sets and removes property " + QuoteForMessage(key, 128));
    }
  }
  for (const std::string& domain : update.remove_domains) {
    if (update.set_domains.contains(domain)) {
      return Bad("updates", "sets and removes domain " + QuoteForMessage(domain, 128));
    }
  }
  return update;
}

}  // namespace deltacommit::service::unity
