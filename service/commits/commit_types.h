// The commit service's requests and replies (docs: the API draft, `POST
// /v1/commits` and `GET /v1/tables/{table}/commits`), as values with no HTTP
// in them: the HTTP layer parses JSON into a CommitRequest and maps a
// CommitReply's outcome to a status code and error body.
//
// Thread-safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/credentials.h"
#include "service/state/commit_record.h"

namespace deltacommit::service {

// An S3 endpoint as the configuration resolved it for one request.
struct S3Endpoint {
  std::string name;               // "default", "eu-minio": messages, metrics
  aws::AwsServiceConfig service;  // URL, region, addressing style
  // PUT with `If-None-Match: *` is enforced atomically (AWS S3, Ceph RGW,
  // MinIO, R2). Where it is not, only the service's state store keeps two
  // commits of one version apart, so every writer of such a table must go
  // through the service.
  bool enforces_if_none_match = true;
};

// What reaches one table's log: where, and signed as whom.
struct TableAccess {
  // Normalised "s3://bucket/prefix", or "file:///path" for a local table
  // (service/config/local_tables.h), already validated.
  std::string table;
  S3Endpoint endpoint;
  // The writer's temporary credentials: in memory only, never logged or
  // stored; dropped when they expire. None for a local table.
  aws::Credentials credentials;
  // A local table: the [local] root that covers it, beneath which its
  // store follows no symbolic link.
  std::string local_root;
  // A local table is written as the service's own user: no credentials to
  // check or to expire.
  bool local() const { return table.starts_with("file://"); }
};

// POST /v1/commits. Exactly one of `actions` (service mode) and
// `staged_file` (coordinated mode) is set. An append (docs/protocols/
// group-commit.md) has `actions`, no version (-1) and a read_version.
struct CommitRequest {
  TableAccess access;
  Version version = -1;
  // A blind append: the service assigns the version and may merge it with
  // other appends to the table into one commit.
  bool append = false;
  // An append's snapshot version: the one its data files were written for.
  Version read_version = -1;
  // Service mode: the commit file's bytes, JSON lines as they will be
  // written to _delta_log/<version>.json.
  std::optional<std::string> actions;
  // Coordinated mode: the staged commit the writer put, relative to the
  // table root: "_delta_log/_staged_commits/<version 20 digits>.<uuid>.json".
  std::optional<std::string> staged_file;
  // Coordinated mode: the staged commit's size as the writer states it
  // (Unity Catalog's commit_info.file_size); another size is kBadRequest.
  std::optional<int64_t> staged_size;
  // Coordinated mode: at most this many ratified, unpublished commits per
  // table, this one included (Unity Catalog's cap); 0: no cap. Over it:
  // kTooManyUnpublished.
  int64_t max_unpublished = 0;
};

enum class CommitOutcome {
  kOk,                   // committed (or a replay of a commit already made)
  kVersionTaken,         // another commit is `version`; latest is set
  kVersionAhead,         // `version` is not latest + 1; latest is set
  kBadRequest,           // malformed actions, a path outside the table, ...
  kTooLarge,             // the commit is over the configured limits
  kCredentialsInvalid,   // missing or expired: nothing was sent to S3
  kCredentialsRejected,  // S3 refused them (names the S3 action, resource)
  kUnavailable,          // S3 or the state store failed; retry later
  // The table's log disagrees with the ratified commits (a `<v>.json`
  // written around the service, a staged commit gone or changed): the
  // service never overwrites, so an operator must look. Not retryable.
  kLogInconsistent,
  // An append whose read_version predates the table's last protocol or
  // metaData change (latest: that version): reload, rewrite, append again.
  kMetadataChanged,
  // An append some of whose txns are applied and some not: another writer
  // uses the same appId. Not retryable as is.
  kTxnConflict,
  // The service cannot assign versions for this table (it cannot find the
  // table's protocol and metaData in its JSON commits): commit with a
  // version instead.
  kAppendUnavailable,
  // A local table's files refuse the request (a symbolic link or a file
  // that is not a regular one where the service reads or writes): nothing
  // was read through it or written.
  kForbidden,
  // The table has max_unpublished ratified commits waiting to be published:
  // retry once the publisher (or the writer) has published some.
  kTooManyUnpublished,
};

// The API's error code: "ok", "version_taken", "version_ahead",
// "bad_request", "too_large", "credentials_invalid", "credentials_rejected",
// "unavailable", "log_inconsistent", "metadata_changed", "txn_conflict",
// "append_unavailable", "forbidden", "too_many_unpublished".
std::string_view CommitOutcomeName(CommitOutcome outcome);

struct CommitReply {
  CommitOutcome outcome = CommitOutcome::kUnavailable;
  Version version = -1;    // kOk: the committed version
  bool published = false;  // kOk: _delta_log/<version>.json exists
  // kOk for an append: how many appends share `version` (1: alone); 0 for
  // a duplicate.
  int64_t merged = 0;
  // kOk for an append whose every txn was applied before (the retry of an
  // append whose reply was lost): `version` is where it landed, -1 when a
  // later txn of its appId superseded that record.
  bool duplicate = false;
  // kOk for an append on a table with in-commit timestamps: the one of
  // `version`'s commitInfo, so that a writer whose append is alone in
  // `version` can apply it without reading it back.
  std::optional<int64_t> in_commit_timestamp;
  // kOk: the request repeated a commit already made (same version, same
  // staged file and bytes); nothing was written for it now. `latest` is
  // then the latest version as the service saw it.
  bool replay = false;
  // kVersionTaken, kVersionAhead: the latest ratified (or, for a table the
  // service had no state for, published) version; -1 for an empty log.
  // kMetadataChanged: the version that changed the protocol or metadata.
  std::optional<Version> latest;
  std::string message;  // not kOk: what was wrong and what to do
  // kCredentialsRejected: "access_denied" (S3 accepted the credentials but
  // they lack a permission) or "invalid_credentials" (S3 did not accept
  // them: unknown key, bad signature, invalid or expired session token), so
  // that clients need not read the message.
  std::string reason;

  bool ok() const { return outcome == CommitOutcome::kOk; }

  static CommitReply Ok(Version version, bool published);
  static CommitReply VersionTaken(Version latest, std::string message);
  static CommitReply VersionAhead(Version latest, std::string message);
  static CommitReply Error(CommitOutcome outcome, std::string message);
};

// GET /v1/tables/{table}/commits?start=V.
struct PendingCommitList {
  Version latest = -1;  // the latest ratified version; -1: no state
  std::vector<CommitRecord> commits;  // unpublished, version >= start, ascending
};

}  // namespace deltacommit::service
