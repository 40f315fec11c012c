#include "deltacommit/table/dynamodb_lock_table.h"

#include "deltacommit/dynamodb/dynamodb_coordination_table.h"

namespace deltacommit {
namespace {

std::string KeyText(const std::string& name, const std::string& type, const char* role) {
  if (name.empty()) return std::string("no ") + role + " key";
  return name + " " + (type.empty() ? "?" : type) + " " + role;
}

Status WithHint(const Status& status) {
  if (!status.IsNotFound()) return status;
  return NotFoundError(status.message() + "; " + AutoCreateHint());
}

template <typename T>
StatusOr<T> WithHint(StatusOr<T> result) {
  if (!result.ok()) return WithHint(result.status());
  return result;
}

}  // namespace

std::optional<std::string> KeySchemaProblem(const dynamodb::TableDescription& t) {
  if (t.hash_key == "tablePath" && t.hash_key_type == "S" && t.range_key == "fileName" &&
      t.range_key_type == "S") {
    return std::nullopt;
  }
  return "DynamoDB table " + t.name + " has key schema " +
         KeyText(t.hash_key, t.hash_key_type, "HASH") + ", " +
         KeyText(t.range_key, t.range_key_type, "RANGE") +
         ", but s3-dynamodb (Delta Spark, delta-rs) needs tablePath S HASH, "
         "fileName S RANGE: "
         "use another table (ddb.tableName) or recreate this one with "
         "`deltacommit dynamodb create-table`";
}

std::string AutoCreateHint() {
  return std::string(
             "or let deltacommit create it on first use with "
             "--create-dynamodb-table "
             "(storage option ") +
         kAutoCreateOption + "=true)";
}

namespace {

// Waits for a table that exists (ours or a racing creator's) and checks it.
Status WaitAndCheck(dynamodb::DynamoDbClient& client, const std::string& name) {
  DC_RETURN_IF_ERROR(client.WaitForTableActive(name, dynamodb::kDeltaLogTableActiveTimeout));
  DC_ASSIGN_OR_RETURN(dynamodb::TableDescription table, client.DescribeTable(name));
  if (auto problem = KeySchemaProblem(table)) return FailedPreconditionError(*problem);
  return OkStatus();
}

}  // namespace

StatusOr<EnsureTableResult> EnsureDeltaLogTable(dynamodb::DynamoDbClient& client,
                                                const DynamoDbSettings& s) {
  EnsureTableResult result;
  StatusOr<dynamodb::TableDescription> existing = client.DescribeTable(s.table_name);
  if (existing.ok()) {
    if (existing->status != "ACTIVE") {
      DC_RETURN_IF_ERROR(WaitAndCheck(client, s.table_name));
    } else if (auto problem = KeySchemaProblem(*existing)) {
      return FailedPreconditionError(*problem);
    }
    return result;
  }
  if (!existing.status().IsNotFound()) return existing.status();
  auto billing = s.provisioned ? dynamodb::DeltaLogTableBilling::Provisioned(s.rcu, s.wcu)
                               : dynamodb::DeltaLogTableBilling::PayPerRequest();
  // TTL is enabled below, so that failing to enable it is only a warning.
  auto created = dynamodb::CreateDeltaLogTable(client, s.table_name, billing,
                                               /*enable_ttl=*/false);
  if (created.status().IsAlreadyExists()) {  // a concurrent creator won
    DC_RETURN_IF_ERROR(WaitAndCheck(client, s.table_name));
    return result;
  }
  DC_RETURN_IF_ERROR(created.status().WithContext("auto-create of DynamoDB table " + s.table_name));
  result.created = true;
  result.warnings = std::move(created).value();
  Status ttl = client.UpdateTimeToLive(s.table_name, "expireTime", true);
  if (!ttl.ok()) {
    result.warnings.push_back("DynamoDB table " + s.table_name +
                              " was created without time to live on expireTime, so commit "
                              "entries will not expire (enable it later with `aws dynamodb "
                              "update-time-to-live`): " +
                              ttl.message());
  }
  return result;
}

Status MissingTableHint::PutIfAbsent(const ExternalCommitEntry& entry) {
  return WithHint(ForwardingCoordinationTable::PutIfAbsent(entry));
}

Status MissingTableHint::Put(const ExternalCommitEntry& entry) {
  return WithHint(ForwardingCoordinationTable::Put(entry));
}

StatusOr<std::optional<ExternalCommitEntry>> MissingTableHint::Get(const std::string& table_path,
                                                                   const std::string& file_name) {
  return WithHint(ForwardingCoordinationTable::Get(table_path, file_name));
}

StatusOr<std::optional<ExternalCommitEntry>> MissingTableHint::GetLatest(
    const std::string& table_path) {
  return WithHint(ForwardingCoordinationTable::GetLatest(table_path));
}

StatusOr<CommitEntryPage> MissingTableHint::ListPage(const std::string& table_path,
                                                     const std::string& start_after, int limit) {
  return WithHint(ForwardingCoordinationTable::ListPage(table_path, start_after, limit));
}

}  // namespace deltacommit
