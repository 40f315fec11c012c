#include "service/commits/append_tables.h"

#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"

namespace deltacommit::service {
namespace {

// The actions of `version` that AppendTableState tracks.
StatusOr<std::vector<Action>> ReadTracked(Version version, ObjectStore& store) {
  StatusOr<std::string> content = store.Get(CommitPath(version));
  if (!content.ok()) {
    if (content.status().IsNotFound()) {
      return FailedPreconditionError(CommitPath(version) +
                                     " is gone (cleaned up after a checkpoint)");
    }
    return content.status();
  }
  ActionParser parser;
  StatusOr<std::vector<Action>> parsed = parser.ParseCommit(*content);
  if (!parsed.ok()) {
    return DataLossError(CommitPath(version) + " does not parse: " + parsed.status().message());
  }
  std::vector<Action> tracked;
  for (Action& action : *parsed) {
    if (std::holds_alternative<Protocol>(action) || std::holds_alternative<Metadata>(action) ||
        std::holds_alternative<SetTransaction>(action) ||
        std::holds_alternative<CommitInfo>(action)) {
      tracked.push_back(std::move(action));
    }
  }
  return tracked;
}

bool Has(const std::vector<Action>& actions, bool protocol) {
  for (const Action& a : actions) {
    if (protocol ? std::holds_alternative<Protocol>(a) : std::holds_alternative<Metadata>(a)) {
      return true;
    }
  }
  return false;
}

}  // namespace

StatusOr<AppendTableState> AppendTables::Load(const std::string& table, Version latest,
                                              ObjectStore& store) {
  std::optional<AppendTableState> cached;
  {
    std::lock_guard lock(mu_);
    auto it = tables_.find(table);
    if (it != tables_.end()) cached = it->second;
  }
  // A cache ahead of the store (its state was reset) or far behind is read
  // again from the log.
  if (cached && cached->latest <= latest && latest - cached->latest <= options_.max_log_reads) {
    return CatchUp(std::move(*cached), latest, store);
  }
  return ReadBack(latest, store);
}

StatusOr<AppendTableState> AppendTables::CatchUp(AppendTableState state, Version latest,
                                                 ObjectStore& store) {
  for (Version v = state.latest + 1; v <= latest; ++v) {
    DC_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadTracked(v, store));
    ApplyCommit(v, actions, &state);
  }
  return state;
}

StatusOr<AppendTableState> AppendTables::ReadBack(Version latest, ObjectStore& store) {
  if (latest < 0) {
    return FailedPreconditionError("the table has no commits yet: create it first");
  }
  // Newest first, until both a protocol and a metaData were seen.
  std::vector<std::vector<Action>> commits;
  bool protocol = false, metadata = false;
  for (Version v = latest; v >= 0 && !(protocol && metadata); --v) {
    if (static_cast<int64_t>(commits.size()) >= options_.max_log_reads) {
      return FailedPreconditionError("no protocol and metaData in the last " +
                                     std::to_string(options_.max_log_reads) +
                                     " commits (they are in a checkpoint)");
    }
    StatusOr<std::vector<Action>> actions = ReadTracked(v, store);
    if (!actions.ok()) return actions.status();
    protocol = protocol || Has(*actions, true);
    metadata = metadata || Has(*actions, false);
    commits.push_back(std::move(actions).value());
  }
  if (!protocol || !metadata) {
    return DataLossError("the log from version 0 to " + std::to_string(latest) +
                         " has no " + (protocol ? "metaData" : "protocol") + " action");
  }
  AppendTableState state;
  Version v = latest - static_cast<Version>(commits.size()) + 1;
  for (auto it = commits.rbegin(); it != commits.rend(); ++it, ++v) ApplyCommit(v, *it, &state);
  return state;
}

void AppendTables::Store(const std::string& table, AppendTableState state) {
  if (static_cast<int64_t>(state.app_txns.size() + state.absent_app_ids.size()) >
      options_.max_app_ids_per_table) {
    // The state store keeps every appId's latest txn. Both go: an appId
    // known absent must never outlive the txn that made it present.
    state.app_txns.clear();
    state.absent_app_ids.clear();
  }
  std::lock_guard lock(mu_);
  if (static_cast<int64_t>(tables_.size()) >= options_.max_tables && !tables_.count(table)) {
    tables_.clear();
  }
  tables_[table] = std::move(state);
}

void AppendTables::Forget(const std::string& table) {
  std::lock_guard lock(mu_);
  tables_.erase(table);
}

}  // namespace deltacommit::service
