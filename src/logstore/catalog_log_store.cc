#include "deltacommit/logstore/catalog_log_store.h"

#include <utility>

#include "deltacommit/action_json.h"
#include "deltacommit/clock.h"
#include "deltacommit/log_path.h"
#include "logstore/ratified_log.h"

namespace deltacommit {
namespace {

// The commit's timestamp as the catalog records it: its inCommitTimestamp
// (catalog-managed tables have them), else its commitInfo's timestamp, else
// now.
int64_t CommitTimestamp(std::string_view content) {
  const std::string_view first = content.substr(0, content.find('\n'));
  ActionParser parser;
  StatusOr<Action> action = parser.ParseLine(first);
  if (action.ok()) {
    if (const auto* info = std::get_if<CommitInfo>(&*action)) {
      if (info->in_commit_timestamp) return *info->in_commit_timestamp;
      if (info->timestamp) return *info->timestamp;
    }
  }
  return SystemClock().NowMillis();
}

}  // namespace

CatalogLogStore::CatalogLogStore(ObjectStore& store, CatalogClient& client, CatalogTableName name,
                                 std::string table_id, StepHooks* hooks, bool registered)
    : store_(store),
      client_(client),
      name_(std::move(name)),
      table_id_(std::move(table_id)),
      hooks_(hooks),
      registered_(registered) {
  ratified_ = std::make_unique<RatifiedLog>(
      store_, [this](Version start) { return Fetch(start); }, [this] { return Describe(); });
}

CatalogLogStore::~CatalogLogStore() = default;

std::string CatalogLogStore::Describe() const {
  return "unity-catalog " + name_.FullName() + " via " + client_.Describe();
}

StatusOr<PendingCommits> CatalogLogStore::Fetch(Version start) {
  if (!registered_.load()) return PendingCommits{};  // the catalog has nothing yet
  DC_ASSIGN_OR_RETURN(CatalogTable table, client_.LoadTable(name_));
  if (table.table_id != table_id_) {
    return FailedPreconditionError(Describe() + ": the catalog's table is now " + table.table_id +
                                   ", not " + table_id_ +
                                   " (dropped and created again): open it again");
  }
  PendingCommits pending;
  pending.latest_version = table.commits.latest_version;
  for (PendingCommit& c : table.commits.commits) {
    if (c.version >= start) pending.commits.push_back(std::move(c));
  }
  return pending;
}

Status CatalogLogStore::Write(Version version, std::string_view content) {
  if (version < 0) {
    return InvalidArgumentError("negative version " + std::to_string(version) + " for " +
                                Describe());
  }
  if (version == 0) {
    // Creation at the staging location: the catalog registers the table
    // after version 0 exists (PROTOCOL.md "Creating ... Catalog-managed
    // Tables").
    DC_RETURN_IF_ERROR(RunStep(hooks_, "catalog/before-put-0"));
    return store_.PutIfAbsent(CommitPath(0), content)
        .WithContext("write version 0 of " + Describe());
  }
  DC_ASSIGN_OR_RETURN(const std::string staged,
                      ratified_->PutStaged(version, content, hooks_, "catalog"));
  CatalogCommit commit;
  commit.version = version;
  commit.staged_file = staged;
  commit.size = static_cast<int64_t>(content.size());
  commit.modification_ms = SystemClock().NowMillis();
  commit.timestamp_ms = CommitTimestamp(content);
  const Version backfilled = backfilled_.load();
  Status ratified = client_.Commit(name_, table_id_, commit,
                                   backfilled >= 0 ? std::optional(backfilled) : std::nullopt);
  ratified_->DropRefused(staged, ratified);
  DC_RETURN_IF_ERROR(
      ratified.WithContext("version " + std::to_string(version) + " of " + Describe()));
  DC_RETURN_IF_ERROR(RunStep(hooks_, "catalog/after-ratify"));
  // The commit stands; publishing is a service to readers (see the header).
  if (Status published = Publish(version, content); !published.ok() && warn_) {
    warn_("version " + std::to_string(version) + " of " + Describe() +
          " is committed (the catalog ratified it), but publishing it to " +
          CommitPath(version) + " failed: " + published.ToString() +
          (published.code() == StatusCode::kDataLoss
               ? "; something wrote the table around its catalog: run deltacommit check"
               : "; readers through the catalog see it, and filesystem readers will once the "
                 "catalog or a later writer publishes it"));
  }
  return RunStep(hooks_, "catalog/after-publish");
}

Status CatalogLogStore::Publish(Version version, std::string_view content) {
  auto put = [&](Version v, std::string_view bytes) -> Status {
    Status st = store_.PutIfAbsent(CommitPath(v), bytes);
    if (st.code() != StatusCode::kAlreadyExists) return st;
    // Published already (by the catalog's server, or another writer):
    // counted only when it is this commit, byte for byte. Anything else
    // was written around the catalog, and stops publishing.
    DC_ASSIGN_OR_RETURN(std::string existing, store_.Get(CommitPath(v)));
    if (existing == bytes) return OkStatus();
    return DataLossError(CommitPath(v) + " of " + Describe() +
                         " differs from the commit the catalog ratified as version " +
                         std::to_string(v));
  };
  if (ratified_->published_through() < version - 1) {
    // Commits must be published in order: first those of other writers
    // that the catalog still holds below this one.
    DC_ASSIGN_OR_RETURN(PendingCommits pending,
                        ratified_->Pending(ratified_->published_through() + 1));
    for (const PendingCommit& c : pending.commits) {
      if (c.version >= version) break;
      DC_ASSIGN_OR_RETURN(std::string earlier, store_.Get(c.staged_file));
      DC_RETURN_IF_ERROR(put(c.version, earlier));
      ratified_->NotePublishedThrough(c.version);
    }
    if (ratified_->published_through() < version - 1) {
      return FailedPreconditionError("version " + std::to_string(version - 1) + " of " +
                                     Describe() + " is not published yet");
    }
  }
  DC_RETURN_IF_ERROR(put(version, content));
  ratified_->NotePublishedThrough(version);
  Version known = backfilled_.load();
  while (version > known && !backfilled_.compare_exchange_weak(known, version)) {
  }
  return OkStatus();
}

StatusOr<std::vector<ObjectMeta>> CatalogLogStore::List(Version from) {
  return ratified_->List(from);
}

StatusOr<std::string> CatalogLogStore::Read(std::string_view key) { return ratified_->Read(key); }

}  // namespace deltacommit
