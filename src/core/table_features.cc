#include "deltacommit/table_features.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/commit_coordinator.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/schema.h"

namespace deltacommit {
namespace {

enum class Kind { kWriter, kReaderWriter };

// Whether this build may commit to a table that supports the feature.
enum class Write {
  kYes,
  kUnlessActive,  // row-value rules we cannot enforce: refused once in use
  kNo,
};

struct FeatureInfo {
  std::string_view name;
  Kind kind;
  int32_t legacy_reader;  // versions that imply it; 0: table-features only
  int32_t legacy_writer;
  bool read;  // reader-writer features: log replay handles it
  Write write;
};

// Every feature name this build knows. Anything else is refused for reading
// (if in readerFeatures) and for writing.
constexpr std::array<FeatureInfo, 28> kFeatures = {{
    // Enforced by the commit path through IsAppendOnly.
    {"appendOnly", Kind::kWriter, 1, 2, true, Write::kYes},
    // Row-value rules (SQL expressions over the data we would write).
    {"invariants", Kind::kWriter, 1, 2, true, Write::kUnlessActive},
    {"checkConstraints", Kind::kWriter, 1, 3, true, Write::kUnlessActive},
    {"generatedColumns", Kind::kWriter, 1, 4, true, Write::kUnlessActive},
    {"identityColumns", Kind::kWriter, 1, 6, true, Write::kUnlessActive},
    {"allowColumnDefaults", Kind::kWriter, 0, 0, true, Write::kUnlessActive},
    // CDC files are optional for appends and deletes of whole files;
    // Table::Delete writes them when it removes part of a file.
    {"changeDataFeed", Kind::kWriter, 1, 4, true, Write::kYes},
    // Partition values and stats in the log use physical names; replay only
    // compares strings, and commits pass the schema metadata through.
    {"columnMapping", Kind::kReaderWriter, 2, 5, true, Write::kYes},
    // Replay keys files by (path, deletionVector.uniqueId); commits carry
    // descriptors verbatim.
    {"deletionVectors", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Domains are replayed and preserved; we modify no system domain.
    {"domainMetadata", Kind::kWriter, 0, 0, true, Write::kYes},
    // We write inCommitTimestamp when delta.enableInCommitTimestamps is set.
    {"inCommitTimestamp", Kind::kWriter, 0, 0, true, Write::kYes},
    // A type in the schema; the log is unaffected.
    {"timestampNtz", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Replay reads sidecars and checkpointMetadata; we write no checkpoints,
    // and commits are ordinary JSON files.
    {"v2Checkpoint", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Only VACUUM must change, and we have none.
    {"vacuumProtocolCheck", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Data-file concerns (reading widened or variant columns); the log is
    // unchanged and commits keep delta.typeChanges with the schema.
    {"typeWidening", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    {"typeWidening-preview", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    {"variantType", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    {"variantType-preview", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Shredding changes only how Parquet holds variants; a writer that never
    // shreds meets the protocol.
    {"variantShredding", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    {"variantShredding-preview", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Writers must assign baseRowId/defaultRowCommitVersion and keep the high
    // water mark; we do not.
    {"rowTracking", Kind::kWriter, 0, 0, true, Write::kNo},
    // Writers must check data files (numRecords, materialised partitions,
    // nested ids) that we do not produce.
    {"icebergCompatV1", Kind::kWriter, 0, 0, true, Write::kNo},
    {"icebergCompatV2", Kind::kWriter, 0, 0, true, Write::kNo},
    // Every add needs stats for the clustering columns; our commits cannot
    // promise them.
    {"clustering", Kind::kWriter, 0, 0, true, Write::kNo},
    // The catalog is the source of truth for commits: who may write is
    // CheckManagingCatalog's question (only a writer through the catalog);
    // a reader through the catalog merges its ratified commits, one around
    // it is warned that it may be behind (TableAdapters).
    {"catalogManaged", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    {"catalogOwned-preview", Kind::kReaderWriter, 0, 0, true, Write::kYes},
    // Who may write a coordinated table is CheckCommitCoordinator's question
    // (the table's coordinator against the writer's); the feature itself adds
    // nothing else to a commit.
    {"coordinatedCommits-preview", Kind::kWriter, 0, 0, true, Write::kYes},
    // Enabled by a different, preview-only property; we do not write it.
    {"inCommitTimestamp-preview", Kind::kWriter, 0, 0, true, Write::kNo},
}};

// What makes a kUnlessActive feature active (Spark's
// metadataRequiresFeatureToBeEnabled). Schema keys are searched at every
// depth, a superset of Spark's top-level checks, to stay conservative.
struct ActiveRule {
  std::string_view feature;
  std::string_view schema_key_prefix;  // empty: not a schema rule
  std::string_view config_prefix;      // empty: not a configuration rule
};
constexpr std::array<ActiveRule, 5> kActiveRules = {{
    {"invariants", "delta.invariants", ""},
    {"checkConstraints", "", "delta.constraints."},
    {"generatedColumns", "delta.generationExpression", ""},
    {"identityColumns", "delta.identity.", ""},
    {"allowColumnDefaults", "CURRENT_DEFAULT", ""},
}};

// Properties that ask a new table for a feature.
struct ConfigRule {
  std::string_view key;
  std::string_view value;  // compared case-insensitively
  std::string_view feature;
};
constexpr std::array<ConfigRule, 12> kConfigRules = {{
    {"delta.appendOnly", "true", "appendOnly"},
    {"delta.enableChangeDataFeed", "true", "changeDataFeed"},
    {"delta.columnMapping.mode", "name", "columnMapping"},
    {"delta.columnMapping.mode", "id", "columnMapping"},
    {"delta.enableDeletionVectors", "true", "deletionVectors"},
    {"delta.enableInCommitTimestamps", "true", "inCommitTimestamp"},
    {"delta.enableTypeWidening", "true", "typeWidening"},
    {"delta.checkpointPolicy", "v2", "v2Checkpoint"},
    {"delta.enableVariantShredding", "true", "variantShredding"},
    {"delta.enableRowTracking", "true", "rowTracking"},
    {"delta.enableIcebergCompatV1", "true", "icebergCompatV1"},
    {"delta.enableIcebergCompatV2", "true", "icebergCompatV2"},
}};

// Features a new table must also list (PROTOCOL.md "Variant Shredding";
// Delta's CoordinatedCommitsTableFeature.requiredFeatures; catalogManaged
// requires inCommitTimestamp in Delta and Kernel alike).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6>
    kDependencies = {{
        {"catalogManaged", "inCommitTimestamp"},
        {"catalogOwned-preview", "inCommitTimestamp"},
        {"variantShredding", "variantType"},
        {"variantShredding-preview", "variantType"},
        {"coordinatedCommits-preview", "inCommitTimestamp"},
        {"coordinatedCommits-preview", "vacuumProtocolCheck"},
    }};

constexpr std::string_view kFeaturePropertyPrefix = "delta.feature.";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

const FeatureInfo* Find(std::string_view name) {
  for (const FeatureInfo& f : kFeatures) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// delta.feature.<name> is matched ignoring case, as Spark does.
const FeatureInfo* FindIgnoreCase(std::string_view name) {
  for (const FeatureInfo& f : kFeatures) {
    if (EqualsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

bool IsTrue(const Metadata& m, std::string_view key) {
  auto it = m.configuration.find(std::string(key));
  return it != m.configuration.end() && EqualsIgnoreCase(it->second, "true");
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  return out + "]";
}

void SortUnique(std::vector<std::string>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

std::string Versions(const Protocol& p) {
  return "(minReaderVersion=" + std::to_string(p.min_reader_version) +
         ", minWriterVersion=" + std::to_string(p.min_writer_version) + ")";
}

bool Contains(const std::optional<std::vector<std::string>>& list,
              std::string_view name) {
  return list.has_value() &&
         std::find(list->begin(), list->end(), name) != list->end();
}

// The shape writers must respect (PROTOCOL.md "Table Features"). An empty
// list where the version has none is tolerated: it says nothing.
Status ValidateShape(const Protocol& p) {
  const std::string malformed = "malformed protocol " + Versions(p) + ": ";
  if (p.min_reader_version < 1 || p.min_writer_version < 1) {
    return InvalidArgumentError(malformed + "versions start at 1");
  }
  if (p.min_reader_version == 3 && p.min_writer_version != 7) {
    return InvalidArgumentError(malformed +
                                "reader version 3 needs writer version 7");
  }
  if ((p.min_reader_version == 3) != p.reader_features.has_value() &&
      (p.min_reader_version == 3 || !p.reader_features->empty())) {
    return InvalidArgumentError(malformed +
                                "readerFeatures must be listed exactly when "
                                "minReaderVersion is 3");
  }
  if ((p.min_writer_version == 7) != p.writer_features.has_value() &&
      (p.min_writer_version == 7 || !p.writer_features->empty())) {
    return InvalidArgumentError(malformed +
                                "writerFeatures must be listed exactly when "
                                "minWriterVersion is 7");
  }
  for (const std::string& f :
       p.reader_features.value_or(std::vector<std::string>{})) {
    if (!Contains(p.writer_features, f)) {
      return InvalidArgumentError(malformed + "reader feature " + f +
                                  " is not also in writerFeatures");
    }
  }
  return OkStatus();
}

// How `m` makes `rule.feature` active, or "" when it does not.
std::string DescribeActiveUse(const ActiveRule& rule, const Metadata& m,
                              const Schema& schema) {
  std::vector<std::string> uses;
  if (!rule.schema_key_prefix.empty()) {
    for (const std::string& path :
         FieldsWithMetadataKey(schema, rule.schema_key_prefix)) {
      uses.push_back("column \"" + path + "\" has " +
                     std::string(rule.schema_key_prefix));
    }
  }
  if (!rule.config_prefix.empty()) {
    for (const auto& [key, value] : m.configuration) {
      if (StartsWith(key, rule.config_prefix)) uses.push_back(key);
    }
  }
  if (uses.empty()) return "";
  std::string out = std::string(rule.feature) + " (used by ";
  for (size_t i = 0; i < uses.size(); ++i) out += (i > 0 ? ", " : "") + uses[i];
  return out + ")";
}

const ActiveRule& RuleFor(std::string_view feature) {
  for (const ActiveRule& r : kActiveRules) {
    if (r.feature == feature) return r;
  }
  return kActiveRules[0];  // unreachable: every kUnlessActive feature has a
                           // rule
}

// Names (with the use that activates them) of enabled features we refuse.
StatusOr<std::vector<std::string>> RefusedWriterFeatures(const Protocol& p,
                                                         const Metadata& m) {
  std::vector<std::string> refused;
  std::optional<Schema> schema;
  for (const std::string& name : EnabledFeatures(p)) {
    const FeatureInfo* info = Find(name);
    if (info == nullptr || info->write == Write::kNo) {
      refused.push_back(name);
      continue;
    }
    if (info->write != Write::kUnlessActive) continue;
    if (!schema.has_value()) {
      DC_ASSIGN_OR_RETURN(schema, ParseSchema(m.schema_string));
    }
    std::string use = DescribeActiveUse(RuleFor(name), m, *schema);
    if (!use.empty()) refused.push_back(std::move(use));
  }
  return refused;
}

// What a new table asks for, and what we cannot give it.
struct Request {
  std::vector<std::string> features;
  std::vector<std::string> refused;  // "name (reason)"
  bool table_features_form = false;
};

void Ask(std::string_view feature, const std::string& reason, Request* r) {
  const FeatureInfo* info = Find(feature);
  if (info == nullptr || info->write == Write::kNo) {
    r->refused.push_back(std::string(feature) + " (" + reason + ")");
    return;
  }
  r->features.emplace_back(feature);
  if (info->legacy_writer == 0) r->table_features_form = true;
}

Status AskFromConfiguration(const Metadata& m, Request* r) {
  auto mode = m.configuration.find("delta.columnMapping.mode");
  if (mode != m.configuration.end() &&
      !EqualsIgnoreCase(mode->second, "none") &&
      !EqualsIgnoreCase(mode->second, "name") &&
      !EqualsIgnoreCase(mode->second, "id")) {
    return InvalidArgumentError(
        "delta.columnMapping.mode must be none, name or id, got \"" +
        mode->second + "\"");
  }
  // Any coordinator name asks for the feature (Spark's
  // metadataRequiresFeatureToBeEnabled), so it is not a fixed-value rule.
  if (const std::string coordinator = CommitCoordinatorOf(m); !coordinator.empty()) {
    Ask(kCoordinatedCommitsFeature,
        std::string(kCommitCoordinatorProperty) + "=" + coordinator, r);
  }
  for (const ConfigRule& rule : kConfigRules) {
    auto it = m.configuration.find(std::string(rule.key));
    if (it == m.configuration.end() ||
        !EqualsIgnoreCase(it->second, rule.value))
      continue;
    Ask(rule.feature, std::string(rule.key) + "=" + it->second, r);
  }
  return OkStatus();
}

Status AskFromFeatureProperties(const Metadata& m, Request* r) {
  // Spark lets these pin versions; we derive versions from features only, so
  // silently ignoring them would give a protocol the user did not ask for.
  for (const char* key : {"delta.minReaderVersion", "delta.minWriterVersion"}) {
    if (m.configuration.count(key) > 0) {
      return InvalidArgumentError(std::string(key) +
                                  " is not supported; ask for features with "
                                  "delta.feature.<name>=supported");
    }
  }
  for (const auto& [key, value] : m.configuration) {
    if (!StartsWith(key, kFeaturePropertyPrefix)) continue;
    const std::string_view name =
        std::string_view(key).substr(kFeaturePropertyPrefix.size());
    if (!EqualsIgnoreCase(value, "supported")) {
      return InvalidArgumentError(key + " must be \"supported\", got \"" +
                                  value + "\"");
    }
    r->table_features_form = true;
    const FeatureInfo* info = FindIgnoreCase(name);
    if (info == nullptr) {
      Ask(name, key + "=" + value + ": unknown feature", r);
    } else {
      Ask(info->name, key + "=" + value, r);
    }
  }
  return OkStatus();
}

Status AskFromSchema(const Metadata& m, Request* r) {
  DC_ASSIGN_OR_RETURN(Schema schema, ParseSchema(m.schema_string));
  if (SchemaUsesType(schema, "timestamp_ntz"))
    Ask("timestampNtz", "timestamp_ntz column", r);
  if (SchemaUsesType(schema, "variant"))
    Ask("variantType", "variant column", r);
  for (const ActiveRule& rule : kActiveRules) {
    std::string use = DescribeActiveUse(rule, m, schema);
    if (!use.empty()) r->refused.push_back(std::move(use));
  }
  return OkStatus();
}

void AddDependencies(Request* r) {
  for (const auto& [feature, needs] : kDependencies) {
    if (std::find(r->features.begin(), r->features.end(), feature) !=
        r->features.end()) {
      r->features.emplace_back(needs);
    }
  }
  SortUnique(&r->features);
}

Protocol BuildProtocol(const Request& r) {
  Protocol p{1, 2, std::nullopt, std::nullopt, {}};
  if (!r.table_features_form) {
    for (const std::string& name : r.features) {
      const FeatureInfo* info = Find(name);
      p.min_reader_version =
          std::max(p.min_reader_version, info->legacy_reader);
      p.min_writer_version =
          std::max(p.min_writer_version, info->legacy_writer);
    }
    return p;
  }
  std::vector<std::string> reader;
  for (const std::string& name : r.features) {
    if (Find(name)->kind == Kind::kReaderWriter) reader.push_back(name);
  }
  p.min_writer_version = 7;
  p.writer_features = r.features;
  if (!reader.empty()) {
    p.min_reader_version = 3;
    p.reader_features = std::move(reader);
  }
  return p;
}

}  // namespace

Status CheckReadSupported(const Protocol& p) {
  if (p.min_reader_version < 1) {
    return InvalidArgumentError("malformed protocol " + Versions(p) +
                                ": versions start at 1");
  }
  if (p.min_reader_version > kMaxReaderVersion) {
    return UnimplementedError("table requires minReaderVersion=" +
                              std::to_string(p.min_reader_version) +
                              " but deltacommit reads up to version 3");
  }
  if (p.min_reader_version < 3) return OkStatus();  // at most columnMapping
  if (!p.reader_features.has_value()) {
    return InvalidArgumentError(
        "malformed protocol: minReaderVersion=3 without readerFeatures");
  }
  std::vector<std::string> unsupported;
  for (const std::string& name : *p.reader_features) {
    const FeatureInfo* info = Find(name);
    if (info == nullptr || info->kind != Kind::kReaderWriter || !info->read) {
      unsupported.push_back(name);
    }
  }
  if (unsupported.empty()) return OkStatus();
  SortUnique(&unsupported);
  return UnimplementedError(
      "table requires reader features " + JoinList(unsupported) +
      " that deltacommit does not support (minReaderVersion=3)");
}

Status CheckWriteSupported(const Protocol& p, const Metadata& m) {
  DC_RETURN_IF_ERROR(CheckReadSupported(p));
  if (p.min_writer_version > kMaxWriterVersion) {
    return UnimplementedError("table requires minWriterVersion=" +
                              std::to_string(p.min_writer_version) +
                              " but deltacommit writes up to version 7");
  }
  DC_RETURN_IF_ERROR(ValidateShape(p));
  DC_ASSIGN_OR_RETURN(std::vector<std::string> refused,
                      RefusedWriterFeatures(p, m));
  if (refused.empty()) return OkStatus();
  return UnimplementedError(
      "table requires writer features " + JoinList(refused) +
      " that deltacommit does not support for writing (minWriterVersion=" +
      std::to_string(p.min_writer_version) + ")");
}

std::vector<std::string> EnabledFeatures(const Protocol& p) {
  std::vector<std::string> out;
  // Spark's implicitlySupportedFeatures: only when neither list is in use.
  if (p.min_reader_version < 3 && p.min_writer_version < 7) {
    for (const FeatureInfo& f : kFeatures) {
      if (f.legacy_writer > 0 && f.legacy_reader <= p.min_reader_version &&
          f.legacy_writer <= p.min_writer_version) {
        out.emplace_back(f.name);
      }
    }
  }
  for (const auto* list : {&p.reader_features, &p.writer_features}) {
    if (list->has_value())
      out.insert(out.end(), (*list)->begin(), (*list)->end());
  }
  SortUnique(&out);
  return out;
}

bool IsFeatureEnabled(const Protocol& p, std::string_view feature) {
  const std::vector<std::string> enabled = EnabledFeatures(p);
  return std::find(enabled.begin(), enabled.end(), feature) != enabled.end();
}

bool IsAppendOnly(const Protocol& p, const Metadata& m) {
  return IsFeatureEnabled(p, "appendOnly") && IsTrue(m, "delta.appendOnly");
}

bool DeletionVectorsWritable(const Protocol& p, const Metadata& m) {
  return IsFeatureEnabled(p, "deletionVectors") && IsTrue(m, "delta.enableDeletionVectors");
}

bool ChangeDataFeedEnabled(const Metadata& m) { return IsTrue(m, "delta.enableChangeDataFeed"); }

bool InCommitTimestampsEnabled(const Protocol& p, const Metadata& m) {
  return IsFeatureEnabled(p, "inCommitTimestamp") &&
         IsTrue(m, "delta.enableInCommitTimestamps");
}

StatusOr<Protocol> ProtocolForNewTable(const Metadata& m) {
  Request r;
  DC_RETURN_IF_ERROR(AskFromConfiguration(m, &r));
  DC_RETURN_IF_ERROR(AskFromFeatureProperties(m, &r));
  DC_RETURN_IF_ERROR(AskFromSchema(m, &r));
  if (!r.refused.empty()) {
    SortUnique(&r.refused);
    return UnimplementedError("new table needs features " +
                              JoinList(r.refused) +
                              " that deltacommit does not support for writing");
  }
  AddDependencies(&r);
  return BuildProtocol(r);
}

Status CheckProtocolTransition(const Protocol& old_p, const Protocol& new_p) {
  DC_RETURN_IF_ERROR(ValidateShape(new_p));
  if (new_p.min_reader_version < old_p.min_reader_version ||
      new_p.min_writer_version < old_p.min_writer_version) {
    return InvalidArgumentError("protocol downgrade from " + Versions(old_p) +
                                " to " + Versions(new_p) + " is not allowed");
  }
  const std::vector<std::string> before = EnabledFeatures(old_p);
  const std::vector<std::string> after = EnabledFeatures(new_p);
  std::vector<std::string> dropped;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(dropped));
  if (dropped.empty()) return OkStatus();
  return InvalidArgumentError("protocol change " + Versions(old_p) + " -> " +
                              Versions(new_p) + " drops features " +
                              JoinList(dropped) +
                              "; a protocol action may only add features");
}

}  // namespace deltacommit
