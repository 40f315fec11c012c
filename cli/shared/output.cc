#include "shared/output.h"

#include <iostream>

#include "deltacommit/action_json.h"

namespace deltacommit::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument: return kExitBadInput;
    case StatusCode::kNotFound: return kExitNotFound;
    default: return kExitError;
  }
}

int ReportError(const Status& status) {
  std::cerr << "error: " << status.ToString() << "\n";
  return ExitCodeFor(status);
}

nlohmann::ordered_json ActionBody(const Action& action) {
  // Our own writer produced this text, so it always parses.
  auto json = nlohmann::ordered_json::parse(ActionToJson(action), nullptr, false);
  if (json.is_discarded() || !json.is_object() || json.empty()) return nullptr;
  return json.begin().value();
}

nlohmann::ordered_json SnapshotJson(const Snapshot& snapshot, bool with_files) {
  nlohmann::ordered_json out;
  out["version"] = snapshot.version();
  out["protocol"] = ActionBody(snapshot.protocol());
  out["metadata"] = ActionBody(snapshot.metadata());
  out["numFiles"] = snapshot.active_files().size();
  out["sizeInBytes"] = snapshot.size_in_bytes();
  out["txns"] = nlohmann::ordered_json::object();
  for (const auto& [app, v] : snapshot.app_versions()) out["txns"][app] = v;
  out["domainMetadata"] = nlohmann::ordered_json::object();
  for (const auto& [domain, d] : snapshot.domain_metadata()) {
    out["domainMetadata"][domain] = d.configuration;
  }
  if (snapshot.in_commit_timestamp()) out["inCommitTimestamp"] = *snapshot.in_commit_timestamp();
  if (with_files) {
    out["files"] = nlohmann::ordered_json::array();
    for (const auto& [key, add] : snapshot.active_files()) out["files"].push_back(ActionBody(add));
  }
  return out;
}

}  // namespace deltacommit::cli
