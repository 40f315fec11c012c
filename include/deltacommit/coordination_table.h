// CoordinationTable: the port to the external table that gives S3 mutual
// exclusion in the `s3-dynamodb` mode (docs/protocols/s3-dynamodb.md). Its
// entries are exactly Delta Spark's S3DynamoDBLogStore items, shared with
// Spark and delta-rs writers: key tablePath (S, HASH) + fileName (S, RANGE);
// tempPath (S), complete (S "true"/"false"), expireTime (N, epoch seconds,
// complete entries only).
//
// Every read is strongly consistent.
// Codes every call may return besides those listed: kUnavailable,
// kUnauthenticated, kPermissionDenied, kNotFound (the table does not exist).
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/status.h"

namespace deltacommit {

struct ExternalCommitEntry {
  std::string table_path;  // table root URI as configured, no trailing '/'
  std::string file_name;   // "00000000000000000007.json"
  std::string temp_path;   // relative to _delta_log: ".tmp/00000000000000000007.json.<uuid>"
  bool complete = false;
  std::optional<int64_t> expire_time;  // epoch seconds; set when complete
  friend bool operator==(const ExternalCommitEntry&, const ExternalCommitEntry&) = default;
};

// One page of CoordinationTable::ListPage.
struct CommitEntryPage {
  std::vector<ExternalCommitEntry> entries;  // ascending by file_name
  // Where the next page starts (its `start_after`); nullopt: no more entries.
  std::optional<std::string> next_start_after;
};

class CoordinationTable {
 public:
  virtual ~CoordinationTable() = default;

  // e.g. "DynamoDB table delta_log (us-east-1, http://127.0.0.1:8000)".
  virtual std::string Describe() const = 0;

  // Creates `entry` only if no entry has its (table_path, file_name): the
  // commit point. kAlreadyExists if taken; kUnknownOutcome if the reply was
  // lost (read back with Get).
  virtual Status PutIfAbsent(const ExternalCommitEntry& entry) = 0;

  // Creates or replaces `entry` (used to mark it complete).
  virtual Status Put(const ExternalCommitEntry& entry) = 0;

  // The entry, or nullopt when absent.
  virtual StatusOr<std::optional<ExternalCommitEntry>> Get(const std::string& table_path,
                                                           const std::string& file_name) = 0;

  // The entry with the greatest file_name for `table_path`, or nullopt.
  virtual StatusOr<std::optional<ExternalCommitEntry>> GetLatest(
      const std::string& table_path) = 0;

  // The entries of `table_path` whose file_name sorts after `start_after`
  // (from the first when empty), ascending by file_name, at most `limit`
  // (> 0, else kInvalidArgument) of them. A page may hold fewer than `limit`
  // entries, even none, while more follow: go on until next_start_after is
  // nullopt. Pages let a caller walk 100k entries without holding them all.
  virtual StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                             const std::string& start_after, int limit) = 0;
};

// Calls `visit` on every entry of `table_path`, ascending by file_name,
// reading pages of `page_size`. Stops at the first error (of a page, or
// returned by `visit`) and returns it.
Status ForEachCommitEntry(CoordinationTable& table, const std::string& table_path, int page_size,
                          const std::function<Status(const ExternalCommitEntry&)>& visit);

}  // namespace deltacommit
