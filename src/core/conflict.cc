#include "deltacommit/conflict.h"

#include <algorithm>
#include <map>

namespace deltacommit {

std::string_view IsolationLevelName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kSerializable: return "Serializable";
    case IsolationLevel::kWriteSerializable: return "WriteSerializable";
    case IsolationLevel::kSnapshotIsolation: return "SnapshotIsolation";
  }
  return "WriteSerializable";
}

std::optional<IsolationLevel> ParseIsolationLevel(std::string_view name) {
  for (IsolationLevel l : {IsolationLevel::kSerializable, IsolationLevel::kWriteSerializable,
                           IsolationLevel::kSnapshotIsolation}) {
    if (IsolationLevelName(l) == name) return l;
  }
  return std::nullopt;
}

std::string_view ConflictTypeName(ConflictType type) {
  switch (type) {
    case ConflictType::kProtocolChanged: return "ProtocolChanged";
    case ConflictType::kMetadataChanged: return "MetadataChanged";
    case ConflictType::kConcurrentDomainMetadata: return "ConcurrentDomainMetadata";
    case ConflictType::kConcurrentTransaction: return "ConcurrentTransaction";
    case ConflictType::kConcurrentAppend: return "ConcurrentAppend";
    case ConflictType::kConcurrentDeleteRead: return "ConcurrentDeleteRead";
    case ConflictType::kConcurrentDeleteDelete: return "ConcurrentDeleteDelete";
  }
  return "Conflict";
}

std::string Conflict::Describe() const {
  std::string out = std::string(ConflictTypeName(type)) + ": conflicts with version " +
                    std::to_string(winning_version);
  if (!detail.empty()) out += " (" + detail + ")";
  return out;
}

bool MatchesPredicate(const NullableStringMap& partition_values,
                      const PartitionPredicate& predicate) {
  for (const PartitionFilter& f : predicate) {
    auto it = partition_values.find(f.column);
    std::optional<std::string> value =
        it == partition_values.end() ? std::nullopt : it->second;
    if (std::find(f.values.begin(), f.values.end(), value) == f.values.end()) return false;
  }
  return true;
}

namespace {

// The winning commit, summarised as Spark's WinningCommitSummary does.
struct Winner {
  Version version = -1;
  bool has_protocol = false;
  bool has_metadata = false;
  bool is_blind_append = false;
  std::vector<const AddFile*> adds;
  std::vector<const RemoveFile*> removes;
  std::vector<const SetTransaction*> txns;
  std::vector<const DomainMetadata*> domains;
};

Winner Summarise(Version version, const std::vector<Action>& actions) {
  Winner w;
  w.version = version;
  for (const Action& a : actions) {
    if (std::holds_alternative<Protocol>(a)) w.has_protocol = true;
    if (std::holds_alternative<Metadata>(a)) w.has_metadata = true;
    if (auto* add = std::get_if<AddFile>(&a)) w.adds.push_back(add);
    if (auto* rm = std::get_if<RemoveFile>(&a)) w.removes.push_back(rm);
    if (auto* t = std::get_if<SetTransaction>(&a)) w.txns.push_back(t);
    if (auto* d = std::get_if<DomainMetadata>(&a)) w.domains.push_back(d);
    if (auto* ci = std::get_if<CommitInfo>(&a)) w.is_blind_append = ci->is_blind_append.value_or(false);
  }
  return w;
}

bool CurrentHas(const CurrentTransaction& c, auto pred) {
  return std::any_of(c.actions->begin(), c.actions->end(), pred);
}

std::string PartitionText(const NullableStringMap& values) {
  if (values.empty()) return {};
  std::string out = "partition ";
  for (const auto& [k, v] : values) {
    if (out.back() != ' ') out += ", ";
    out += k + "=" + v.value_or("null");
  }
  return out;
}

Conflict Make(ConflictType type, Version v, std::string detail = {}) {
  return Conflict{type, v, std::move(detail)};
}

std::optional<Conflict> CheckDomains(const CurrentTransaction& c, const Winner& w) {
  for (const DomainMetadata* d : w.domains) {
    bool ours = CurrentHas(c, [&](const Action& a) {
      auto* mine = std::get_if<DomainMetadata>(&a);
      return mine != nullptr && mine->domain == d->domain;
    });
    if (ours) return Make(ConflictType::kConcurrentDomainMetadata, w.version, "domain " + d->domain);
  }
  return std::nullopt;
}

std::optional<Conflict> CheckAppIds(const CurrentTransaction& c, const Winner& w) {
  for (const SetTransaction* t : w.txns) {
    if (c.read->app_ids.count(t->app_id) > 0) {
      return Make(ConflictType::kConcurrentTransaction, w.version, "app id " + t->app_id);
    }
  }
  return std::nullopt;
}

// Spark's checkForAddedFilesThatShouldHaveBeenReadByCurrentTxn.
std::optional<Conflict> CheckAdds(const CurrentTransaction& c, const Winner& w,
                                  bool metadata_changed) {
  if (c.is_blind_append) return std::nullopt;  // a blind append read nothing
  bool include_blind = false;
  switch (c.isolation_level) {
    case IsolationLevel::kSnapshotIsolation: return std::nullopt;
    case IsolationLevel::kWriteSerializable: include_blind = metadata_changed; break;
    case IsolationLevel::kSerializable: include_blind = true; break;
  }
  if (w.is_blind_append && !include_blind) return std::nullopt;
  const bool read_anything = c.read->whole_table || !c.read->predicates.empty();
  if (!read_anything) return std::nullopt;
  for (const AddFile* add : w.adds) {
    bool matches = c.read->whole_table || !c.table_partitioned;
    for (size_t i = 0; !matches && i < c.read->predicates.size(); ++i) {
      matches = MatchesPredicate(add->partition_values, c.read->predicates[i]);
    }
    if (matches) {
      std::string where = PartitionText(add->partition_values);
      return Make(ConflictType::kConcurrentAppend, w.version,
                  "added " + add->path + (where.empty() ? "" : " in " + where));
    }
  }
  return std::nullopt;
}

std::optional<Conflict> CheckRemoves(const CurrentTransaction& c, const Winner& w) {
  for (const RemoveFile* rm : w.removes) {
    if (c.read->files.count(rm->path) > 0) {
      return Make(ConflictType::kConcurrentDeleteRead, w.version, "removed " + rm->path);
    }
  }
  if (!w.removes.empty() && c.read->whole_table) {
    return Make(ConflictType::kConcurrentDeleteRead, w.version,
                "removed " + w.removes.front()->path + " while the whole table was read");
  }
  for (const RemoveFile* rm : w.removes) {
    bool ours = CurrentHas(c, [&](const Action& a) {
      auto* mine = std::get_if<RemoveFile>(&a);
      return mine != nullptr && mine->path == rm->path;
    });
    if (ours) return Make(ConflictType::kConcurrentDeleteDelete, w.version, "both removed " + rm->path);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Conflict> CheckConflict(const CurrentTransaction& current, Version winner_version,
                                      const std::vector<Action>& winner_actions) {
  const Winner w = Summarise(winner_version, winner_actions);
  // Protocol and metadata changes by the winner: we do not attempt Spark's
  // feature-enablement resolution; any change fails the current transaction,
  // which is always safe.
  if (w.has_protocol) return Make(ConflictType::kProtocolChanged, w.version);
  if (w.has_metadata) return Make(ConflictType::kMetadataChanged, w.version);
  const bool metadata_changed = CurrentHas(current, [](const Action& a) {
    return std::holds_alternative<Metadata>(a);
  });
  if (auto c = CheckDomains(current, w)) return c;
  if (auto c = CheckAppIds(current, w)) return c;
  if (auto c = CheckAdds(current, w, metadata_changed)) return c;
  return CheckRemoves(current, w);
}

}  // namespace deltacommit
