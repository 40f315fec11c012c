// The DynamoDB state store's items (DynamoDbStateStore), encoded and decoded
// in one place. One DynamoDB table (default name deltacommit_service) holds
// every Delta table's state:
//
//   key   table_uri  S  HASH   normalised Delta table URI ("s3://bucket/path")
//         version    N  RANGE  commit version; -1 for the table's head item
//
//   commit item (version >= 0), one per ratified version below latest that
//   is not forgotten:
//         staged_file          S  "_delta_log/_staged_commits/<v>.<uuid>.json"
//         content_sha256       S  64 lower-case hex digits
//         size                 N  bytes of the staged object
//         ratified_at_ms       N  epoch ms
//         commit_timestamp_ms  N  the commit's in-commit timestamp, epoch ms
//
//   head item (version -1), one per Delta table, never deleted:
//         latest               N  the highest ratified version
//         published_through    N  every version <= it is in _delta_log/<v>.json
//         staged_file, content_sha256, size, ratified_at_ms,
//         commit_timestamp_ms     the record of version `latest`
//         app:<appId>          M  {txn_version N, commit_version N}: the
//                                 latest txn of each application, set by
//                                 the head write that ratifies it (the item
//                                 limit of 400 KB bounds the applications
//                                 per table to some thousands)
//
// Ratifying v is one conditional write of the head (latest = v - 1 -> v),
// which carries v's record; v's own commit item is written by whoever
// ratifies v + 1, before moving the head on. Other attributes are ignored;
// a missing or mistyped one is kDataLoss naming it and the item's key.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "deltacommit/dynamodb/attribute_value.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "service/state/commit_record.h"

#include <map>

namespace deltacommit::service {

inline constexpr Version kHeadVersion = -1;

inline constexpr char kTableUriAttribute[] = "table_uri";
inline constexpr char kVersionAttribute[] = "version";

// A Delta table's head item, decoded.
struct TableHead {
  Version latest = -1;
  Version published_through = -1;
  CommitRecord latest_record;  // `published` set from published_through
  std::map<std::string, AppliedTxn, std::less<>> app_txns;
};

dynamodb::Item ItemKey(const std::string& table, Version version);
// The commit item of `record`.
dynamodb::Item CommitItem(const CommitRecord& record);

// Creates the head of a table whose first ratified version is `record`'s
// (published_through = version - 1), only if the table has no head.
dynamodb::PutItemRequest FirstHeadRequest(const std::string& dynamodb_table,
                                          const CommitRecord& record);
// Moves the head to `record` only if latest is record.version - 1: the
// commit point. published_through is left as it is.
dynamodb::UpdateItemRequest AdvanceHeadRequest(
    const std::string& dynamodb_table, const CommitRecord& record);
// Sets published_through to `version` only if latest >= version and
// published_through < version (so it never lowers it).
dynamodb::UpdateItemRequest MarkPublishedRequest(
    const std::string& dynamodb_table, const std::string& table,
    Version version);

// kDataLoss naming `dynamodb_table` and the key when the item lacks an
// attribute, has one of another type, or does not hold a valid record.
StatusOr<CommitRecord> RecordFromCommitItem(const dynamodb::Item& item,
                                            const std::string& dynamodb_table,
                                            Version published_through);
StatusOr<TableHead> HeadFromItem(const dynamodb::Item& item,
                                 const std::string& dynamodb_table);

}  // namespace deltacommit::service
