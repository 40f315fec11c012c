// StateStore: the port to the commit service's durable state
// (docs/protocols/service.md): per table, the ratified commits and how far
// they have been published to _delta_log/<v>.json.
//
// Ratify is the commit point of the service's `coordinated` and `service`
// modes: a version is ratified after the one before it and at most once,
// even with several service instances sharing one store. Publishing (copying
// the staged object to <v>.json) happens in version order afterwards; the
// store only records how far it got (MarkPublishedThrough), so a crashed
// instance's pending publish is found with Unpublished and finished by the
// next request for the table.
//
// A table's state, per implementation:
//   latest             the highest ratified version (records are never
//                      ratified above latest + 1, so 0..latest, or F..latest
//                      for a table first ratified at F, are all ratified)
//   published_through  every version <= it is in _delta_log/<v>.json; set to
//                      F - 1 when the table's first commit F is ratified
//   records            one CommitRecord per ratified version, except those
//                      forgotten (published, below latest)
//
// Codes every call may return besides those listed: kUnavailable (the store
// cannot be reached or is busy), kPermissionDenied, kUnauthenticated,
// kNotFound (the store itself is missing: a DynamoDB table), kDataLoss (a
// stored value this code did not write), kInvalidArgument (an argument out
// of range: empty table, negative version, limit < 1).
//
// Thread-safety: implementations are safe for concurrent use, also by
// several store objects (service instances) on the same backing store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "service/state/commit_record.h"
#include "service/state/ratify_conflict.h"

namespace deltacommit::service {

class StateStore {
 public:
  virtual ~StateStore() = default;

  // e.g. "SQLite file /var/lib/deltacommit/state.db".
  virtual std::string Describe() const = 0;

  // Ratifies `record` (checked with ValidateCommitRecord) as version
  // record.version of record.table: the commit point. Succeeds only when no
  // record holds that version and either it is latest + 1 or the table has no
  // state yet (the caller has then checked the published log itself: the
  // version must follow the highest <v>.json).
  //   kAlreadyExists      the version is taken; conflict->existing holds the
  //                       record (compare with SameCommit: a replay of the
  //                       same commit is the caller's success)
  //   kFailedPrecondition version > latest + 1; the message and
  //                       conflict->latest name latest
  //   kUnknownOutcome     the write may have been applied (reply lost, or an
  //                       I/O error while committing): call Ratify again;
  //                       kAlreadyExists with the same commit means it was
  // `conflict` may be null; it is filled only for the two conflict codes.
  virtual Status Ratify(const CommitRecord& record,
                        RatifyConflict* conflict) = 0;

  // The record of `version`, or nullopt when it was never ratified or was
  // forgotten.
  virtual StatusOr<std::optional<CommitRecord>> Get(const std::string& table,
                                                    Version version) = 0;

  // The record of the table's latest version, or nullopt when the table has
  // no state.
  virtual StatusOr<std::optional<CommitRecord>> Latest(
      const std::string& table) = 0;

  // Up to `limit` records with version >= `start`, ascending. Forgotten
  // versions are not listed.
  virtual StatusOr<std::vector<CommitRecord>> ListFrom(const std::string& table,
                                                       Version start,
                                                       int64_t limit) = 0;

  // Up to `limit` ratified records not yet published, ascending (those
  // above published_through).
  virtual StatusOr<std::vector<CommitRecord>> Unpublished(
      const std::string& table, int64_t limit) = 0;

  // Records that every version <= `version` is in _delta_log/<v>.json (the
  // publisher writes them in order, so <v>.json existing means all before it
  // do). Idempotent; never lowers published_through.
  //   kFailedPrecondition the table has no state, or version > latest (not
  //                       ratified), naming latest
  virtual Status MarkPublishedThrough(const std::string& table,
                                      Version version) = 0;

  // The latest txn of application `app_id` on `table` among the commits
  // ratified here (CommitRecord::app_txns; the last ratified wins, as in log
  // replay), or nullopt when none had one.
  virtual StatusOr<std::optional<AppliedTxn>> LatestAppTxn(const std::string& table,
                                                           std::string_view app_id) = 0;

  // Deletes the records of published versions below `version`, always
  // keeping the latest record (Latest() must keep answering). Returns how
  // many were deleted. Ratification does not depend on these records, so
  // forgetting never lets a version be ratified twice.
  virtual StatusOr<int64_t> ForgetPublishedBefore(const std::string& table,
                                                  Version version) = 0;
};

}  // namespace deltacommit::service
