// S3DynamoDbLogStore: the `s3-dynamodb` mode, step for step as Delta Spark's
// S3DynamoDBLogStore (docs/protocols/s3-dynamodb.md), so
// Spark, delta-rs and deltacommit writers can share one table and one
// DynamoDB table. The conditional PutItem of the entry is the commit point;
// the object store needs no put-if-absent.
//
// Write of version N ([step] = the named step hook reached after it):
//   0. N.json exists -> kAlreadyExists.
//   1. N > 0: entry N-1 incomplete -> recover it; else N-1.json missing ->
//      kFailedPrecondition (log and external table out of sync).
//      N == 0: a complete entry 0 while 0.json is missing -> kFailedPrecondition
//      (table recreated at the same path before the entries expired).
//                                                            [s3ddb/before-temp-put]
//   2. put the temp object _delta_log/.tmp/N.json.<uuid>    [s3ddb/after-temp-put]
//   3. PutIfAbsent entry {complete=false}: the commit point  [s3ddb/after-commit-point]
//   4. copy temp -> N.json                                   [s3ddb/after-copy]
//   5. put entry {complete=true, expireTime=now+ttl}.
// Errors after step 3 do not fail the commit: any later reader or writer
// repairs it (Recover). Recovery of an incomplete entry: copy temp -> N.json
// if missing [s3ddb/recovery-after-copy], then mark complete; run on every
// List (latest entry) and on the write of N+1, and on Read of a commit file
// that is not there yet. A step hook's failure is a simulated crash: it is
// returned at once, also from inside recovery.
//
// Thread-safety: safe for concurrent use (all state is in the stores).
#pragma once

#include <cstdint>
#include <string>

#include "deltacommit/clock.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/log_store.h"
#include "deltacommit/object_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

struct S3DynamoDbOptions {
  // The table URI as the other writers spell it (Spark: s3a://bucket/path),
  // without a trailing '/': the tablePath key of every entry.
  std::string table_path;
  int64_t ttl_seconds = 86400;  // expireTime delay; shorter has lost data (delta#1410)
};

class S3DynamoDbLogStore : public LogStore {
 public:
  // `store`, `table`, `clock` and `hooks` (may be null) must outlive this.
  S3DynamoDbLogStore(ObjectStore& store, CoordinationTable& table, S3DynamoDbOptions options,
                     Clock& clock = SystemClock(), StepHooks* hooks = nullptr);

  std::string Describe() const override;
  Status Write(Version version, std::string_view content) override;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override;
  StatusOr<std::string> Read(std::string_view key) override;

  // Makes an entry's commit visible: copies its temp object to N.json if
  // missing, then marks it complete. Idempotent; safe to race.
  Status Recover(const ExternalCommitEntry& entry);

 private:
  Status CheckPrevious(Version version);
  // Step 3, with read-back when the reply is lost.
  Status PutEntry(const ExternalCommitEntry& entry);
  Status MarkComplete(ExternalCommitEntry entry);

  ObjectStore& store_;
  CoordinationTable& table_;
  S3DynamoDbOptions options_;
  Clock& clock_;
  StepHooks* hooks_;
};

}  // namespace deltacommit
