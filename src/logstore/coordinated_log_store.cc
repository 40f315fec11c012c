#include "deltacommit/logstore/coordinated_log_store.h"

#include <algorithm>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "deltacommit/commit_coordinator.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "logstore/service_append.h"

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
    // Until the service has published v, its ratified commit is v. A v.json
    // listed anyway was published after the service answered (the same
    // commit) or written around the coordinator (not the commit).
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

// What an answer for versions >= `start` shows published: the service
// publishes in order, so every version before its first unpublished commit
// is published. The answer leaves out unpublished commits below `start`, so
// that holds only when the version before the first one it lists (or its
// latest, when it lists none) is at or above `start`; otherwise it shows
// nothing (-1).
Version PublishedThrough(const PendingCommits& pending, Version start) {
  const Version through =
      pending.commits.empty() ? pending.latest_version : pending.commits.front().version - 1;
  return through >= start ? through : -1;
}

CoordinatedLogStore::CoordinatedLogStore(ObjectStore& store, CommitServiceClient& client,
                                         std::string table_uri, StepHooks* hooks)
    : store_(store), client_(client), table_uri_(std::move(table_uri)), hooks_(hooks) {}

std::string CoordinatedLogStore::CommitCoordinator() const {
  return std::string(kDeltacommitCoordinator);
}

std::string CoordinatedLogStore::CommitCoordinatorConf() const {
  return nlohmann::json{{"serviceUrl", client_.Url()}}.dump();
}

std::string CoordinatedLogStore::Describe() const {
  return "coordinated " + table_uri_ + " via " + client_.Describe();
}

StatusOr<PendingCommits> CoordinatedLogStore::FetchPending(Version start) {
  DC_ASSIGN_OR_RETURN(PendingCommits pending, client_.GetPendingCommits(table_uri_, start));
  const Version through = PublishedThrough(pending, start);
  // One answer lists a bounded number of commits: ask for the rest until
  // the latest, or until an answer lists none (published meanwhile: the
  // store's listing, taken after this, has them).
  for (int page = 0; page < kMaxPendingPages && !pending.commits.empty() &&
                     pending.commits.back().version < pending.latest_version;
       ++page) {
    DC_ASSIGN_OR_RETURN(PendingCommits more, client_.GetPendingCommits(
                                                 table_uri_, pending.commits.back().version + 1));
    if (more.commits.empty()) break;
    pending.latest_version = std::max(pending.latest_version, more.latest_version);
    for (PendingCommit& c : more.commits) pending.commits.push_back(std::move(c));
  }
  Version known = published_through_.load();
  while (through > known && !published_through_.compare_exchange_weak(known, through)) {
  }
  return pending;
}

Status CoordinatedLogStore::WriteFirst(std::string_view content) {
  // Table creation: the service has nothing to coordinate before the table
  // exists (docs/protocols/coordinated.md), so version 0 is created like the
  // filesystem modes create it.
  DC_RETURN_IF_ERROR(RunStep(hooks_, "coordinated/before-put-0"));
  return store_.PutIfAbsent(CommitPath(0), content)
      .WithContext("write version 0 of " + Describe());
}

Status CoordinatedLogStore::Write(Version version, std::string_view content) {
  if (version < 0) {
    return InvalidArgumentError("negative version " + std::to_string(version) + " for " +
                                Describe());
  }
  if (version == 0) return WriteFirst(content);
  const std::string what = "version " + std::to_string(version) + " of " + Describe();
  DC_RETURN_IF_ERROR(RunStep(hooks_, "coordinated/before-staged-put"));
  const std::string staged = StagedCommitPath(version, NewUuid());
  if (Status put = store_.Put(staged, content); !put.ok()) {
    // Nothing is committed until the service ratifies the name, so even a
    // put whose reply was lost is a plain failure.
    Status failed = put.IsUnknownOutcome() ? UnavailableError(put.message()) : put;
    return failed.WithContext("put staged commit " + staged + " for " + what +
                              " (nothing committed)");
  }
  DC_RETURN_IF_ERROR(RunStep(hooks_, "coordinated/after-staged-put"));
  ServiceCommitRequest request;
  request.table = table_uri_;
  request.version = version;
  request.staged_file = staged;
  ServiceCommitResult result = client_.Commit(request);
  const StatusCode code = result.status.code();
  if (!result.status.ok() && code != StatusCode::kUnknownOutcome &&
      code != StatusCode::kInternal) {
    // Refused for good: this name is never sent again, so it can never be
    // ratified. Leftovers are harmless (readers ignore staged files the
    // service does not name), so a failed delete changes nothing.
    store_.Delete(staged).IgnoreError();
  }
  DC_RETURN_IF_ERROR(result.status);
  return RunStep(hooks_, "coordinated/after-ratify");
}

StatusOr<std::vector<ObjectMeta>> CoordinatedLogStore::List(Version from) {
  from = std::max<Version>(from, 0);
  // The service first: see the header.
  DC_ASSIGN_OR_RETURN(PendingCommits pending, FetchPending(from));
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing,
                      store_.List(kLogDir, LogListStartAfter(from)));
  return MergeCoordinatedListing(std::move(listing), pending);
}

StatusOr<std::string> CoordinatedLogStore::Read(std::string_view key) {
  ParsedLogPath p = ParseKey(key);
  if (p.type == LogFileType::kCommit) return ReadCommit(p.version);
  StatusOr<std::string> content = store_.Get(key);
  if (p.type != LogFileType::kStagedCommit || !content.status().IsNotFound()) return content;
  // Cleaned up after publishing: the same commit is N.json now.
  StatusOr<std::string> published = store_.Get(CommitPath(p.version));
  return published.status().IsNotFound() ? content : published;
}

StatusOr<std::string> CoordinatedLogStore::ReadCommit(Version version) {
  // Published versions stay published: no need to ask again.
  if (version <= published_through_.load()) return store_.Get(CommitPath(version));
  DC_ASSIGN_OR_RETURN(PendingCommits pending, FetchPending(version));
  if (pending.latest_version >= 0 && version > pending.latest_version) {
    return NotFoundError(CommitPath(version) + " of " + Describe() +
                         ": not ratified (the service's latest version is " +
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

StatusOr<BlindAppendResult> CoordinatedLogStore::AppendBlind(Version read_version,
                                                std::string_view content) {
  return AppendThroughService(client_, table_uri_, read_version, content, hooks_,
                              assign_versions_);
}

}  // namespace deltacommit
