#include "deltacommit/checkpoint.h"

#include <charconv>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/retention.h"
#include "deltacommit/action_json.h"
#include "deltacommit/core/checkpoint_parts.h"
#include "deltacommit/core/last_checkpoint.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table_features.h"

namespace deltacommit {

StatusOr<int64_t> ParquetHandler::WriteCheckpointActions(
    ObjectStore& /*store*/, const std::string& key, const std::vector<std::string>& /*lines*/) {
  return UnimplementedError("cannot write checkpoint " + key +
                            ": this Parquet handler only reads checkpoints");
}

StatusOr<int64_t> ParquetHandler::WriteCheckpoint(ObjectStore& store, const std::string& key,
                                                  const std::vector<Action>& actions) {
  std::vector<std::string> lines;
  lines.reserve(actions.size());
  for (const Action& action : actions) lines.push_back(ActionToJson(action));
  return WriteCheckpointActions(store, key, lines);
}

StatusOr<std::vector<Action>> ParquetHandler::ReadCheckpoint(
    ObjectStore& store, const std::vector<std::string>& keys) {
  DC_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadCheckpointActions(store, keys));
  ActionParser parser;
  std::vector<Action> actions;
  actions.reserve(lines.size());
  for (const std::string& line : lines) {
    auto action = parser.ParseLine(line);
    if (!action.ok()) {
      return action.status().WithContext("checkpoint " + (keys.empty() ? "" : keys.front()));
    }
    actions.push_back(std::move(action).value());
  }
  return actions;
}

Status ParquetHandler::ReadCheckpointInBatches(ObjectStore& store,
                                               const std::vector<std::string>& keys,
                                               const ActionBatch& apply) {
  DC_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCheckpoint(store, keys));
  return apply(actions);
}

StatusOr<std::vector<Action>> CheckpointActions(const Snapshot& snapshot, int64_t now_millis) {
  DC_ASSIGN_OR_RETURN(int64_t retention, DeletedFileRetentionMillis(snapshot.metadata()));
  const int64_t min_retained = now_millis - retention;
  std::vector<Action> actions;
  actions.reserve(3 + snapshot.transactions().size() + snapshot.domain_metadata().size() +
                  snapshot.active_files().size() + snapshot.tombstones().size());
  actions.emplace_back(snapshot.protocol());
  actions.emplace_back(snapshot.metadata());
  for (const auto& [app_id, txn] : snapshot.transactions()) actions.emplace_back(txn);
  for (const auto& [domain, d] : snapshot.domain_metadata()) actions.emplace_back(d);
  // A checkpoint restates the state; it changes no data (PROTOCOL.md
  // "Checkpoints": dataChange false in add and remove).
  for (const auto& [key, add] : snapshot.active_files()) {
    AddFile a = add;
    a.data_change = false;
    actions.emplace_back(std::move(a));
  }
  for (const auto& [key, remove] : snapshot.tombstones()) {
    // Only VACUUM needs tombstones, and only until the retention passed.
    if (remove.deletion_timestamp.value_or(0) <= min_retained) continue;
    RemoveFile r = remove;
    r.data_change = false;
    actions.emplace_back(std::move(r));
  }
  if (IsFeatureEnabled(snapshot.protocol(), "v2Checkpoint")) {
    CheckpointMetadata meta;
    meta.version = snapshot.version();
    actions.emplace_back(std::move(meta));
  }
  return actions;
}

std::string LastCheckpointJson(const CheckpointInfo& info) {
  nlohmann::ordered_json j;
  j["version"] = info.version;
  j["size"] = info.size;
  if (info.parts > 0) j["parts"] = info.parts;
  j["sizeInBytes"] = info.size_in_bytes;
  j["numOfAddFiles"] = info.num_of_add_files;
  return j.dump();
}

int64_t CheckpointInterval(const Metadata& metadata) {
  auto it = metadata.configuration.find("delta.checkpointInterval");
  if (it == metadata.configuration.end()) return kDefaultCheckpointInterval;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) {
    return kDefaultCheckpointInterval;
  }
  return value;
}

namespace {

// The version `_last_checkpoint` names, if it exists and parses.
std::optional<Version> LastCheckpointVersion(ObjectStore& store) {
  auto content = store.Get(LastCheckpointPath());
  if (!content.ok()) return std::nullopt;
  auto hint = ParseLastCheckpoint(*content);
  if (!hint.ok()) return std::nullopt;
  return hint->version;
}

int64_t CountFileActions(const std::vector<Action>& actions) {
  int64_t n = 0;
  for (const Action& action : actions) {
    n += std::holds_alternative<AddFile>(action) || std::holds_alternative<RemoveFile>(action);
  }
  return n;
}

}  // namespace

StatusOr<CheckpointInfo> WriteCheckpoint(ObjectStore& store, ParquetHandler& parquet,
                                         const Snapshot& snapshot, Clock& clock,
                                         const CheckpointOptions& options) {
  CheckpointInfo info;
  info.version = snapshot.version();
  DC_ASSIGN_OR_RETURN(std::vector<Action> actions, CheckpointActions(snapshot, clock.NowMillis()));
  info.size = static_cast<int64_t>(actions.size());
  info.num_of_add_files = static_cast<int64_t>(snapshot.active_files().size());
  // The protocol forbids multi-part checkpoints with v2Checkpoint.
  const int32_t parts = IsFeatureEnabled(snapshot.protocol(), "v2Checkpoint")
                            ? 1
                            : CheckpointPartCount(CountFileActions(actions), options.part_size);
  if (parts > 1) {
    info.parts = parts;
    info.key = MultiPartCheckpointPath(info.version, 1, parts);
    DC_ASSIGN_OR_RETURN(info.size_in_bytes,
                        WriteMultiPartCheckpoint(store, parquet, info.version,
                                                 SplitIntoParts(std::move(actions), parts)));
  } else {
    info.key = ClassicCheckpointPath(info.version);
    DC_ASSIGN_OR_RETURN(info.size_in_bytes, parquet.WriteCheckpoint(store, info.key, actions));
  }
  // The hint goes last, so it never names a checkpoint that is not there;
  // it is only a hint, so an older checkpoint does not move it backwards.
  std::optional<Version> named = LastCheckpointVersion(store);
  if (!named || *named <= info.version) {
    DC_RETURN_IF_ERROR(store.Put(LastCheckpointPath(), LastCheckpointJson(info))
                           .WithContext("checkpoint " + info.key + " written, but " +
                                        LastCheckpointPath()));
  }
  return info;
}

}  // namespace deltacommit
