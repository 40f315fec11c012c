// LogStore: the port through which a writer puts version N of a table's log
// exactly once, and through which readers list and read the log. Each commit
// mode of docs/protocols/ is one implementation (docs/architecture.md).
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit {

// Where a blind append landed (LogStore::AppendBlind).
struct BlindAppendResult {
  Version version = -1;
  // Its txn was applied before (a retry after a lost reply): `version` is
  // where it landed, -1 when a later txn of its appId superseded it.
  bool duplicate = false;
  int64_t merged = 1;  // appends that share `version`
  // The in-commit timestamp the store gave `version`, on a table that has
  // them; with merged == 1 a writer holding version - 1 can apply its own
  // append without reading it back.
  std::optional<int64_t> in_commit_timestamp;
};

class LogStore {
 public:
  virtual ~LogStore() = default;

  // e.g. "local file:///data/t", "s3-conditional s3://b/t".
  virtual std::string Describe() const = 0;

  // Makes `content` version `version` of the log, at most once across all
  // writers. OK: this call's content is version `version`.
  // kAlreadyExists: the version was taken (possibly by an earlier attempt of
  //   this writer whose reply was lost: compare the content to tell).
  // kUnknownOutcome: it may or may not have been written; read back.
  virtual Status Write(Version version, std::string_view content) = 0;

  // Log files (keys relative to the table root, under "_delta_log/") whose
  // version is >= `from` (any other log file too, e.g. "_last_checkpoint";
  // callers parse names), sorted by key. Implementations that keep commits
  // elsewhere (coordinated) include them, and may repair incomplete writes
  // first (s3-dynamodb).
  virtual StatusOr<std::vector<ObjectMeta>> List(Version from) = 0;

  // True if List presents ratified but unpublished commits under their
  // "_delta_log/_staged_commits/<v>.<uuid>.json" keys (coordinated mode):
  // readers then take such a key as commit v. Otherwise staged files in a
  // listing are ignored: nothing says they were ever ratified.
  virtual bool ListsRatifiedStagedCommits() const { return false; }

  // The content of a log file by key. kNotFound if absent.
  virtual StatusOr<std::string> Read(std::string_view key) = 0;

  // The commit coordinator through which this store commits (the name a
  // coordinated table gives in delta.coordinatedCommits.commitCoordinator-
  // preview; see commit_coordinator.h), or "" for a store that puts
  // `<v>.json` itself. Transactions refuse tables whose coordinator differs.
  virtual std::string CommitCoordinator() const { return ""; }

  // The catalog through which this store commits a catalog-managed table
  // (the catalogManaged feature; "catalog http://host:port"), or "" for a
  // store that does not. Transactions refuse catalog-managed tables for
  // the others: they would commit around the catalog.
  virtual std::string ManagingCatalog() const { return ""; }

  // The coordinator's configuration recorded in tables created through this
  // store (...commitCoordinatorConf-preview): a JSON object of strings.
  virtual std::string CommitCoordinatorConf() const { return "{}"; }

  // True if the store picks the version of a blind append itself (the
  // commit service: docs/protocols/group-commit.md), so the writer needs no
  // race for latest + 1 and no retry loop.
  virtual bool AssignsVersions() const { return false; }

  // Commits `content` (adds with dataChange, a txn, a commitInfo) written
  // for snapshot `read_version` at the version the store picks.
  // kFailedPrecondition: not here (the metadata changed after read_version,
  //   the appId is in use, or the store cannot assign versions for this
  //   table): commit with a version instead.
  // kUnknownOutcome: it may have landed; the txn tells (resend it).
  // kUnimplemented unless AssignsVersions().
  virtual StatusOr<BlindAppendResult> AppendBlind(Version read_version, std::string_view content);
};

}  // namespace deltacommit
