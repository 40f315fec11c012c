// DynamoDbCoordinationTable: the CoordinationTable port on a DynamoDB table
// shared with Delta Spark's S3DynamoDBLogStore and delta-rs
// (docs/protocols/s3-dynamodb.md).
//
// Item shape, exactly as those writers read and write it:
//   tablePath  S  HASH key: the table root URI, no trailing '/'
//   fileName   S  RANGE key: "00000000000000000007.json" (zero padding makes
//                 lexicographic order version order)
//   tempPath   S  relative to _delta_log: ".tmp/00000000000000000007.json.<uuid>"
//   complete   S  the string "true" or "false" (not BOOL)
//   expireTime N  epoch seconds, the TTL attribute; written only when set
// Other attributes are ignored. An item that lacks one of these or holds it
// with another type (or `complete` other than "true"/"false", or an
// expireTime that is not an integer) is kDataLoss naming the attribute and
// the item key: the table is shared with other writers, so a bad item is
// reported, never trusted.
//
// Calls, beside the codes of CoordinationTable and DynamoDbClient:
//   PutIfAbsent  PutItem, ConditionExpression attribute_not_exists(fileName);
//                the condition failing is kAlreadyExists naming the key
//   Put          PutItem, unconditional
//   Get          GetItem, ConsistentRead
//   GetLatest    Query tablePath = :p, descending, Limit 1, ConsistentRead
//   ListPage     Query tablePath = :p, ascending, Limit, ConsistentRead,
//                ExclusiveStartKey {tablePath, fileName = start_after}; the
//                next page starts after LastEvaluatedKey's fileName
//
// Thread-safety: safe for concurrent use (the client is).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/status.h"

namespace deltacommit::dynamodb {

class DynamoDbCoordinationTable : public CoordinationTable {
 public:
  // `client` must outlive this. Describe() names the client's region and
  // endpoint, so they cannot disagree with where the calls go.
  DynamoDbCoordinationTable(DynamoDbClient& client, std::string table);

  // "DynamoDB table delta_log (us-east-1, https://dynamodb.us-east-1.amazonaws.com)".
  std::string Describe() const override;
  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(const std::string& table_path,
                                                   const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                     const std::string& start_after, int limit) override;

  const std::string& table() const { return table_; }

 private:
  DynamoDbClient& client_;
  const std::string table_;
};

// The item Delta Spark writes for `entry`.
Item ToItem(const ExternalCommitEntry& entry);
// The entry of `item` read from DynamoDB table `table` (for messages);
// kDataLoss when the item does not have the shape above.
StatusOr<ExternalCommitEntry> EntryFromItem(const Item& item, const std::string& table);

// How a new delta_log table is billed.
struct DeltaLogTableBilling {
  static DeltaLogTableBilling PayPerRequest() { return {}; }
  static DeltaLogTableBilling Provisioned(int64_t rcu, int64_t wcu) {
    return {BillingMode::kProvisioned, rcu, wcu};
  }

  BillingMode mode = BillingMode::kPayPerRequest;
  int64_t read_capacity_units = 5;  // kProvisioned only (Delta Spark's defaults)
  int64_t write_capacity_units = 5;
};

// How long CreateDeltaLogTable waits for the new table to become ACTIVE.
inline constexpr std::chrono::milliseconds kDeltaLogTableActiveTimeout{300'000};

// Creates `table` with the delta_log key schema (tablePath S HASH, fileName S
// RANGE), waits until it is ACTIVE, then, if `enable_ttl`, enables time to
// live on expireTime.
//
// Returns warnings: things that did not happen as asked but leave a usable
// table. Today one: the server lacks UpdateTimeToLive (dynalite), so entries
// will not expire. Errors: those of CreateTable (kAlreadyExists when the
// table exists; it is then left as it is) and WaitForTableActive; an error
// of UpdateTimeToLive other than kUnimplemented is returned, its message
// saying that the table was created and is usable without TTL.
StatusOr<std::vector<std::string>> CreateDeltaLogTable(DynamoDbClient& client,
                                                       const std::string& table,
                                                       const DeltaLogTableBilling& billing,
                                                       bool enable_ttl);

}  // namespace deltacommit::dynamodb
