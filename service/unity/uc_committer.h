// UcCommitter: the coordinated commits of the catalog's managed tables, as
// both of Unity Catalog's commit APIs make them: the preview API
// (/delta/preview/commits, uc_commits_api.h) and the Delta REST API's
// update-table (/delta/v1/..., delta_rest_api.h). Each API reads its own
// request and writes its own answer; what a commit means is written once,
// here:
//
//   Find        the managed table of an id, once the token may act on its
//               name and its storage location; for a table on S3 the
//               service's own READ_WRITE session (it reads the staged
//               commit and publishes it; the client sends no credentials,
//               except to a bucket whose credentials pass through, where
//               the writer's own are that session)
//   Ratify      the staged file _delta_log/_staged_commits/<file_name> as
//               version v, only after v-1 and at most once (a resend of the
//               same version and file is a replay), at most
//               max_unpublished_commits waiting
//   Backfilled  a writer's "published through v": a hint that schedules
//               the publisher, answered once the publisher has checked and
//               recorded those versions
//   Pending     the ratified commits not yet published
//   ApplyMetadata  a change of the catalog's entry that belongs to commit
//               v: applied only over an older commit's
//
// Thread-safety: safe for concurrent use; every dependency is.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "service/commits/commit_service.h"
#include "service/http/json_logger.h"
#include "service/unity/uc_api_deps.h"
#include "service/vend/credential_vendor.h"

namespace deltacommit::service::unity {

struct UcCommitsDeps {
  UnityApiDeps names;
  CommitService* commits = nullptr;
  // Unity Catalog's cap on unbackfilled commits per table (its server: 10).
  int64_t max_unpublished_commits = 10;
  // Where a commit whose catalog metadata could not be updated is told
  // (null: nowhere).
  http::JsonLogger* logger = nullptr;
  // Credentials for commits to S3 tables: the service reads the staged
  // commit and publishes it as a session it vends itself (READ_WRITE on the
  // table's prefix). Null: only local tables are committed to.
  CredentialVendor* vendor = nullptr;
};

// A commit's description as UC's APIs carry it (DeltaCommitInfo, and the
// Delta API's DeltaCommit).
struct UcCommitInfo {
  int64_t version = 0;
  int64_t timestamp = 0;  // in-commit timestamp, epoch ms
  std::string file_name;  // "<v 20 digits>.<uuid>.json", no directory
  int64_t file_size = 0;
  int64_t file_modification_timestamp = 0;
};

// How an API spells a commit's fields: UC REST's snake_case (DeltaCommitInfo)
// or the Delta API's kebab-case (DeltaCommit).
struct UcCommitFields {
  const char* version;
  const char* timestamp;
  const char* file_name;
  const char* file_size;
  const char* file_modification_timestamp;
};
inline constexpr UcCommitFields kUcRestCommitFields = {"version", "timestamp", "file_name",
                                                       "file_size", "file_modification_timestamp"};
inline constexpr UcCommitFields kDeltaApiCommitFields = {
    "version", "timestamp", "file-name", "file-size", "file-modification-timestamp"};

// Reads and checks a commit's description as UC's server does: every field
// present, numbers > 0, the file name one plain path segment.
// kInvalidArgument naming the field as `where`.<field>.
StatusOr<UcCommitInfo> ParseCommitInfo(const nlohmann::json& object, std::string_view where,
                                       const UcCommitFields& fields);

// The table a commit goes to, and how the service reaches its storage.
struct UcCommitTarget {
  TableEntry table;
  TableAccess access;
};

// What a table's commit history holds beyond its published files.
struct UcPendingCommits {
  std::vector<UcCommitInfo> commits;  // oldest first
  // The latest ratified version; 0 when none is (a managed table's version
  // 0 is written by its creator), and never below a commit listed.
  Version latest_version = 0;
};

class UcCommitter {
 public:
  explicit UcCommitter(UcCommitsDeps deps) : deps_(deps) {}

  // The managed table of `table_id` once `token` may do `action` (read or
  // commit) on its name and location; for kCommit on S3, with the
  // service's own session. Errors as UcErrorFor(status, UcObject::kTable)
  // reads them: kInvalidArgument for a malformed id or an EXTERNAL table,
  // kNotFound, kPermissionDenied, and the vendor's.
  // `sent`: the request's credential headers (for a pass-through bucket).
  StatusOr<UcCommitTarget> Find(const TokenConfig& token, const std::string& table_id,
                                Action action,
                                const service_wire::SentCredentials& sent = {}) const;

  // Ratifies `info` as its version; nullopt when it landed (also as a
  // replay), else the error to answer in either API's shape. `file_field`
  // names the file name's field in messages ("commit_info.file_name").
  std::optional<UcError> Ratify(const UcCommitTarget& target, const UcCommitInfo& info,
                                std::string_view file_field) const;

  // A writer reports versions up to `version` published.
  std::optional<UcError> Backfilled(const UcCommitTarget& target, Version version) const;

  StatusOr<UcPendingCommits> Pending(const std::string& table) const;

  // Applies `change` to the catalog's entry of `table_id` as commit
  // `version`'s metadata, unless a later commit's metadata is there
  // already (no `version`: a change of the entry alone, made whatever
  // commits hold). A compare-and-set on updated_at_ms, retried a few times
  // on a fresh read; an error of `change` stops it and is returned.
  Status ApplyMetadata(const std::string& table_id, std::optional<Version> version,
                       const std::function<Status(TableEntry&)>& change) const;

  // Logs (never answers) a ratified commit whose catalog entry could not
  // be updated: the commit stands, an error would make the writer commit
  // its transaction again as the next version.
  void WarnMetadataNotApplied(const std::string& table_id, Version version,
                              const Status& failure) const;

  const UcCommitsDeps& deps() const { return deps_; }

 private:
  // True once no ratified commit at or below `through` waits to be
  // published (polling for up to 2 s).
  bool WaitPublishedThrough(const std::string& table, Version through) const;

  const UcCommitsDeps deps_;
};

}  // namespace deltacommit::service::unity
