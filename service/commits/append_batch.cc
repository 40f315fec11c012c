#include "service/commits/append_batch.h"

#include <algorithm>
#include <set>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table_features.h"

namespace deltacommit::service {
namespace {

std::string Line(size_t index) { return "line " + std::to_string(index + 1) + ": "; }

// Adds `action` (line `index`) to `out`, or says why a blind append cannot
// hold it.
Status Take(const Action& action, size_t index, BlindAppend* out, bool* seen_info) {
  if (const auto* add = std::get_if<AddFile>(&action)) {
    if (!add->data_change) {
      return InvalidArgumentError(Line(index) + "add \"" + add->path +
                                  "\" has dataChange false: not a blind append");
    }
    out->adds.push_back(*add);
    return OkStatus();
  }
  if (const auto* txn = std::get_if<SetTransaction>(&action)) {
    for (const SetTransaction& t : out->txns) {
      if (t.app_id == txn->app_id) {
        return InvalidArgumentError(Line(index) + "a second txn for appId \"" + txn->app_id +
                                    "\"");
      }
    }
    out->txns.push_back(*txn);
    return OkStatus();
  }
  if (const auto* info = std::get_if<CommitInfo>(&action)) {
    if (*seen_info) return InvalidArgumentError(Line(index) + "a second commitInfo");
    *seen_info = true;
    out->txn_id = info->txn_id;
    return OkStatus();
  }
  return InvalidArgumentError(Line(index) + std::string(ActionType(action)) +
                              ": not a blind append, which holds only add (dataChange true), "
                              "txn and commitInfo actions");
}

// Whether `request`'s txns are all, partly or not at all applied already.
AppendResult CheckTxns(const AppendTableState& state, const BlindAppend& request) {
  int applied = 0;
  Version landed = -1;
  std::string which;
  for (const SetTransaction& txn : request.txns) {
    auto it = state.app_txns.find(txn.app_id);
    if (it == state.app_txns.end() || it->second.txn_version < txn.version) continue;
    ++applied;
    landed = it->second.txn_version == txn.version ? it->second.commit_version : -1;
    which = "appId \"" + txn.app_id + "\" is at txn version " +
            std::to_string(it->second.txn_version) + " (requested " +
            std::to_string(txn.version) + ")";
  }
  if (applied == 0) return {AppendOutcome::kMerged, -1, ""};
  if (applied == static_cast<int>(request.txns.size())) {
    return {AppendOutcome::kDuplicate, landed, "already applied: " + which};
  }
  return {AppendOutcome::kTxnConflict, landed,
          "some of the append's txns are applied and some are not: " + which +
              "; another writer uses the same appId"};
}

bool SharesAnAppId(const BlindAppend& request, const std::set<std::string>& taken) {
  return std::any_of(request.txns.begin(), request.txns.end(),
                     [&](const SetTransaction& t) { return taken.count(t.app_id) > 0; });
}

// Spark writes operationParameters values as JSON strings.
std::string JsonString(const std::string& text) { return nlohmann::json(text).dump(); }

CommitInfo BatchCommitInfo(const AppendTableState& state, const std::vector<std::string>& txn_ids,
                           int64_t timestamp, std::string_view engine_info) {
  CommitInfo info;
  if (InCommitTimestampsEnabled(*state.protocol, *state.metadata)) {
    info.in_commit_timestamp = timestamp;
  }
  info.timestamp = timestamp;
  info.operation = "WRITE";
  info.operation_parameters = std::vector<std::pair<std::string, std::string>>{
      {"mode", JsonString("Append")},
      {"mergedTxnIds", JsonString(nlohmann::json(txn_ids).dump())}};
  if (state.latest >= 0) info.read_version = state.latest;
  info.isolation_level = "WriteSerializable";
  info.is_blind_append = true;
  info.txn_id = NewUuid();
  info.engine_info = std::string(engine_info);
  return info;
}

}  // namespace

StatusOr<BlindAppend> ParseBlindAppend(std::string_view actions, Version read_version) {
  if (read_version < 0) {
    return InvalidArgumentError("read_version " + std::to_string(read_version) +
                                ": an append names the snapshot version its files were "
                                "written for (>= 0)");
  }
  ActionParser parser;
  DC_ASSIGN_OR_RETURN(std::vector<Action> parsed, parser.ParseCommit(actions));
  BlindAppend out;
  out.read_version = read_version;
  out.bytes = static_cast<int64_t>(actions.size());
  bool seen_info = false;
  for (size_t i = 0; i < parsed.size(); ++i) {
    DC_RETURN_IF_ERROR(Take(parsed[i], i, &out, &seen_info));
  }
  if (out.adds.empty() && out.txns.empty()) {
    return InvalidArgumentError("an append needs at least one add or txn action");
  }
  return out;
}

AppendBatch BuildAppendBatch(const AppendTableState& state,
                             std::span<const BlindAppend* const> requests,
                             const BatchLimits& limits, int64_t now_ms,
                             std::string_view engine_info) {
  AppendBatch batch;
  batch.version = state.latest + 1;
  std::set<std::string> app_ids;
  std::vector<std::string> txn_ids;
  std::vector<Action> body;
  int64_t merged = 0, bytes = 0;
  for (const BlindAppend* request : requests) {
    AppendResult result = CheckTxns(state, *request);
    if (result.outcome == AppendOutcome::kMerged && request->read_version < state.metadata_version) {
      result = {AppendOutcome::kMetadataChanged, state.metadata_version,
                "the table's protocol or metadata changed in version " +
                    std::to_string(state.metadata_version) + ", after read_version " +
                    std::to_string(request->read_version)};
    }
    const bool full = merged > 0 && (merged + 1 > limits.max_appends ||
                                     bytes + request->bytes > limits.max_bytes);
    if (result.outcome == AppendOutcome::kMerged && (full || SharesAnAppId(*request, app_ids))) {
      result = {AppendOutcome::kNextBatch, -1, ""};
    }
    if (result.outcome == AppendOutcome::kMerged) {
      result.version = batch.version;
      ++merged;
      bytes += request->bytes;
      for (const AddFile& add : request->adds) body.emplace_back(add);
      for (const SetTransaction& txn : request->txns) {
        app_ids.insert(txn.app_id);
        body.emplace_back(txn);
        batch.txns.push_back(txn);
      }
      if (request->txn_id) txn_ids.push_back(*request->txn_id);
    }
    batch.results.push_back(std::move(result));
  }
  if (merged == 0) return batch;
  const int64_t previous = state.last_in_commit_timestamp.value_or(now_ms - 1);
  batch.commit_timestamp_ms = std::max(now_ms, previous + 1);
  batch.has_in_commit_timestamp = InCommitTimestampsEnabled(*state.protocol, *state.metadata);
  body.insert(body.begin(),
              BatchCommitInfo(state, txn_ids, batch.commit_timestamp_ms, engine_info));
  batch.content = ActionsToCommit(body);
  return batch;
}

void ApplyBatch(const AppendBatch& batch, AppendTableState* state) {
  if (batch.content.empty()) return;
  state->latest = batch.version;
  state->last_in_commit_timestamp = batch.commit_timestamp_ms;
  for (const SetTransaction& txn : batch.txns) {
    state->app_txns[txn.app_id] = AppliedTxn{txn.version, batch.version};
  }
}

void ApplyCommit(Version version, const std::vector<Action>& actions, AppendTableState* state) {
  state->latest = version;
  state->last_in_commit_timestamp.reset();
  for (const Action& action : actions) {
    std::visit(
        [&](const auto& a) {
          using T = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<T, Protocol>) {
            state->protocol = a;
            state->metadata_version = version;
          } else if constexpr (std::is_same_v<T, Metadata>) {
            state->metadata = a;
            state->metadata_version = version;
          } else if constexpr (std::is_same_v<T, SetTransaction>) {
            state->app_txns[a.app_id] = AppliedTxn{a.version, version};
          } else if constexpr (std::is_same_v<T, CommitInfo>) {
            if (a.in_commit_timestamp) state->last_in_commit_timestamp = a.in_commit_timestamp;
          }
        },
        action);
  }
}

}  // namespace deltacommit::service
