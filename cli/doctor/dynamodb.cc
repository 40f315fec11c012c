// The DynamoDB side of `doctor` for s3-dynamodb: the lock table exists, is
// ACTIVE with Delta Spark's key schema, the calls a commit makes are allowed
// (PutItem proven without writing), and TTL expires old entries.
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table/dynamodb_lock_table.h"
#include "doctor/doctor.h"

namespace deltacommit::cli {
namespace {

using dynamodb::AttributeValue;
using dynamodb::Expression;

// The checks that need the table, for skipping them.
std::vector<std::string> TableCheckNames() {
  return {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DescribeTimeToLive"};
}

// False when the table is missing (the other checks would only repeat it).
bool CheckDescribe(dynamodb::DynamoDbClient& client, const DynamoDbSettings& s,
                   DoctorReport& report) {
  const char* name = "dynamodb:DescribeTable";
  auto table = client.DescribeTable(s.table_name);
  if (table.status().IsNotFound() && s.auto_create) {
    report.Add(name, Verdict::kWarn,
               "DynamoDB table " + s.table_name + " does not exist yet; auto-create is on, so "
               "the first use creates it (with dynamodb:CreateTable)");
    return false;
  }
  if (table.status().IsNotFound()) {
    report.Add(name, Verdict::kFail, table.status().message() + "; " + AutoCreateHint());
    return false;
  }
  if (!table.ok()) {
    report.Add(name, Verdict::kFail, table.status().ToString());
    return true;  // the calls below may still be allowed
  }
  if (auto problem = KeySchemaProblem(*table)) {
    report.Add(name, Verdict::kFail, *problem);
  } else if (table->status != "ACTIVE") {
    report.Add(name, Verdict::kFail,
               "DynamoDB table " + s.table_name + " is " + table->status + ", not ACTIVE: wait "
               "until it is");
  } else {
    report.Add(name, Verdict::kOk,
               "table " + s.table_name + " ACTIVE, key tablePath S HASH, fileName S RANGE, " +
                   table->billing_mode);
  }
  return true;
}

void CheckReads(dynamodb::DynamoDbClient& client, const std::string& table,
                const std::string& table_path, DoctorReport& report) {
  dynamodb::Item key = {{"tablePath", AttributeValue::String(table_path)},
                        {"fileName", AttributeValue::String(CommitFileName(0))}};
  auto item = client.GetItem({table, key, true});
  report.AddStatus("dynamodb:GetItem", item.status(),
                   "read the entry of version 0 of " + table_path + " (" +
                       (item.ok() && item->has_value() ? "present" : "absent") + ")");
  dynamodb::QueryRequest latest{table, Expression("#p = :p", {{"#p", "tablePath"}},
                                                  {{":p", AttributeValue::String(table_path)}}),
                                /*scan_index_forward=*/false, 1, true, std::nullopt};
  auto found = client.Query(latest);
  std::string what = "no entries yet";
  if (found.ok() && !found->items.empty()) {
    what = "latest entry " + dynamodb::GetString(found->items[0], "fileName").value_or("?");
  }
  report.AddStatus("dynamodb:Query", found.status(),
                   "queried the latest entry of " + table_path + ": " + what);
}

// A PutItem whose condition cannot hold (the probe key is new): refused by
// the condition means IAM allowed it, and nothing is written.
void CheckPut(dynamodb::DynamoDbClient& client, const std::string& table,
              const std::string& table_path, DoctorReport& report) {
  const std::string probe = "doctor-probe." + NewUuid();
  dynamodb::Item item = {{"tablePath", AttributeValue::String(table_path)},
                         {"fileName", AttributeValue::String(probe)}};
  Status st = client.PutItem({table, item, Expression("attribute_exists(#f)", {{"#f", "fileName"}})});
  if (st.IsAlreadyExists()) {
    report.Add("dynamodb:PutItem", Verdict::kOk,
               "allowed: a conditional PutItem that must fail (attribute_exists on a new key " +
                   probe + ") failed on its condition, nothing written");
  } else if (st.ok()) {
    report.Add("dynamodb:PutItem", Verdict::kFail,
               "a PutItem with attribute_exists(fileName) on the new key " + probe +
                   " succeeded: the server ignores conditions, which s3-dynamodb relies on "
                   "(the item is left in the table)");
  } else {
    report.Add("dynamodb:PutItem", Verdict::kFail, st.ToString());
  }
}

// TTL is not needed to commit, so every problem here is a WARN.
void CheckTimeToLive(dynamodb::DynamoDbClient& client, const std::string& table,
                     DoctorReport& report) {
  const char* name = "dynamodb:DescribeTimeToLive";
  auto ttl = client.DescribeTimeToLive(table);
  const std::string enable = "enable it: `aws dynamodb update-time-to-live --table-name " + table +
                             " --time-to-live-specification Enabled=true,AttributeName=expireTime`";
  if (!ttl.ok()) {
    report.Add(name, Verdict::kWarn,
               "could not check time to live (commits do not need this call): " +
                   ttl.status().ToString());
  } else if (ttl->status == "ENABLED" || ttl->status == "ENABLING") {
    if (ttl->attribute_name == "expireTime") {
      report.Add(name, Verdict::kOk, "time to live " + ttl->status + " on expireTime");
    } else {
      report.Add(name, Verdict::kWarn,
                 "time to live is on attribute " + ttl->attribute_name +
                     ", not expireTime: commit entries never expire");
    }
  } else {
    report.Add(name, Verdict::kWarn,
               "time to live is " + ttl->status + ": commit entries never expire; " + enable);
  }
}

}  // namespace

void CheckDynamoDbTable(TableAdapters& t, DoctorReport& report) {
  if (t.dynamodb == nullptr) return;
  const DynamoDbSettings& s = t.dynamodb_settings;
  std::vector<std::string> all = TableCheckNames();
  all.insert(all.begin(), "dynamodb:DescribeTable");
  const bool have_credentials =
      CheckCredentials("DynamoDB", *t.dynamodb_credentials, SystemClock(), report);
  if (!CheckEndpoint("DynamoDB", s.service.endpoint_url, *t.http, SystemClock(), report)) {
    return SkipChecks(all, "DynamoDB endpoint " + s.service.endpoint_url + " unreachable", report);
  }
  if (!have_credentials) return SkipChecks(all, "no DynamoDB credentials", report);
  if (!CheckDescribe(*t.dynamodb, s, report)) {
    return SkipChecks(TableCheckNames(), "DynamoDB table " + s.table_name + " missing", report);
  }
  CheckReads(*t.dynamodb, s.table_name, t.dynamodb_table_path, report);
  CheckPut(*t.dynamodb, s.table_name, t.dynamodb_table_path, report);
  CheckTimeToLive(*t.dynamodb, s.table_name, report);
}

}  // namespace deltacommit::cli
