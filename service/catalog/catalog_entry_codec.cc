#include "service/catalog/catalog_entry_codec.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace deltacommit::service {
namespace {

using Json = nlohmann::json;

Json Properties(const PropertyMap& properties) {
  Json object = Json::object();
  for (const auto& [key, value] : properties) object[key] = value;
  return object;
}

// Invalid UTF-8 (which request parsing already refuses) is replaced rather
// than thrown.
std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Reads the fields of one stored object; the first problem is kept and
// reported by Done(), so each decoder reads straight through.
class FieldReader {
 public:
  FieldReader(std::string_view json, std::string_view where) : where_(where) {
    object_ = Json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!object_.is_object()) Fail("is not a JSON object");
  }

  std::string String(const char* field) {
    const Json* value = Find(field);
    if (value == nullptr) return {};
    if (!value->is_string()) return Fail(std::string("field ") + field + " is not a string"), "";
    return value->get<std::string>();
  }
  int64_t Int(const char* field) {
    const Json* value = Find(field);
    if (value == nullptr) return 0;
    if (!value->is_number_integer()) {
      return Fail(std::string("field ") + field + " is not an integer"), 0;
    }
    return value->get<int64_t>();
  }
  // `fallback` when the field is absent (it was added later).
  int64_t IntOr(const char* field, int64_t fallback) {
    if (problem_ || !object_.contains(field)) return fallback;
    return Int(field);
  }
  bool Bool(const char* field) {
    const Json* value = Find(field);
    if (value == nullptr) return false;
    if (!value->is_boolean())
      return Fail(std::string("field ") + field + " is not a boolean"), false;
    return value->get<bool>();
  }
  PropertyMap Properties(const char* field) {
    PropertyMap properties;
    const Json* value = Find(field);
    if (value == nullptr) return properties;
    if (!value->is_object())
      return Fail(std::string("field ") + field + " is not an object"), properties;
    for (const auto& [key, item] : value->items()) {
      if (!item.is_string()) {
        Fail(std::string("field ") + field + "." + key + " is not a string");
        return properties;
      }
      properties.emplace(key, item.get<std::string>());
    }
    return properties;
  }
  std::vector<std::string> Strings(const char* field) {
    std::vector<std::string> strings;
    const Json* value = Find(field);
    if (value == nullptr) return strings;
    if (!value->is_array())
      return Fail(std::string("field ") + field + " is not an array"), strings;
    for (const Json& item : *value) {
      if (!item.is_string()) {
        Fail(std::string("field ") + field + " holds a value that is not a string");
        return strings;
      }
      strings.push_back(item.get<std::string>());
    }
    return strings;
  }

  // OK, or kDataLoss naming where and the first problem.
  Status Done() const {
    if (!problem_) return OkStatus();
    return DataLossError(std::string(where_) + ": stored entry " + *problem_ +
                         "; it was not written by this deltacommit");
  }

 private:
  const Json* Find(const char* field) {
    if (problem_) return nullptr;
    auto it = object_.find(field);
    if (it == object_.end()) {
      Fail(std::string("has no field ") + field);
      return nullptr;
    }
    return &*it;
  }
  void Fail(std::string problem) {
    if (!problem_) problem_ = std::move(problem);
  }

  std::string_view where_;
  Json object_;
  std::optional<std::string> problem_;
};

// The fields a catalog and a schema share, under the same names in both.
Json ContainerFields(const ContainerEntry& entry) {
  return {{"name", entry.name},
          {"id", entry.id},
          {"comment", entry.comment},
          {"properties", Properties(entry.properties)},
          {"storage_root", entry.storage_root},
          {"owner", entry.owner},
          {"created_at_ms", entry.created_at_ms},
          {"updated_at_ms", entry.updated_at_ms}};
}

void ReadContainerFields(FieldReader& in, ContainerEntry& entry) {
  entry.name = in.String("name");
  entry.id = in.String("id");
  entry.comment = in.String("comment");
  entry.properties = in.Properties("properties");
  entry.storage_root = in.String("storage_root");
  entry.owner = in.String("owner");
  entry.created_at_ms = in.Int("created_at_ms");
  entry.updated_at_ms = in.Int("updated_at_ms");
}

}  // namespace

std::string EncodeEntry(const CatalogEntry& entry) { return Dump(ContainerFields(entry)); }

std::string EncodeEntry(const SchemaEntry& entry) {
  Json json = ContainerFields(entry);
  json["catalog"] = entry.catalog;
  return Dump(json);
}

std::string EncodeEntry(const TableEntry& entry) {
  return Dump({{"catalog", entry.name.catalog},
               {"schema", entry.name.schema},
               {"name", entry.name.name},
               {"table_id", entry.table_id},
               {"table_type", TableTypeName(entry.type)},
               {"data_source_format", entry.data_source_format},
               {"storage_location", entry.storage_location},
               {"comment", entry.comment},
               {"columns", entry.columns_json},
               {"partition_columns", entry.partition_columns},
               {"properties", Properties(entry.properties)},
               {"protocol", entry.protocol_json},
               {"domain_metadata", entry.domain_metadata_json},
               {"owner", entry.owner},
               {"created_at_ms", entry.created_at_ms},
               {"updated_at_ms", entry.updated_at_ms},
               {"last_commit_timestamp_ms", entry.last_commit_timestamp_ms},
               {"metadata_version", entry.metadata_version}});
}

std::string EncodeEntry(const StagingTableEntry& entry) {
  return Dump({{"table_id", entry.table_id},
               {"catalog", entry.catalog},
               {"schema", entry.schema},
               {"name", entry.name},
               {"location", entry.location},
               {"owner", entry.owner},
               {"created_at_ms", entry.created_at_ms},
               {"finalized", entry.finalized}});
}

StatusOr<CatalogEntry> DecodeCatalogEntry(std::string_view json, std::string_view where) {
  FieldReader in(json, where);
  CatalogEntry entry;
  ReadContainerFields(in, entry);
  DC_RETURN_IF_ERROR(in.Done());
  return entry;
}

StatusOr<SchemaEntry> DecodeSchemaEntry(std::string_view json, std::string_view where) {
  FieldReader in(json, where);
  SchemaEntry entry;
  entry.catalog = in.String("catalog");
  ReadContainerFields(in, entry);
  DC_RETURN_IF_ERROR(in.Done());
  return entry;
}

StatusOr<TableEntry> DecodeTableEntry(std::string_view json, std::string_view where) {
  FieldReader in(json, where);
  TableEntry entry;
  entry.name = {in.String("catalog"), in.String("schema"), in.String("name")};
  entry.table_id = in.String("table_id");
  const std::string type = in.String("table_type");
  entry.data_source_format = in.String("data_source_format");
  entry.storage_location = in.String("storage_location");
  entry.comment = in.String("comment");
  entry.columns_json = in.String("columns");
  entry.partition_columns = in.Strings("partition_columns");
  entry.properties = in.Properties("properties");
  entry.protocol_json = in.String("protocol");
  entry.domain_metadata_json = in.String("domain_metadata");
  entry.owner = in.String("owner");
  entry.created_at_ms = in.Int("created_at_ms");
  entry.updated_at_ms = in.Int("updated_at_ms");
  entry.last_commit_timestamp_ms = in.Int("last_commit_timestamp_ms");
  // Entries written before commits through the Unity Catalog API have none.
  entry.metadata_version = in.IntOr("metadata_version", -1);
  DC_RETURN_IF_ERROR(in.Done());
  StatusOr<TableType> parsed = ParseTableType(type);
  if (!parsed.ok()) {
    return DataLossError(std::string(where) + ": the stored entry's " + parsed.status().message());
  }
  entry.type = *parsed;
  return entry;
}

StatusOr<StagingTableEntry> DecodeStagingTableEntry(std::string_view json, std::string_view where) {
  FieldReader in(json, where);
  StagingTableEntry entry;
  entry.table_id = in.String("table_id");
  entry.catalog = in.String("catalog");
  entry.schema = in.String("schema");
  entry.name = in.String("name");
  entry.location = in.String("location");
  entry.owner = in.String("owner");
  entry.created_at_ms = in.Int("created_at_ms");
  entry.finalized = in.Bool("finalized");
  DC_RETURN_IF_ERROR(in.Done());
  return entry;
}

}  // namespace deltacommit::service
