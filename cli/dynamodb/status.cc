// `deltacommit dynamodb status TABLE`: the DynamoDB table behind an
// s3-dynamodb table (status, billing, time to live) and the entries of its
// tablePath against its _delta_log. Reads only. Exit 0 when healthy (there
// may be warnings), 4 when something needs repair, other codes for errors.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"
#include "dynamodb/findings.h"
#include "dynamodb/inspect.h"
#include "dynamodb/subcommands.h"
#include "shared/output.h"

namespace deltacommit::cli {
namespace {

struct StatusArgs {
  std::string table;
  bool json = false;
  TableFlags table_flags;
};

struct StatusReport {
  std::string table_path;
  DeltaLogTableState table;
  EntriesState entries;
  Findings findings;
};

// How the latest commit file and the latest entry compare.
std::string LogVsEntries(const EntriesState& e) {
  if (!e.latest) return "no-entries";
  if (!e.latest_commit) return "no-log";
  ParsedLogPath latest = ParseLogPath(e.latest->file_name);
  if (latest.type != LogFileType::kCommit || latest.version == *e.latest_commit) return "agree";
  return latest.version > *e.latest_commit ? "entries-ahead" : "log-ahead";
}

nlohmann::ordered_json EntryJson(const ExternalCommitEntry& e) {
  nlohmann::ordered_json out{
      {"fileName", e.file_name}, {"tempPath", e.temp_path}, {"complete", e.complete}};
  if (e.expire_time) out["expireTime"] = *e.expire_time;
  return out;
}

nlohmann::ordered_json OrNull(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json ReportJson(const StatusReport& r) {
  const DeltaLogTableState& t = r.table;
  const EntriesState& e = r.entries;
  nlohmann::ordered_json incomplete = nlohmann::ordered_json::array();
  for (const IncompleteEntry& i : e.incomplete) {
    incomplete.push_back({{"fileName", i.entry.file_name},
                          {"version", i.version},
                          {"tempPath", i.entry.temp_path},
                          {"tempObjectExists", i.temp_exists},
                          {"commitFileExists", i.commit_exists},
                          {"recoverable", i.recoverable()}});
  }
  return {
      {"tablePath", r.table_path},
      {"dynamodb",
       {{"table", t.name},
        {"region", t.region},
        {"endpoint", t.endpoint},
        {"status", t.status},
        {"billingMode", t.billing_mode},
        {"keySchema", {{"hash", t.hash_key}, {"range", t.range_key}}},
        {"timeToLive",
         {{"status", OrNull(t.ttl_status)}, {"attribute", OrNull(t.ttl_attribute)}}}}},
      {"entries", e.count},
      {"latestEntry", e.latest ? EntryJson(*e.latest) : nlohmann::ordered_json(nullptr)},
      {"latestCommit", e.latest_commit ? nlohmann::ordered_json(*e.latest_commit) : nullptr},
      {"logVsEntries", LogVsEntries(e)},
      {"incompleteEntries", incomplete},
      {"completeEntriesWithoutCommit", e.complete_without_commit},
      {"foreignEntries", e.foreign_names},
      {"warnings", r.findings.warnings},
      {"problems", r.findings.problems},
      {"healthy", r.findings.problems.empty()}};
}

std::string Present(bool exists) { return exists ? "present" : "MISSING"; }

void PrintText(const StatusReport& r, const std::string& table_arg) {
  const DeltaLogTableState& t = r.table;
  const EntriesState& e = r.entries;
  std::cout << "DynamoDB table " << t.name << " (" << t.region << ", " << t.endpoint
            << "): " << t.status << ", " << t.billing_mode << ", time to live "
            << (t.ttl_status.empty() ? "unknown" : t.ttl_status)
            << (t.ttl_attribute.empty() ? "" : " on " + t.ttl_attribute) << "\n";
  std::cout << "tablePath " << r.table_path << ": " << e.count
            << (e.count == 1 ? " entry" : " entries");
  if (e.latest) {
    std::cout << ", latest " << e.latest->file_name
              << (e.latest->complete ? " (complete)" : " (INCOMPLETE)");
  }
  std::cout << "\nlog: "
            << (e.latest_commit ? "latest commit " + std::to_string(*e.latest_commit)
                                : std::string("no commits"))
            << " (log vs entries: " << LogVsEntries(e) << ")\n";
  for (const IncompleteEntry& i : e.incomplete) {
    std::cout << "incomplete entry " << i.entry.file_name << ": temp object " << i.entry.temp_path
              << " " << Present(i.temp_exists) << ", " << i.entry.file_name << " "
              << Present(i.commit_exists) << "\n";
  }
  for (const std::string& w : r.findings.warnings) std::cout << "warning: " << w << "\n";
  if (r.findings.problems.empty()) {
    std::cout << "OK: healthy\n";
    return;
  }
  std::cout << "NEEDS REPAIR: " << r.findings.problems.size() << " problem(s)\n";
  for (const std::string& p : r.findings.problems) std::cout << "  - " << p << "\n";
  for (const IncompleteEntry& i : e.incomplete) {
    if (!i.recoverable()) continue;
    std::cout << "run `deltacommit dynamodb repair " << table_arg
              << "` (with the same options) to recover the incomplete entries\n";
    break;
  }
}

int RunStatus(const StatusArgs& args) {
  auto target = OpenDynamoDbTarget(args.table, args.table_flags);
  if (!target.ok()) return ReportError(target.status());
  StatusReport report;
  report.table_path = target->table_path;
  auto table = DescribeDeltaLogTable(*target);
  if (!table.ok()) return ReportError(table.status());
  report.table = *std::move(table);
  auto entries = InspectEntries(*target, kEntryPageSize);
  if (!entries.ok()) return ReportError(entries.status());
  report.entries = *std::move(entries);
  report.findings = Assess(report.table_path, report.table, report.entries);
  if (args.json) {
    std::cout << ReportJson(report).dump() << "\n";
  } else {
    PrintText(report, args.table);
  }
  return report.findings.problems.empty() ? kExitOk : kExitUnsound;
}

}  // namespace

void RegisterDynamoDbStatus(CLI::App& group, int* exit_code) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* cmd = group.add_subcommand(
      "status",
      "Show the lock table and the entries of TABLE against its log (exit 0 if healthy, 4 if "
      "something needs repair)");
  cmd->add_option("table", args->table, "The s3:// (s3a://, s3n://) table")->required();
  cmd->add_flag("--json", args->json, "Print as JSON");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunStatus(*args); });
}

}  // namespace deltacommit::cli
