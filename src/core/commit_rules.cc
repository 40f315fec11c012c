#include "deltacommit/commit_rules.h"

#include <algorithm>
#include <utility>

#include <simdjson.h>

#include <string>
#include <variant>

#include "deltacommit/core/percent_encoding.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/table_features.h"

namespace deltacommit {
namespace {

// ---- paths ------------------------------------------------------------------

bool HasControlCharacter(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Quoted for a message: control characters would break log lines.
std::string Shown(std::string_view path) {
  std::string out;
  for (char c : path.substr(0, 512)) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? '?' : c;
  }
  return path.size() > 512 ? out + "..." : out;
}

Status Refuse(std::string_view field, std::string_view path, std::string_view rule) {
  return InvalidArgumentError(std::string(field) + " \"" + Shown(path) + "\": " +
                              std::string(rule));
}

Status CheckSegments(std::string_view field, std::string_view path, std::string_view decoded) {
  size_t start = 0;
  while (start <= decoded.size()) {
    size_t end = decoded.find('/', start);
    if (end == std::string_view::npos) end = decoded.size();
    const std::string_view segment = decoded.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return Refuse(field, path,
                    "has an empty, \".\" or \"..\" segment: a path must stay inside the table");
    }
    start = end + 1;
  }
  return OkStatus();
}

// `relative` is what follows the table root; `path` is the whole, for
// messages. Every rule is applied to the decoded form: "%2E%2E" is "..".
Status CheckRelative(std::string_view field, std::string_view path, std::string_view relative) {
  StatusOr<std::string> decoded = PercentDecode(relative);
  if (!decoded.ok()) {
    return Refuse(field, path, "has a '%' that is not followed by two hex digits");
  }
  if (decoded->empty()) return Refuse(field, path, "names no file");
  if (HasControlCharacter(*decoded)) return Refuse(field, path, "contains a control character");
  if (!simdjson::validate_utf8(decoded->data(), decoded->size())) {
    return Refuse(field, path, "is not valid UTF-8 once percent-decoded");
  }
  if (decoded->find('\\') != std::string::npos) {
    return Refuse(field, path,
                  "contains a backslash: paths separate segments with '/' only");
  }
  if (decoded->front() == '/') {
    return Refuse(field, path,
                  "starts with '/': a path must be relative to the table root or a URI under it");
  }
  DC_RETURN_IF_ERROR(CheckSegments(field, path, *decoded));
  if (*decoded == "_delta_log" || decoded->starts_with("_delta_log/")) {
    return Refuse(field, path,
                  "is inside _delta_log: a commit names data files, never the log's own files");
  }
  return OkStatus();
}

// "s3a://b/p" -> "s3://b/p", "file:/p" -> "file:///p"; others unchanged.
std::string NormaliseScheme(std::string_view uri) {
  for (std::string_view alias : {"s3a://", "s3n://"}) {
    if (uri.starts_with(alias)) return "s3://" + std::string(uri.substr(alias.size()));
  }
  if (uri.starts_with("file:/") && !uri.starts_with("file://")) {
    return "file://" + std::string(uri.substr(5));
  }
  return std::string(uri);
}

// ---- actions ----------------------------------------------------------------

Status CheckKind(const Action& action) {
  if (const auto* unknown = std::get_if<UnknownAction>(&action)) {
    return InvalidArgumentError("unknown action \"" + Shown(unknown->type) +
                                "\": a commit carries only the Delta actions this build knows "
                                "(add, remove, metaData, protocol, commitInfo, txn, cdc, "
                                "domainMetadata)");
  }
  if (std::holds_alternative<CheckpointMetadata>(action) ||
      std::holds_alternative<Sidecar>(action)) {
    return InvalidArgumentError("\"" + std::string(ActionType(action)) +
                                "\" belongs in checkpoints, not in a commit");
  }
  return OkStatus();
}

Status Second(const Action& action) {
  return InvalidArgumentError("a second \"" + std::string(ActionType(action)) +
                              "\" action: a commit holds at most one");
}

}  // namespace

Status CommitChecker::Add(const Action& action) {
  DC_RETURN_IF_ERROR(CheckKind(action));
  DC_RETURN_IF_ERROR(CheckActionPaths(table_uri_, action));
  if (std::holds_alternative<CommitInfo>(action) && ++commit_infos_ > 1) return Second(action);
  if (const auto* p = std::get_if<Protocol>(&action)) {
    if (protocol_) return Second(action);
    protocol_ = *p;
  } else if (const auto* m = std::get_if<Metadata>(&action)) {
    if (metadata_) return Second(action);
    metadata_ = *m;
  } else if (const auto* txn = std::get_if<SetTransaction>(&action)) {
    if (txn->app_id.empty()) return InvalidArgumentError("txn with an empty appId");
    if (!app_ids_.insert(txn->app_id).second) {
      return InvalidArgumentError("a second txn for appId \"" + Shown(txn->app_id) +
                                  "\": a commit holds at most one per application");
    }
  } else if (const auto* d = std::get_if<DomainMetadata>(&action)) {
    domains_.push_back(d->domain);
  } else if (const auto* add = std::get_if<AddFile>(&action)) {
    if (add->size < 0) {
      return InvalidArgumentError("add \"" + Shown(add->path) + "\": size " +
                                  std::to_string(add->size) + " is negative");
    }
    if (!adds_.insert(KeyOf(*add)).second) {
      return InvalidArgumentError("add \"" + Shown(add->path) +
                                  "\": file added twice in one commit");
    }
    if (add->deletion_vector && !first_deletion_vector_) {
      first_deletion_vector_ = "add \"" + Shown(add->path) + "\"";
    }
  } else if (const auto* remove = std::get_if<RemoveFile>(&action)) {
    if (!removes_.insert(KeyOf(*remove)).second) {
      return InvalidArgumentError("remove \"" + Shown(remove->path) +
                                  "\": file removed twice in one commit");
    }
    if (remove->data_change && !first_data_remove_) first_data_remove_ = remove->path;
    if (remove->deletion_vector && !first_deletion_vector_) {
      first_deletion_vector_ = "remove \"" + Shown(remove->path) + "\"";
    }
  }
  return OkStatus();
}

namespace {

// Domains starting with "delta." are the protocol's own: each belongs to a
// table feature, and a writer that implements the feature writes it (Delta
// Spark writes delta.rowTracking's high-water mark in data commits of
// row-tracking tables, delta.clustering on clustered ones). Any other, or
// one whose feature the table lacks, is refused.
Status CheckSystemDomain(std::string_view domain, const Protocol* protocol) {
  static constexpr std::pair<std::string_view, std::string_view> kSystemDomains[] = {
      {"delta.rowTracking", "rowTracking"},
      {"delta.clustering", "clustering"},
  };
  for (const auto& [name, feature] : kSystemDomains) {
    if (domain != name) continue;
    if (protocol != nullptr && IsFeatureEnabled(*protocol, feature) &&
        IsFeatureEnabled(*protocol, "domainMetadata")) {
      return OkStatus();
    }
    return InvalidArgumentError("domainMetadata \"" + Shown(domain) +
                                "\": a system domain, which only a table with the " +
                                std::string(feature) + " and domainMetadata features may hold" +
                                (protocol == nullptr ? " (the table's protocol is not known)" : ""));
  }
  return InvalidArgumentError("domainMetadata \"" + Shown(domain) +
                              "\": domains starting with \"delta.\" are reserved for the Delta "
                              "protocol, and this one is not a system domain it knows");
}

}  // namespace

bool CommitChecker::NeedsTableState() const {
  return protocol_.has_value() || first_data_remove_.has_value() || !domains_.empty() ||
         first_deletion_vector_.has_value();
}

// The rules that depend on the table's protocol and metadata after the
// commit: its own protocol/metaData, else the table's (when known).
Status CommitChecker::Finish(const CommitBase& base) const {
  if (base.creating && (!protocol_ || !metadata_)) {
    return InvalidArgumentError(
        "the table does not exist yet: version 0 must contain a protocol and a metaData action");
  }
  if (protocol_ && !base.creating && base.protocol != nullptr) {
    DC_RETURN_IF_ERROR(CheckProtocolTransition(*base.protocol, *protocol_));
  }
  const Protocol* protocol = protocol_ ? &*protocol_ : base.protocol;
  const Metadata* metadata = metadata_ ? &*metadata_ : base.metadata;
  if (protocol != nullptr && metadata != nullptr && IsAppendOnly(*protocol, *metadata) &&
      first_data_remove_) {
    return InvalidArgumentError("remove \"" + Shown(*first_data_remove_) +
                                "\": the table is append-only (delta.appendOnly=true)");
  }
  // A deletion vector hides rows from readers that know the feature; one
  // that does not would read them all.
  if (first_deletion_vector_ && protocol != nullptr &&
      !IsFeatureEnabled(*protocol, "deletionVectors")) {
    return InvalidArgumentError(*first_deletion_vector_ +
                                ": carries a deletion vector, but the table does not support "
                                "the deletionVectors feature");
  }
  for (const std::string& domain : domains_) {
    if (domain.starts_with("delta.")) {
      DC_RETURN_IF_ERROR(CheckSystemDomain(domain, protocol));
      continue;
    }
    if (protocol != nullptr && !IsFeatureEnabled(*protocol, "domainMetadata")) {
      return InvalidArgumentError("domainMetadata \"" + Shown(domain) +
                                  "\": the table does not support the domainMetadata feature");
    }
  }
  return OkStatus();
}

StatusOr<std::string> ActionPathKey(std::string_view table_uri, std::string_view field,
                                    std::string_view path) {
  if (path.empty()) return InvalidArgumentError(std::string(field) + ": empty");
  if (HasControlCharacter(path)) return Refuse(field, path, "contains a control character");
  // A ':' before the first '/' is a URI scheme: relative paths are
  // URI-encoded, so theirs would be written %3A.
  std::string relative(path);
  const size_t colon = path.find(':');
  if (colon != std::string_view::npos && colon < path.find('/')) {
    if (table_uri.empty()) {
      return Refuse(field, path, "is an absolute URI: name files relative to the table root");
    }
    const std::string absolute = NormaliseScheme(path);
    const std::string root = NormaliseScheme(table_uri) + "/";
    if (!absolute.starts_with(root)) {
      return Refuse(field, path, "is outside the table " + std::string(table_uri) +
                                     ": absolute paths must start with " + root);
    }
    relative = absolute.substr(root.size());
  }
  DC_RETURN_IF_ERROR(CheckRelative(field, path, relative));
  return PercentDecode(relative);
}

Status CheckActionPath(std::string_view table_uri, std::string_view field,
                       std::string_view path) {
  return ActionPathKey(table_uri, field, path).status();
}

Status CheckActionPaths(std::string_view table_uri, const Action& action) {
  auto dv = [&](std::string_view field, const std::optional<DeletionVectorDescriptor>& d) {
    if (!d || d->storage_type != "p") return OkStatus();
    return CheckActionPath(table_uri, field, d->path_or_inline_dv);
  };
  if (const auto* add = std::get_if<AddFile>(&action)) {
    DC_RETURN_IF_ERROR(CheckActionPath(table_uri, "add.path", add->path));
    return dv("add.deletionVector.pathOrInlineDv", add->deletion_vector);
  }
  if (const auto* remove = std::get_if<RemoveFile>(&action)) {
    DC_RETURN_IF_ERROR(CheckActionPath(table_uri, "remove.path", remove->path));
    return dv("remove.deletionVector.pathOrInlineDv", remove->deletion_vector);
  }
  if (const auto* cdc = std::get_if<AddCdcFile>(&action)) {
    return CheckActionPath(table_uri, "cdc.path", cdc->path);
  }
  return OkStatus();
}

Status CheckCommitActions(const CommitBase& base, const std::vector<Action>& actions) {
  CommitChecker checker{std::string(base.table_uri)};
  for (const Action& action : actions) DC_RETURN_IF_ERROR(checker.Add(action));
  return checker.Finish(base);
}

Status CheckReadPredicate(const PartitionPredicate& predicate, const Metadata& metadata) {
  const std::vector<std::string>& columns = metadata.partition_columns;
  for (const PartitionFilter& f : predicate) {
    if (std::find(columns.begin(), columns.end(), f.column) != columns.end()) continue;
    std::string known;
    for (const std::string& c : columns) known += (known.empty() ? "" : ", ") + c;
    return InvalidArgumentError("\"" + f.column + "\" is not a partition column of the table (" +
                                (known.empty() ? "it has none" : "it has " + known) + ")");
  }
  return OkStatus();
}

}  // namespace deltacommit
