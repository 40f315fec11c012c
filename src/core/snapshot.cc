#include "deltacommit/snapshot.h"

#include <algorithm>
#include <string>
#include <utility>

#include "deltacommit/action_json.h"
#include "deltacommit/core/last_checkpoint.h"
#include "deltacommit/core/read_ahead.h"
#include "deltacommit/log_path.h"
#include "deltacommit/log_segment.h"
#include "deltacommit/table_features.h"

namespace deltacommit {

std::optional<int64_t> Snapshot::AppVersion(const std::string& app_id) const {
  auto it = app_versions_.find(app_id);
  if (it == app_versions_.end()) return std::nullopt;
  return it->second;
}

// The keys one version inserts into the tombstones, checked for one
// inserted twice: pointers to the keys in the map, not copies. (Active
// files tell a repeat themselves: ActiveFiles::Replaced.) Into a map
// empty before the version (a load's first version, its checkpoint) a
// repeat is a replacement, seen as it happens; otherwise the pointers are
// sorted once all are in. One is kept for the whole replay and started
// afresh for each version.
class LogReplay::RepeatedKeys {
 public:
  void StartVersion(bool map_was_empty) {
    replacements_tell_ = map_was_empty;
    keys_.clear();
    first_ = nullptr;
  }

  // `key` as stored in the map; `replaced`: it replaced a value there.
  void Inserted(const FileKey& key, bool replaced) {
    if (!replacements_tell_) {
      keys_.push_back(&key);
    } else if (replaced && first_ == nullptr) {
      first_ = &key;
    }
  }
  // A key inserted twice, or null. Call once all are in.
  const FileKey* First() {
    if (replacements_tell_ || keys_.size() < 2) return first_;
    std::sort(keys_.begin(), keys_.end(),
              [](const FileKey* a, const FileKey* b) { return *a < *b; });
    auto repeated = std::adjacent_find(keys_.begin(), keys_.end(),
                                       [](const FileKey* a, const FileKey* b) { return *a == *b; });
    return repeated == keys_.end() ? nullptr : *repeated;
  }

 private:
  bool replacements_tell_ = false;
  std::vector<const FileKey*> keys_;
  const FileKey* first_ = nullptr;
};

LogReplay::LogReplay() : removed_(std::make_shared<RepeatedKeys>()) {}

LogReplay::LogReplay(const Snapshot& base)
    : snapshot_(std::make_shared<Snapshot>(base)),
      removed_(std::make_shared<RepeatedKeys>()),
      has_protocol_(true),
      has_metadata_(true) {}

// Within one version the protocol allows at most one add and at most one
// remove per (path, dv id); when both appear the add wins (the remove refers
// to the earlier state), so removes are applied before adds.
Status LogReplay::Apply(Version version, std::vector<Action>&& actions) {
  Snapshot& s = *snapshot_;
  if (!applying_ || version != s.version_) {
    applying_ = true;
    s.version_ = version;
    s.in_commit_timestamp_.reset();
    // Before any key is taken: folding moves them.
    s.files_.BeginVersion();
    s.tombstones_.Compact();
    removed_->StartVersion(s.tombstones_.empty());
  }
  RepeatedKeys& removed = *removed_;
  const auto repeated = [&](const std::string& path, const char* type) {
    return InvalidArgumentError("version " + std::to_string(version) + " has more than one " +
                                type + " action for file \"" + path + "\"");
  };
  bool replaced = false;  // set by the callbacks of the insertion just made
  const auto keep = [&replaced](const RemoveFile&) { replaced = true; };
  const auto erased = [](const RemoveFile&) {};
  for (Action& action : actions) {
    if (auto* r = std::get_if<RemoveFile>(&action)) {
      FileKey key = KeyOf(*r);
      if (std::optional<int64_t> size = s.files_.Erase(key)) s.size_in_bytes_ -= *size;
      replaced = false;
      const FileKey& stored = s.tombstones_.InsertOrAssign(std::move(key), std::move(*r), keep);
      removed.Inserted(stored, replaced);
    } else if (auto* p = std::get_if<Protocol>(&action)) {
      s.protocol_ = std::move(*p);
      has_protocol_ = true;
    } else if (auto* m = std::get_if<Metadata>(&action)) {
      s.metadata_ = std::move(*m);
      has_metadata_ = true;
    } else if (auto* t = std::get_if<SetTransaction>(&action)) {
      s.app_versions_[t->app_id] = t->version;
      s.txns_.insert_or_assign(t->app_id, std::move(*t));
    } else if (auto* d = std::get_if<DomainMetadata>(&action)) {
      if (d->removed) {
        s.domains_.erase(d->domain);
      } else {
        s.domains_.insert_or_assign(d->domain, std::move(*d));
      }
    } else if (auto* c = std::get_if<CommitInfo>(&action)) {
      s.in_commit_timestamp_ = c->in_commit_timestamp;
    }
  }
  if (const FileKey* key = removed.First()) return repeated(key->path, "remove");
  for (Action& action : actions) {
    auto* a = std::get_if<AddFile>(&action);
    if (a == nullptr) continue;
    if (!s.tombstones_.empty()) s.tombstones_.Erase(KeyOf(*a), erased);
    s.size_in_bytes_ += a->size;
    const std::optional<ActiveFiles::Replaced> old = s.files_.InsertOrAssign(*a);
    if (!old) continue;
    s.size_in_bytes_ -= old->size;
    if (old->same_version) return repeated(KeyOf(*a).path, "add");
  }
  return OkStatus();
}

StatusOr<std::shared_ptr<const Snapshot>> LogReplay::Finish() {
  const std::string at = "version " + std::to_string(snapshot_->version_);
  if (!has_protocol_) {
    return FailedPreconditionError(at + ": missing protocol action (the log never sets one)");
  }
  if (!has_metadata_) {
    return FailedPreconditionError(at + ": missing metaData action (the log never sets one)");
  }
  DC_RETURN_IF_ERROR(CheckReadSupported(snapshot_->protocol_).WithContext(at));
  // size_in_bytes_ is kept as files come and go (Apply).
  return std::shared_ptr<const Snapshot>(std::move(snapshot_));
}

StatusOr<std::vector<Action>> ReadCommit(LogStore& log, Version version) {
  const std::string key = CommitPath(version);
  DC_ASSIGN_OR_RETURN(std::string content, log.Read(key));
  ActionParser parser;
  auto actions = parser.ParseCommit(content);
  if (!actions.ok()) return actions.status().WithContext(log.Describe() + " " + key);
  return actions;
}

namespace {

std::vector<std::string> KeysOf(const std::vector<ObjectMeta>& files) {
  std::vector<std::string> keys;
  keys.reserve(files.size());
  for (const ObjectMeta& m : files) keys.push_back(m.key);
  return keys;
}

Status ApplyCheckpoint(const LogSegment& segment, const SnapshotRequest& request,
                       LogReplay& replay) {
  const std::vector<std::string> keys = KeysOf(segment.checkpoint_files);
  // Applied as they are decoded: a large checkpoint's actions are never
  // all held at once.
  const Version version = *segment.checkpoint_version;
  return request.parquet->ReadCheckpointInBatches(
      *request.checkpoint_store, keys,
      [&replay, version](std::vector<Action>& actions) {
        return replay.Apply(version, std::move(actions));
      });
}

Status ApplyCommitInfoOf(LogStore& log, Version version, LogReplay& replay) {
  auto actions = ReadCommit(log, version);
  if (actions.status().IsNotFound()) return OkStatus();
  if (!actions.ok()) return actions.status();
  std::vector<Action> info;
  for (Action& a : *actions) {
    if (std::holds_alternative<CommitInfo>(a)) info.push_back(std::move(a));
  }
  return replay.Apply(version, std::move(info));
}

// Parses and applies `commits` (ascending) in order, as `reads` fetches them.
Status ReplayCommits(LogStore& log, ReadAhead& reads, const std::vector<ObjectMeta>& commits,
                     LogReplay& replay) {
  ActionParser parser;
  for (size_t i = 0; i < commits.size(); ++i) {
    const std::string& key = commits[i].key;
    DC_ASSIGN_OR_RETURN(std::string content, reads.Take(i));
    auto actions = parser.ParseCommit(content);
    if (!actions.ok()) return actions.status().WithContext(log.Describe() + " " + key);
    ParsedLogPath parsed = ParseLogPath(std::string_view(key).substr(kLogDir.size()));
    DC_RETURN_IF_ERROR(replay.Apply(parsed.version, std::move(actions).value()));
  }
  return OkStatus();
}

// The version `_last_checkpoint` names, when there is a usable hint for
// `request`: it is readable, parses, and the wanted version is not before
// it. (Time travel to a version before the hint lists from 0: the newest
// checkpoint at or below that version cannot be found without a listing.)
// Any failure means no hint: it only saves listing time.
std::optional<Version> HintedCheckpoint(LogStore& log, const SnapshotRequest& request) {
  auto content = log.Read(LastCheckpointPath());
  if (!content.ok()) return std::nullopt;
  auto hint = ParseLastCheckpoint(*content);
  if (!hint.ok()) return std::nullopt;
  if (request.version && *request.version < hint->version) return std::nullopt;
  return hint->version;
}

// The segment for `request`, from a listing of the log from the hinted
// checkpoint's version when that listing holds a complete checkpoint at or
// after it (the hinted one or, when the hint lags, a newer one), else from
// a listing of the whole log. A hint that names a checkpoint whose files
// are gone or incomplete, or a version past the end of the log, yields no
// such segment and costs one listing more.
StatusOr<LogSegment> ChooseSegment(LogStore& log, const SnapshotRequest& request,
                                   const LogSegmentRequest& seg_request) {
  // Without a checkpoint reader the table is read from version 0 anyway.
  std::optional<Version> from;
  if (seg_request.can_read_checkpoints) from = HintedCheckpoint(log, request);
  if (from && *from > 0) {
    DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, log.List(*from));
    auto segment = BuildLogSegment(listing, seg_request, log.Describe());
    if (segment.ok() && segment->checkpoint_version && *segment->checkpoint_version >= *from) {
      return segment;
    }
  }
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, log.List(0));
  return BuildLogSegment(listing, seg_request, log.Describe());
}

}  // namespace

StatusOr<std::shared_ptr<const Snapshot>> LoadSnapshot(LogStore& log,
                                                       const SnapshotRequest& request) {
  LogSegmentRequest seg_request;
  seg_request.version = request.version;
  seg_request.staged_commits_are_ratified = log.ListsRatifiedStagedCommits();
  seg_request.can_read_checkpoints =
      request.parquet != nullptr && request.checkpoint_store != nullptr;
  DC_ASSIGN_OR_RETURN(LogSegment segment, ChooseSegment(log, request, seg_request));
  // The commits are fetched while the checkpoint is read.
  ReadAhead commit_reads(log, KeysOf(segment.commits), request.concurrent_reads);
  LogReplay replay;
  if (segment.checkpoint_version) DC_RETURN_IF_ERROR(ApplyCheckpoint(segment, request, replay));
  if (segment.checkpoint_version && segment.commits.empty()) {
    // Checkpoints hold no commitInfo: the in-commit timestamp of the version
    // itself comes from its commit file, when it is still there.
    DC_RETURN_IF_ERROR(ApplyCommitInfoOf(log, *segment.checkpoint_version, replay));
  }
  DC_RETURN_IF_ERROR(ReplayCommits(log, commit_reads, segment.commits, replay));
  return replay.Finish();
}

StatusOr<std::shared_ptr<const Snapshot>> UpdateSnapshot(LogStore& log,
                                                         std::shared_ptr<const Snapshot> base,
                                                         const SnapshotRequest& request) {
  const Version after = base->version();
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, log.List(after + 1));
  DC_ASSIGN_OR_RETURN(std::optional<std::vector<ObjectMeta>> commits,
                      CommitsAfter(listing, after, log.ListsRatifiedStagedCommits(),
                                   log.Describe()));
  if (!commits) {
    SnapshotRequest latest = request;
    latest.version.reset();
    return LoadSnapshot(log, latest);
  }
  if (commits->empty()) return base;
  ReadAhead commit_reads(log, KeysOf(*commits), request.concurrent_reads);
  LogReplay replay(*base);
  DC_RETURN_IF_ERROR(ReplayCommits(log, commit_reads, *commits, replay));
  return replay.Finish();
}

}  // namespace deltacommit
