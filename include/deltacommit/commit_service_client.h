// CommitServiceClient: the port to the commit service (`deltacommit serve`,
// docs/protocols/service.md, docs/protocols/coordinated.md; the API is
// docs/api.md). The `service` and `coordinated` log stores are written
// against it; the HTTP client that implements it (src/adapters/service/)
// adds the bearer token, the writer's temporary AWS credentials and the
// allowlisted endpoint name.
//
// Codes of Commit (and of PendingCommits where they apply):
//   OK                  the service ratified this request's commit as
//                       `version` (also when an earlier attempt with the same
//                       content, or the same staged name, had: a retry after a
//                       lost reply is idempotent).
//   kAlreadyExists      version_taken: another commit is `version`.
//   kFailedPrecondition version_ahead: `version` is not latest+1; for an
//                       append: metadata_changed, txn_conflict or
//                       append_unavailable (commit with a version instead).
//   kInvalidArgument    the service refused the request as malformed (400) or
//                       too large (413).
//   kUnauthenticated    no or unknown bearer token (401); credentials missing,
//                       malformed or expired (422), or S3 refused them (424).
//   kPermissionDenied   the token may not use this table or endpoint (403);
//                       S3 denied the action with these credentials (424).
//   kUnavailable        the service or one of its dependencies is down (503,
//                       or it could not be reached at all): nothing committed.
//   kUnknownOutcome     the commit may or may not have been ratified (the
//                       reply was lost); read back, or resend the same
//                       content, which is safe.
// Messages are the service's, with the service URL, table and version.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

struct ServiceCommitRequest {
  std::string table;  // the table root, "s3://bucket/prefix"
  Version version = -1;  // -1 for an append
  // A blind append (docs/protocols/group-commit.md): `actions` only, which
  // must hold a txn (so that resending after a lost reply is recognised);
  // the service assigns the version, and may merge it with others.
  bool append = false;
  Version read_version = -1;  // an append's snapshot version
  // Exactly one of the two:
  std::string actions;      // service mode: the commit file's content
  std::string staged_file;  // coordinated: "_delta_log/_staged_commits/<v>.<uuid>.json"
};

struct [[nodiscard]] ServiceCommitResult {
  Status status;
  Version version = -1;    // OK: the committed version (an append's assigned one)
  int64_t merged = 0;      // OK append: appends that share `version`
  bool duplicate = false;  // OK append: its txns were applied before (at
                           // `version`; -1 when superseded)
  bool published = false;  // OK: `<v>.json` exists already (service mode)
  // kAlreadyExists / kFailedPrecondition (409): the service's latest
  // ratified version, when it said.
  std::optional<Version> latest_version;
  std::string error_code;  // refused: the API's error.code ("append_unavailable", ...)
  // OK append on a table with in-commit timestamps: the one the service
  // gave `version` (it writes the commitInfo of an append).
  std::optional<int64_t> in_commit_timestamp;
};

// A ratified commit that is not yet published as `_delta_log/<v>.json`.
struct PendingCommit {
  Version version = -1;
  std::string staged_file;  // relative to the table root
  int64_t size = 0;
  int64_t commit_timestamp_ms = 0;
  friend bool operator==(const PendingCommit&, const PendingCommit&) = default;
};

struct PendingCommits {
  // The service's latest ratified version of the table; -1 when it has none
  // (no commit has gone through it yet).
  Version latest_version = -1;
  std::vector<PendingCommit> commits;  // ascending by version
};

class CommitServiceClient {
 public:
  virtual ~CommitServiceClient() = default;

  // "commit service http://host:8642", for messages.
  virtual std::string Describe() const = 0;

  // The service's base URL ("http://host:8642"), recorded in the tables
  // created coordinated by it.
  virtual std::string Url() const = 0;

  virtual ServiceCommitResult Commit(const ServiceCommitRequest& request) = 0;

  // Ratified, unpublished commits of `table` with version >= `start`.
  virtual StatusOr<PendingCommits> GetPendingCommits(std::string_view table,
                                                     Version start) = 0;
};

}  // namespace deltacommit
