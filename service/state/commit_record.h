// CommitRecord: one ratified commit of a table as the commit service's state
// store keeps it (docs/protocols/service.md). The staged object it names holds
// the commit's actions; the record is what makes that object version v.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::service {

// A `txn` action of a commit: application `app_id` is at `txn_version`.
struct AppTxn {
  std::string app_id;
  int64_t txn_version = 0;
  friend bool operator==(const AppTxn&, const AppTxn&) = default;
};

// Where an application's latest txn landed: the commit version that holds
// it. Appends use it to answer a writer's retry (issue 9).
struct AppliedTxn {
  int64_t txn_version = 0;
  Version commit_version = -1;
  friend bool operator==(const AppliedTxn&, const AppliedTxn&) = default;
};

struct CommitRecord {
  std::string
      table;  // normalised table URI, e.g. "s3://bucket/path" (no trailing '/')
  Version version = -1;
  // Relative to the table root: "_delta_log/_staged_commits/<v 20
  // digits>.<uuid>.json".
  std::string staged_file;
  std::string
      content_sha256;  // lower-case hex SHA-256 of the staged object's bytes
  int64_t size = 0;    // bytes of the staged object
  int64_t ratified_at_ms = 0;  // the service's clock when ratified, epoch ms
  // The commit's in-commit timestamp (commitInfo.inCommitTimestamp), epoch
  // ms: readers of unpublished commits need it without reading the object.
  int64_t commit_timestamp_ms = 0;
  // Set by reads: _delta_log/<v>.json has been written (the store was told
  // so with MarkPublishedThrough). Ratify ignores it.
  bool published = false;
  // The commit's txn actions (distinct app ids). Ratify records each as the
  // application's latest (StateStore::LatestAppTxn); reads leave it empty.
  std::vector<AppTxn> app_txns;

  friend bool operator==(const CommitRecord&, const CommitRecord&) = default;
};

// True when `a` and `b` are the same commit: same table, version, staged
// file, content hash and size (not the times, nor `published`). A client
// whose reply was lost sends its commit again; the same commit is then
// success, a different one a conflict.
bool SameCommit(const CommitRecord& a, const CommitRecord& b);

// OK when `record` can be ratified; otherwise kInvalidArgument naming the
// field: empty table or one ending in '/', version < 0, staged_file that is
// not a staged commit of `version`, content_sha256 that is not 64 lower-case
// hex digits, size < 0.
Status ValidateCommitRecord(const CommitRecord& record);

// "version 7 of s3://b/t (_delta_log/_staged_commits/...json, 123 bytes,
// sha256 0f1e...)", for messages.
std::string DescribeCommit(const CommitRecord& record);

// The argument checks every StateStore call makes: kInvalidArgument for an
// empty table, a negative version, a limit below 1.
Status CheckStateArguments(const std::string& table, Version version);
Status CheckStateLimit(int64_t limit);

}  // namespace deltacommit::service
