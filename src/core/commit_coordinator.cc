#include "deltacommit/commit_coordinator.h"

#include <nlohmann/json.hpp>

#include "deltacommit/table_features.h"

namespace deltacommit {
namespace {

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string WhoWrites(std::string_view writer) {
  return writer.empty() ? std::string("a filesystem writer (it puts <v>.json itself)")
                        : "a writer through commit coordinator " + Quoted(writer);
}

// Spark parses both confs as a JSON map of strings; so do we, so that a table
// we create is one Spark can open.
Status CheckConf(const Metadata& m, std::string_view key) {
  auto it = m.configuration.find(std::string(key));
  if (it == m.configuration.end()) return OkStatus();
  nlohmann::json conf = nlohmann::json::parse(it->second, nullptr, false);
  bool strings = conf.is_object();
  if (strings) {
    for (const auto& [name, value] : conf.items()) strings = strings && value.is_string();
  }
  if (strings) return OkStatus();
  return InvalidArgumentError(std::string(key) + " must be a JSON object of strings, got " +
                              Quoted(it->second));
}

// What a table naming `coordinator` must also have.
Status CheckCoordinatedTable(const Protocol& protocol, const Metadata& m,
                             std::string_view coordinator) {
  const std::string table = "a table coordinated by " + Quoted(coordinator);
  if (!IsFeatureEnabled(protocol, kCoordinatedCommitsFeature)) {
    return InvalidArgumentError(table + " must support the writer feature " +
                                std::string(kCoordinatedCommitsFeature));
  }
  if (!InCommitTimestampsEnabled(protocol, m)) {
    return InvalidArgumentError(table +
                                " needs in-commit timestamps: the inCommitTimestamp feature and "
                                "delta.enableInCommitTimestamps=true");
  }
  DC_RETURN_IF_ERROR(CheckConf(m, kCommitCoordinatorConfProperty));
  return CheckConf(m, kCoordinatedTableConfProperty);
}

Status CheckCoordinatedWriter(std::string_view table_coordinator, std::string_view next,
                              std::string_view writer) {
  if (next != table_coordinator) {
    return InvalidArgumentError(
        "the commit coordinator of the table is " + Quoted(table_coordinator) +
        "; changing it to " + Quoted(next) + " is not supported");
  }
  if (writer == table_coordinator) return OkStatus();
  return FailedPreconditionError(
      "the table's commits are ratified by commit coordinator " + Quoted(table_coordinator) +
      " (" + std::string(kCommitCoordinatorProperty) + "); " + WhoWrites(writer) +
      " would bypass it" +
      (table_coordinator == kDeltacommitCoordinator ? ": use --log-store coordinated" : ""));
}

Status CheckNewCoordination(bool creating, std::string_view next, std::string_view writer) {
  if (writer.empty() || (creating && writer == next)) return OkStatus();
  if (creating) {
    return FailedPreconditionError("a table created by " + WhoWrites(writer) +
                                   " must name that coordinator, not " + Quoted(next));
  }
  return FailedPreconditionError(
      "the commit that makes a table coordinated (by " + Quoted(next) +
      ") must be a filesystem write, so that it is exclusive before the coordinator knows the "
      "table; use --log-store s3-conditional, s3-dynamodb or local for it");
}

}  // namespace

std::string CommitCoordinatorOf(const Metadata& m) {
  auto it = m.configuration.find(std::string(kCommitCoordinatorProperty));
  return it == m.configuration.end() ? std::string() : it->second;
}

Status CheckCommitCoordinator(const Metadata* before, const Protocol& protocol,
                              const Metadata& after, std::string_view writer) {
  const std::string previous = before ? CommitCoordinatorOf(*before) : std::string();
  const std::string next = CommitCoordinatorOf(after);
  if (!next.empty()) DC_RETURN_IF_ERROR(CheckCoordinatedTable(protocol, after, next));
  if (!previous.empty()) return CheckCoordinatedWriter(previous, next, writer);
  if (!next.empty()) return CheckNewCoordination(before == nullptr, next, writer);
  if (writer.empty()) return OkStatus();
  return FailedPreconditionError(
      "the table names no commit coordinator (" + std::string(kCommitCoordinatorProperty) +
      " is not set), so filesystem writers may commit to it around coordinator " +
      Quoted(writer) + "; write it with a filesystem log store, or create it coordinated");
}

bool IsCatalogManaged(const Protocol& p) {
  return IsFeatureEnabled(p, "catalogManaged") || IsFeatureEnabled(p, "catalogOwned-preview");
}

Status CheckManagingCatalog(const Protocol* before, const Protocol& protocol,
                            const Metadata& metadata, std::string_view catalog) {
  if (!IsCatalogManaged(protocol)) {
    if (catalog.empty()) return OkStatus();
    return FailedPreconditionError(
        "the table's protocol does not have the catalogManaged feature, so filesystem writers "
        "may commit to it around " +
        std::string(catalog) + "; a catalog-managed table must have it from version 0");
  }
  if (catalog.empty()) {
    return FailedPreconditionError(
        "the table is catalog-managed (feature catalogManaged): its catalog ratifies every "
        "commit, and a filesystem write would go around it; open the table by its catalog "
        "name, uc://<catalog>.<schema>.<table> with --catalog-url");
  }
  if (before != nullptr && !IsCatalogManaged(*before)) {
    return InvalidArgumentError(
        "making an existing table catalog-managed (adding the catalogManaged feature) is not "
        "supported: create the table through its catalog");
  }
  if (!InCommitTimestampsEnabled(protocol, metadata)) {
    return InvalidArgumentError(
        "a catalog-managed table needs in-commit timestamps: the inCommitTimestamp feature and "
        "delta.enableInCommitTimestamps=true");
  }
  return OkStatus();
}

void AddCommitCoordinatorProperties(std::string_view coordinator,
                                    std::string_view coordinator_conf, Metadata* m) {
  m->configuration.try_emplace(std::string(kCommitCoordinatorProperty), coordinator);
  m->configuration.try_emplace(std::string(kCommitCoordinatorConfProperty), coordinator_conf);
  m->configuration.try_emplace(std::string(kCoordinatedTableConfProperty), "{}");
  m->configuration.try_emplace("delta.enableInCommitTimestamps", "true");
}

}  // namespace deltacommit
