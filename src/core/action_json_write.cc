// ActionToJson / ActionsToCommit: Action -> one compact JSON line.
//
// A small hand-written writer rather than a JSON library: the output is flat
// and fixed in shape, and unknown fields must go out byte for byte as they
// came in, which a DOM library would re-parse and re-format.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"

namespace deltacommit {
namespace {

// Appends `s` as a JSON string. Only what JSON requires is escaped: '"', '\\'
// and control characters (as \u00XX, the form Jackson uses for most of them);
// UTF-8 passes through untouched.
void AppendQuoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.push_back('"');
  size_t clean_from = 0;  // start of the run that needs no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + clean_from, i - clean_from);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    clean_from = i + 1;
  }
  out.append(s.data() + clean_from, s.size() - clean_from);
  out.push_back('"');
}

// Writes one object at a time into a caller's string. A single flag tracks
// commas: a key needs one unless it opens its object.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject() {
    out_.push_back('{');
    need_comma_ = false;
  }
  void BeginObject(std::string_view key) {
    Key(key);
    BeginObject();
  }
  void EndObject() {
    out_.push_back('}');
    need_comma_ = true;
  }

  void String(std::string_view key, std::string_view value) {
    Key(key);
    AppendQuoted(out_, value);
  }
  void Int(std::string_view key, int64_t value) {
    Key(key);
    char digits[24];
    const auto result = std::to_chars(digits, digits + sizeof(digits), value);
    out_.append(digits, result.ptr);
  }
  void Bool(std::string_view key, bool value) {
    Key(key);
    out_.append(value ? "true" : "false");
  }
  // REQUIRES: raw_json is one valid JSON value; it is copied verbatim.
  void Raw(std::string_view key, std::string_view raw_json) {
    Key(key);
    out_.append(raw_json);
  }
  void Strings(std::string_view key, const std::vector<std::string>& values);
  void Map(std::string_view key, const StringMap& map);
  void Map(std::string_view key, const NullableStringMap& map);
  // Each (name, raw JSON) pair as a field, in order.
  void RawFields(
      const std::vector<std::pair<std::string, std::string>>& fields) {
    for (const auto& [name, raw] : fields) Raw(name, raw);
  }

 private:
  void Key(std::string_view key) {
    if (need_comma_) out_.push_back(',');
    AppendQuoted(out_, key);
    out_.push_back(':');
    need_comma_ = true;
  }

  std::string& out_;
  bool need_comma_ = false;
};

void JsonWriter::Strings(std::string_view key,
                         const std::vector<std::string>& values) {
  Key(key);
  out_.push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_.push_back(',');
    AppendQuoted(out_, values[i]);
  }
  out_.push_back(']');
}

void JsonWriter::Map(std::string_view key, const StringMap& map) {
  BeginObject(key);
  for (const auto& [name, value] : map) String(name, value);
  EndObject();
}

void JsonWriter::Map(std::string_view key, const NullableStringMap& map) {
  BeginObject(key);
  for (const auto& [name, value] : map) {
    if (value.has_value()) {
      String(name, *value);
    } else {
      Raw(name, "null");
    }
  }
  EndObject();
}

// Each WriteFields writes an action's known fields in the protocol's order;
// the caller adds the unknown ones after them.

void WriteFields(JsonWriter& w, const Protocol& p) {
  w.Int("minReaderVersion", p.min_reader_version);
  w.Int("minWriterVersion", p.min_writer_version);
  if (p.reader_features) w.Strings("readerFeatures", *p.reader_features);
  if (p.writer_features) w.Strings("writerFeatures", *p.writer_features);
}

void WriteFields(JsonWriter& w, const Metadata& m) {
  w.String("id", m.id);
  if (m.name) w.String("name", *m.name);
  if (m.description) w.String("description", *m.description);
  w.BeginObject("format");
  w.String("provider", m.format.provider);
  w.Map("options", m.format.options);
  w.EndObject();
  w.String("schemaString", m.schema_string);
  w.Strings("partitionColumns", m.partition_columns);
  if (m.created_time) w.Int("createdTime", *m.created_time);
  w.Map("configuration", m.configuration);
}

void WriteDeletionVector(JsonWriter& w, const DeletionVectorDescriptor& dv) {
  w.BeginObject("deletionVector");
  w.String("storageType", dv.storage_type);
  w.String("pathOrInlineDv", dv.path_or_inline_dv);
  if (dv.offset) w.Int("offset", *dv.offset);
  w.Int("sizeInBytes", dv.size_in_bytes);
  w.Int("cardinality", dv.cardinality);
  w.RawFields(dv.unknown_fields);
  w.EndObject();
}

void WriteFields(JsonWriter& w, const AddFile& a) {
  w.String("path", a.path);
  w.Map("partitionValues", a.partition_values);
  w.Int("size", a.size);
  w.Int("modificationTime", a.modification_time);
  w.Bool("dataChange", a.data_change);
  if (a.stats) w.String("stats", *a.stats);
  if (a.tags) w.Map("tags", *a.tags);
  if (a.deletion_vector) WriteDeletionVector(w, *a.deletion_vector);
  if (a.base_row_id) w.Int("baseRowId", *a.base_row_id);
  if (a.default_row_commit_version) {
    w.Int("defaultRowCommitVersion", *a.default_row_commit_version);
  }
  if (a.clustering_provider) {
    w.String("clusteringProvider", *a.clustering_provider);
  }
}

void WriteFields(JsonWriter& w, const RemoveFile& r) {
  w.String("path", r.path);
  if (r.deletion_timestamp) w.Int("deletionTimestamp", *r.deletion_timestamp);
  w.Bool("dataChange", r.data_change);
  if (r.extended_file_metadata) {
    w.Bool("extendedFileMetadata", *r.extended_file_metadata);
  }
  if (r.partition_values) w.Map("partitionValues", *r.partition_values);
  if (r.size) w.Int("size", *r.size);
  if (r.stats) w.String("stats", *r.stats);
  if (r.tags) w.Map("tags", *r.tags);
  if (r.deletion_vector) WriteDeletionVector(w, *r.deletion_vector);
  if (r.base_row_id) w.Int("baseRowId", *r.base_row_id);
  if (r.default_row_commit_version) {
    w.Int("defaultRowCommitVersion", *r.default_row_commit_version);
  }
}

void WriteFields(JsonWriter& w, const AddCdcFile& c) {
  w.String("path", c.path);
  w.Map("partitionValues", c.partition_values);
  w.Int("size", c.size);
  w.Bool("dataChange", c.data_change);
  if (c.tags) w.Map("tags", *c.tags);
}

void WriteFields(JsonWriter& w, const SetTransaction& t) {
  w.String("appId", t.app_id);
  w.Int("version", t.version);
  if (t.last_updated) w.Int("lastUpdated", *t.last_updated);
}

void WriteFields(JsonWriter& w, const CommitInfo& c) {
  // First: with in-commit timestamps the protocol makes commitInfo the first
  // action, and readers may look for the timestamp at the very start.
  if (c.in_commit_timestamp) w.Int("inCommitTimestamp", *c.in_commit_timestamp);
  if (c.timestamp) w.Int("timestamp", *c.timestamp);
  if (c.operation) w.String("operation", *c.operation);
  if (c.operation_parameters) {
    w.BeginObject("operationParameters");
    w.RawFields(*c.operation_parameters);
    w.EndObject();
  }
  if (c.read_version) w.Int("readVersion", *c.read_version);
  if (c.isolation_level) w.String("isolationLevel", *c.isolation_level);
  if (c.is_blind_append) w.Bool("isBlindAppend", *c.is_blind_append);
  if (c.txn_id) w.String("txnId", *c.txn_id);
  if (c.engine_info) w.String("engineInfo", *c.engine_info);
}

void WriteFields(JsonWriter& w, const DomainMetadata& d) {
  w.String("domain", d.domain);
  w.String("configuration", d.configuration);
  w.Bool("removed", d.removed);
}

void WriteFields(JsonWriter& w, const CheckpointMetadata& c) {
  w.Int("version", c.version);
  if (c.tags) w.Map("tags", *c.tags);
}

void WriteFields(JsonWriter& w, const Sidecar& s) {
  w.String("path", s.path);
  w.Int("sizeInBytes", s.size_in_bytes);
  w.Int("modificationTime", s.modification_time);
  if (s.tags) w.Map("tags", *s.tags);
}

void AppendAction(std::string& out, const Action& action) {
  JsonWriter w(out);
  w.BeginObject();
  std::visit(
      [&w, &action](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, UnknownAction>) {
          w.Raw(a.type, a.raw_json);
        } else {
          w.BeginObject(ActionType(action));
          WriteFields(w, a);
          w.RawFields(a.unknown_fields);
          w.EndObject();
        }
      },
      action);
  w.EndObject();
}

}  // namespace

std::string ActionToJson(const Action& action) {
  std::string out;
  out.reserve(256);
  AppendAction(out, action);
  return out;
}

std::string ActionsToCommit(const std::vector<Action>& actions) {
  std::string out;
  out.reserve(256 * actions.size());
  for (const Action& action : actions) {
    AppendAction(out, action);
    out.push_back('\n');
  }
  return out;
}

}  // namespace deltacommit
