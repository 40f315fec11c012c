// The s3-dynamodb lock table as the CLI sets it up: the key schema Delta
// Spark uses, auto-create on first use (off unless asked), and the hint a
// missing table's error carries when auto-create is off.
//
// Thread-safety: the functions are as safe as the client they are given;
// MissingTableHint is as safe as the table it wraps.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/status.h"
#include "deltacommit/table/dynamodb_settings.h"

namespace deltacommit {

// What is wrong with `table`'s key schema for s3-dynamodb (exactly
// tablePath S HASH, fileName S RANGE), or nullopt when it is right.
std::optional<std::string> KeySchemaProblem(const dynamodb::TableDescription& table);

// How to turn auto-create on, for messages about a missing table.
std::string AutoCreateHint();

struct EnsureTableResult {
  bool created = false;               // this call created the table
  std::vector<std::string> warnings;  // e.g. TTL could not be enabled
};

// Auto-create (as Delta Spark on first use): when DescribeTable says the
// table is missing, creates it with the configured billing, waits until it
// is ACTIVE and enables TTL on expireTime (a failure there is a warning: the
// table is usable). A concurrent creator winning the race is waited for,
// not an error. An existing table is waited for until ACTIVE and its key
// schema checked. Errors: kFailedPrecondition for a wrong key schema; those
// of DescribeTable, CreateTable and WaitForTableActive otherwise.
StatusOr<EnsureTableResult> EnsureDeltaLogTable(dynamodb::DynamoDbClient& client,
                                                const DynamoDbSettings& settings);

// Forwards to `inner`, adding AutoCreateHint() to kNotFound errors (the
// DynamoDB table is missing: a missing item is not an error).
class MissingTableHint : public ForwardingCoordinationTable {
 public:
  explicit MissingTableHint(std::unique_ptr<CoordinationTable> inner)
      : ForwardingCoordinationTable(std::move(inner)) {}

  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(const std::string& table_path,
                                                   const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path, const std::string& start_after,
                                     int limit) override;
};

}  // namespace deltacommit
