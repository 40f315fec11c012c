// Snapshot: the state of a table at one version, replayed from its log:
// protocol, metadata, active files keyed by (path, deletion vector id), the
// latest `txn` version per appId, domain metadata and in-commit timestamps.
//
// Thread-safety: a Snapshot is immutable once built; share it freely.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/active_files.h"
#include "deltacommit/clock.h"
#include "deltacommit/file_map.h"
#include "deltacommit/log_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/status.h"

namespace deltacommit {

class Snapshot {
 public:
  Version version() const { return version_; }
  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  // Keyed by FileKey, in key order; each file decoded as it is iterated
  // (active_files.h).
  const ActiveFiles& active_files() const { return files_; }
  // appId -> latest txn version.
  const std::map<std::string, int64_t>& app_versions() const { return app_versions_; }
  // appId -> the latest `txn` action itself (lastUpdated included), for
  // checkpoints.
  const std::map<std::string, SetTransaction>& transactions() const { return txns_; }
  // Remove tombstones: files removed and not added back since, for
  // checkpoints (VACUUM relies on them). All are kept here; CheckpointActions
  // leaves out those past the retention period.
  const std::map<FileKey, RemoveFile>& tombstones() const { return tombstones_.map(); }
  // domain -> its current (not removed) domainMetadata.
  const std::map<std::string, DomainMetadata>& domain_metadata() const { return domains_; }
  // inCommitTimestamp of the latest commit, when it has one.
  std::optional<int64_t> in_commit_timestamp() const { return in_commit_timestamp_; }
  int64_t size_in_bytes() const { return size_in_bytes_; }

  std::optional<int64_t> AppVersion(const std::string& app_id) const;

 private:
  friend class LogReplay;
  Version version_ = -1;
  Protocol protocol_;
  Metadata metadata_;
  // Shared with the snapshot this one was carried forward from, plus what
  // changed since (active_files.h, file_map.h): a new version costs what
  // changed, not the table's size.
  ActiveFiles files_;
  std::map<std::string, int64_t> app_versions_;
  std::map<std::string, SetTransaction> txns_;
  FileMap<FileKey, RemoveFile> tombstones_;
  std::map<std::string, DomainMetadata> domains_;
  std::optional<int64_t> in_commit_timestamp_;
  int64_t size_in_bytes_ = 0;
};

// Applies commits in version order and produces a Snapshot.
// REQUIRES: Apply is called for contiguous versions, ascending.
class LogReplay {
 public:
  LogReplay();
  // Continues from `base` (a copy of it, sharing its files): Apply the
  // versions after it.
  explicit LogReplay(const Snapshot& base);

  // Applies the actions of `version` (a checkpoint's actions use its version).
  // A version's actions may come in several calls in a row (a checkpoint
  // read in batches): they count as one version. kInvalidArgument if a
  // version adds or removes the same file twice. After an error the replay
  // is left half applied: discard it.
  Status Apply(Version version, std::vector<Action>&& actions);

  // kFailedPrecondition if no protocol or metadata was seen ("missing protocol
  // action"); kUnimplemented if the protocol is not readable by this build
  // (CheckReadSupported names the features).
  StatusOr<std::shared_ptr<const Snapshot>> Finish();

 private:
  class RepeatedKeys;

  std::shared_ptr<Snapshot> snapshot_ = std::make_shared<Snapshot>();
  // The removes of the version being applied; `applying_` once one is.
  std::shared_ptr<RepeatedKeys> removed_;
  bool applying_ = false;
  bool has_protocol_ = false;
  bool has_metadata_ = false;
};

struct SnapshotRequest {
  std::optional<Version> version;      // latest when empty
  ParquetHandler* parquet = nullptr;   // no checkpoint reading when null
  ObjectStore* checkpoint_store = nullptr;  // where checkpoints are read from
  // Commit files fetched at once (read_ahead.h): more than 1 overlaps a
  // remote store's round trips; a local one gains nothing from threads.
  int concurrent_reads = 1;
};

// Lists the log, chooses the segment and replays it. With a checkpoint
// reader, it reads `_last_checkpoint` (last_checkpoint.h) first and lists
// only from the version it names (log.List(version)) when that listing
// holds a complete checkpoint at or after it; otherwise (no hint, a corrupt
// one, a stale one, or a `request.version` before it) it lists from 0.
// kNotFound: no Delta table there, or the version does not exist.
// kFailedPrecondition: gaps in the log, missing protocol/metadata, or a
//   checkpoint is needed and no ParquetHandler given.
// kUnimplemented: a protocol (version or feature) this build cannot read.
// kInvalidArgument / kDataLoss: a commit file that does not parse.
StatusOr<std::shared_ptr<const Snapshot>> LoadSnapshot(LogStore& log,
                                                       const SnapshotRequest& request);

// Brings `base` (loaded from `log`) up to date: lists the log only after
// its version and replays only the commits after it, onto a copy. Returns
// `base` itself when there is no newer commit. When the listing does not
// continue at base's version + 1 (those commits were cleaned up), loads the
// latest snapshot afresh with `request`. Errors as LoadSnapshot's.
StatusOr<std::shared_ptr<const Snapshot>> UpdateSnapshot(LogStore& log,
                                                         std::shared_ptr<const Snapshot> base,
                                                         const SnapshotRequest& request);

// Reads and parses one commit file.
StatusOr<std::vector<Action>> ReadCommit(LogStore& log, Version version);

}  // namespace deltacommit
