#include "logstore/ratified_log.h"

#include <algorithm>
#include <set>
#include <utility>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/coordinated_log_store.h"
#include "deltacommit/logstore/object_store_log_store.h"

namespace deltacommit {
namespace {

// True for a file that belongs to a version above `latest`: a commit,
// checkpoint or checksum, or a compaction reaching past it.
bool AboveLatest(const ParsedLogPath& p, Version latest) {
  switch (p.type) {
    case LogFileType::kCommit:
    case LogFileType::kClassicCheckpoint:
    case LogFileType::kMultiPartCheckpoint:
    case LogFileType::kV2Checkpoint:
    case LogFileType::kChecksum:
      return p.version > latest;
    case LogFileType::kCompactedCommit:
      return p.end_version > latest;
    default:
      return false;
  }
}

ParsedLogPath ParseKey(std::string_view key) {
  if (!key.starts_with(kLogDir)) return {};
  return ParseLogPath(key.substr(kLogDir.size()));
}

// Answers one listing may take: a million unpublished commits at the
// service's default of 1,000 per answer.
constexpr int kMaxPendingPages = 1000;

// What an answer for versions >= `start` shows published: commits are
// published in order, so every version before its first unpublished commit
// is published. The answer leaves out commits below `start`, so that holds
// only when the version before the first one it lists (or its latest, when
// it lists none) is at or above `start`; otherwise it shows nothing (-1).
Version PublishedThrough(const PendingCommits& pending, Version start) {
  const Version through =
      pending.commits.empty() ? pending.latest_version : pending.commits.front().version - 1;
  return through >= start ? through : -1;
}

}  // namespace

std::vector<ObjectMeta> MergeCoordinatedListing(std::vector<ObjectMeta> listing,
                                                const PendingCommits& pending) {
  std::set<Version> unpublished;
  for (const PendingCommit& c : pending.commits) unpublished.insert(c.version);
  std::vector<ObjectMeta> out;
  for (ObjectMeta& meta : listing) {
    ParsedLogPath p = ParseKey(meta.key);
    if (p.type == LogFileType::kStagedCommit) continue;
    if (pending.latest_version >= 0 && AboveLatest(p, pending.latest_version)) continue;
    // Until v is published, its ratified commit is v. A v.json listed
    // anyway was published after the coordinator answered (the same commit)
    // or written around the coordinator (not the commit).
    if (p.type == LogFileType::kCommit && unpublished.count(p.version) > 0) continue;
    out.push_back(std::move(meta));
  }
  for (const PendingCommit& c : pending.commits) {
    out.push_back(ObjectMeta{c.staged_file, c.size, c.commit_timestamp_ms});
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  return out;
}

RatifiedLog::RatifiedLog(ObjectStore& store, FetchPending fetch,
                         std::function<std::string()> describe)
    : store_(store), fetch_(std::move(fetch)), describe_(std::move(describe)) {}

void RatifiedLog::NotePublishedThrough(Version version) {
  Version known = published_through_.load();
  while (version > known && !published_through_.compare_exchange_weak(known, version)) {
  }
}

StatusOr<PendingCommits> RatifiedLog::Pending(Version start) {
  DC_ASSIGN_OR_RETURN(PendingCommits pending, fetch_(start));
  const Version through = PublishedThrough(pending, start);
  // One answer may list a bounded number of commits: ask for the rest until
  // the latest, or until an answer lists none (published meanwhile: the
  // store's listing, taken after this, has them).
  for (int page = 0; page < kMaxPendingPages && !pending.commits.empty() &&
                     pending.commits.back().version < pending.latest_version;
       ++page) {
    DC_ASSIGN_OR_RETURN(PendingCommits more, fetch_(pending.commits.back().version + 1));
    if (more.commits.empty()) break;
    pending.latest_version = std::max(pending.latest_version, more.latest_version);
    for (PendingCommit& c : more.commits) pending.commits.push_back(std::move(c));
  }
  NotePublishedThrough(through);
  return pending;
}

StatusOr<std::vector<ObjectMeta>> RatifiedLog::List(Version from) {
  from = std::max<Version>(from, 0);
  // The coordinator first: see the header.
  DC_ASSIGN_OR_RETURN(PendingCommits pending, Pending(from));
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing,
                      store_.List(kLogDir, LogListStartAfter(from)));
  return MergeCoordinatedListing(std::move(listing), pending);
}

StatusOr<std::string> RatifiedLog::Read(std::string_view key) {
  ParsedLogPath p = ParseKey(key);
  if (p.type == LogFileType::kCommit) return ReadCommit(p.version);
  StatusOr<std::string> content = store_.Get(key);
  if (p.type != LogFileType::kStagedCommit || !content.status().IsNotFound()) return content;
  // Cleaned up after publishing: the same commit is N.json now.
  StatusOr<std::string> published = store_.Get(CommitPath(p.version));
  return published.status().IsNotFound() ? content : published;
}

StatusOr<std::string> RatifiedLog::ReadCommit(Version version) {
  // Published versions stay published: no need to ask again.
  if (version <= published_through_.load()) return store_.Get(CommitPath(version));
  DC_ASSIGN_OR_RETURN(PendingCommits pending, Pending(version));
  if (pending.latest_version >= 0 && version > pending.latest_version) {
    return NotFoundError(CommitPath(version) + " of " + describe_() +
                         ": not ratified (the latest ratified version is " +
                         std::to_string(pending.latest_version) + ")");
  }
  for (const PendingCommit& c : pending.commits) {
    if (c.version != version) continue;
    StatusOr<std::string> staged = store_.Get(c.staged_file);
    if (!staged.status().IsNotFound()) return staged;
    return store_.Get(CommitPath(version));  // published and cleaned up since
  }
  return store_.Get(CommitPath(version));
}

StatusOr<std::string> RatifiedLog::PutStaged(Version version, std::string_view content,
                                             StepHooks* hooks, std::string_view step_prefix) {
  const std::string prefix(step_prefix);
  DC_RETURN_IF_ERROR(RunStep(hooks, prefix + "/before-staged-put"));
  std::string staged = StagedCommitPath(version, NewUuid());
  if (Status put = store_.Put(staged, content); !put.ok()) {
    Status failed = put.IsUnknownOutcome() ? UnavailableError(put.message()) : put;
    return failed.WithContext("put staged commit " + staged + " for version " +
                              std::to_string(version) + " of " + describe_() +
                              " (nothing committed)");
  }
  DC_RETURN_IF_ERROR(RunStep(hooks, prefix + "/after-staged-put"));
  return staged;
}

void RatifiedLog::DropRefused(const std::string& staged, const Status& refusal) {
  const StatusCode code = refusal.code();
  if (refusal.ok() || code == StatusCode::kUnknownOutcome || code == StatusCode::kInternal) return;
  store_.Delete(staged).IgnoreError();
}

}  // namespace deltacommit
