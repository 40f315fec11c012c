#include "deltacommit/log_check.h"

#include <map>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/log_segment.h"

namespace deltacommit {
namespace {

// Commit files by version; with `staged_ratified`, staged commits count for
// versions that have no "<v>.json" (see LogStore::ListsRatifiedStagedCommits).
std::map<Version, std::string> CommitKeys(const std::vector<ObjectMeta>& listing,
                                          bool staged_ratified, LogCheckReport& report) {
  std::map<Version, std::string> commits;
  std::map<Version, std::string> staged;
  for (const ObjectMeta& m : listing) {
    std::string_view key = m.key;
    if (!key.starts_with(kLogDir)) continue;
    ParsedLogPath p = ParseLogPath(key.substr(kLogDir.size()));
    if (p.type == LogFileType::kCommit) commits[p.version] = m.key;
    if (p.type == LogFileType::kStagedCommit && staged_ratified) staged.emplace(p.version, m.key);
    if (p.type == LogFileType::kUnrecognized) ++report.unrecognized_files;
  }
  for (auto& [v, key] : staged) commits.try_emplace(v, std::move(key));
  return commits;
}

// Checks what one commit may hold besides replay rules.
void CheckCommitShape(Version v, const std::vector<Action>& actions, LogCheckReport& report) {
  int commit_infos = 0;
  for (const Action& a : actions) {
    if (std::holds_alternative<CommitInfo>(a)) ++commit_infos;
    if (auto* u = std::get_if<UnknownAction>(&a)) {
      report.problems.push_back("version " + std::to_string(v) + ": unknown action type \"" +
                                u->type + "\"");
    }
  }
  if (commit_infos > 1) {
    report.problems.push_back("version " + std::to_string(v) + ": " +
                              std::to_string(commit_infos) + " commitInfo actions (at most 1)");
  }
}

}  // namespace

StatusOr<LogCheckReport> CheckLog(LogStore& log, const SnapshotRequest* checkpoint_request) {
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, log.List(0));
  LogCheckReport report;
  const bool staged_ratified = log.ListsRatifiedStagedCommits();
  std::map<Version, std::string> commits = CommitKeys(listing, staged_ratified, report);
  if (commits.empty()) {
    return NotFoundError("no Delta table at " + log.Describe() + ": no commit files in _delta_log/");
  }
  report.first_version = commits.begin()->first;
  report.latest_version = commits.rbegin()->first;
  if (report.first_version != 0) {
    LogSegmentRequest seg_request;
    seg_request.staged_commits_are_ratified = staged_ratified;
    auto segment = BuildLogSegment(listing, seg_request, log.Describe());
    const bool covered = segment.ok() && segment->checkpoint_version &&
                         *segment->checkpoint_version >= report.first_version - 1;
    if (!covered) {
      report.problems.push_back("commits start at version " +
                                std::to_string(report.first_version) +
                                ", not 0, and no checkpoint covers the versions before");
    } else if (checkpoint_request != nullptr) {
      auto snapshot = LoadSnapshot(log, *checkpoint_request);
      if (snapshot.ok()) {
        report.snapshot = *snapshot;
      } else {
        report.problems.push_back(snapshot.status().message());
      }
    }
  }
  ActionParser parser;
  LogReplay replay;
  bool replay_ok = report.first_version == 0;
  Version expected = report.first_version;
  for (const auto& [v, key] : commits) {
    if (v != expected) {
      report.problems.push_back("versions not contiguous: " + CommitPath(expected) + " missing");
      replay_ok = false;
    }
    expected = v + 1;
    ++report.commits_checked;
    auto content = log.Read(key);
    if (!content.ok()) return content.status();
    auto actions = parser.ParseCommit(*content);
    if (!actions.ok()) {
      report.problems.push_back(key + ": " + actions.status().message());
      replay_ok = false;
      continue;
    }
    CheckCommitShape(v, *actions, report);
    if (!replay_ok) continue;
    Status st = replay.Apply(v, std::move(actions).value());
    if (!st.ok()) {
      report.problems.push_back(st.message());
      replay_ok = false;
    }
  }
  if (replay_ok) {
    auto snapshot = replay.Finish();
    if (snapshot.ok()) {
      report.snapshot = *snapshot;
    } else {
      report.problems.push_back(snapshot.status().message());
    }
  }
  return report;
}

}  // namespace deltacommit
