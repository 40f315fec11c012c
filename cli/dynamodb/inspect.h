// What `deltacommit dynamodb status` and `repair` look at: an s3-dynamodb
// table opened as the commit commands open it, the DynamoDB table behind it,
// and the entries of its tablePath against its _delta_log. Reads only: the
// log store's own List/Read would recover incomplete entries as a side
// effect, so the object store is read directly.
//
// Thread-safety: a DynamoDbTarget is safe to use from several threads (its
// adapters are); the functions are reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {

// An s3:// table in the s3-dynamodb mode. The pointers are into `open`.
struct DynamoDbTarget {
  std::optional<Table> table;
  TableAdapters* open = nullptr;  // table->adapters()
  std::string table_path;  // the tablePath of its entries: the URI as given, no trailing '/'
  dynamodb::DynamoDbCoordinationTable* coordination = nullptr;
  S3DynamoDbLogStore* log = nullptr;
};

// Opens TABLE (s3://, s3a://, s3n://) as `commit --log-store s3-dynamodb`
// would, with the same options. kInvalidArgument for another kind of table
// or another --log-store.
StatusOr<DynamoDbTarget> OpenDynamoDbTarget(const std::string& table, TableFlags options);

// The DynamoDB table as DescribeTable and DescribeTimeToLive see it.
struct DeltaLogTableState {
  std::string name;
  std::string region;
  std::string endpoint;
  std::string status;        // "ACTIVE", ...
  std::string billing_mode;  // "PAY_PER_REQUEST" or "PROVISIONED"
  std::string hash_key;      // tablePath for a delta_log table
  std::string range_key;     // fileName
  std::string ttl_status;    // "ENABLED", "DISABLED", ...; empty: the server cannot tell
  std::string ttl_attribute;
};

// Entries read per DynamoDB Query: one reply (at most 1 MB) in practice.
inline constexpr int kEntryPageSize = 1000;

// Whether `key` exists: kNotFound is false, other errors are returned.
StatusOr<bool> ObjectExists(ObjectStore& store, const std::string& key);

// kNotFound (with the create-table hint) when the table does not exist.
StatusOr<DeltaLogTableState> DescribeDeltaLogTable(const DynamoDbTarget& target);

// An incomplete entry and what its recovery has to work with.
struct IncompleteEntry {
  ExternalCommitEntry entry;
  Version version = -1;
  bool temp_exists = false;    // _delta_log/<tempPath>
  bool commit_exists = false;  // _delta_log/<fileName>
  // Without either object its content is gone: no recovery can make it.
  bool recoverable() const { return temp_exists || commit_exists; }
};

// The entries of one tablePath against the log.
struct EntriesState {
  int64_t count = 0;
  std::optional<ExternalCommitEntry> latest;
  std::optional<Version> latest_commit;     // the greatest N.json in _delta_log
  std::vector<IncompleteEntry> incomplete;  // ascending
  // Complete entries above latest_commit: marked done, yet N.json is missing.
  std::vector<Version> complete_without_commit;
  // Entries whose fileName is not a commit file name (not written by a Delta
  // writer).
  std::vector<std::string> foreign_names;
};

// Walks every entry (pages of `page_size`) and heads the objects of the
// incomplete ones.
StatusOr<EntriesState> InspectEntries(const DynamoDbTarget& target, int page_size);

}  // namespace deltacommit::cli
