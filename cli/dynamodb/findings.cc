#include "dynamodb/findings.h"

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"

namespace deltacommit::cli {
namespace {

constexpr char kTtlAttribute[] = "expireTime";

bool TtlOn(const DeltaLogTableState& t) {
  return (t.ttl_status == "ENABLED" || t.ttl_status == "ENABLING") &&
         t.ttl_attribute == kTtlAttribute;
}

void AssessTable(const DeltaLogTableState& t, Findings& f) {
  const std::string name = "DynamoDB table " + t.name;
  if (t.hash_key != "tablePath" || t.range_key != "fileName") {
    f.problems.push_back(name + " has the key (" + t.hash_key + ", " + t.range_key +
                         "), not (tablePath, fileName): it is not a Delta log table");
  }
  if (t.status != "ACTIVE") {
    f.warnings.push_back(name + " is " + t.status + ", not ACTIVE: commits may fail until it is");
  }
  if (TtlOn(t)) return;
  const std::string consequence =
      "complete entries never expire, so the table keeps one item per commit for ever; "
      "enable it with `aws dynamodb update-time-to-live --table-name " + t.name +
      " --time-to-live-specification Enabled=true,AttributeName=" + kTtlAttribute + "`";
  if (t.ttl_status.empty()) {
    f.warnings.push_back(name + ": the server cannot tell whether time to live is on (it lacks "
                         "DescribeTimeToLive); if it is off, " + consequence);
  } else if (t.ttl_status == "ENABLED" || t.ttl_status == "ENABLING") {
    f.warnings.push_back(name + ": time to live is on attribute " + t.ttl_attribute +
                         ", not " + kTtlAttribute + ": " + consequence);
  } else {
    f.warnings.push_back(name + ": time to live is " + t.ttl_status + ": " + consequence);
  }
}

// "version 3 has" or "versions 3..5 have".
std::string VersionsHave(Version from, Version to) {
  if (from == to) return "version " + std::to_string(from) + " has";
  return "versions " + std::to_string(from) + ".." + std::to_string(to) + " have";
}

void AssessLogAgainstEntries(const std::string& table_path, const DeltaLogTableState& t,
                             const EntriesState& e, Findings& f) {
  if (!e.latest_commit) return;  // no log: nothing to disagree with
  if (e.count == 0) {
    f.warnings.push_back(
        "no entries for tablePath " + table_path + " although the log has commits up to " +
        std::to_string(*e.latest_commit) + ": none was made through s3-dynamodb with DynamoDB "
        "table " + t.name + (TtlOn(t) ? ", or their entries expired" : "") +
        ". Entries are keyed by the table URI as the writers spell it (Delta Spark: s3a://): "
        "give it the same way");
    return;
  }
  ParsedLogPath latest = ParseLogPath(e.latest->file_name);
  if (latest.type != LogFileType::kCommit || latest.version >= *e.latest_commit) return;
  f.warnings.push_back(
      "the log is ahead of the entries: " + VersionsHave(latest.version + 1, *e.latest_commit) +
      " no entry: written without s3-dynamodb (by a writer that bypassed its lock: "
      "concurrent writers could have overwritten each other)" +
      (TtlOn(t) ? ", or their entries expired" : ""));
}

void AssessEntries(const std::string& table_path, const DeltaLogTableState& t,
                   const EntriesState& e, Findings& f) {
  for (const IncompleteEntry& i : e.incomplete) {
    const std::string& name = i.entry.file_name;
    if (i.recoverable()) {
      f.problems.push_back("entry " + name + " is incomplete: a commit awaiting recovery (" +
                           (i.commit_exists ? name + " is there, the entry is not marked complete"
                                            : "its temp object " + i.entry.temp_path +
                                                  " is there, " + name + " is not") +
                           "); `deltacommit dynamodb repair` completes it");
      continue;
    }
    f.problems.push_back(
        "entry " + name + " is incomplete and both its temp object " + i.entry.temp_path +
        " and " + name + " are missing: the content of version " + std::to_string(i.version) +
        " is lost (data loss) and repair cannot recover it. While it is the latest entry, "
        "s3-dynamodb readers and writers of this table fail; once no writer of it can be "
        "running, remove it with " + DeleteEntryCommand(t.name, table_path, name));
  }
  if (!e.complete_without_commit.empty()) {
    std::string versions;
    for (Version v : e.complete_without_commit) {
      versions += (versions.empty() ? "" : ", ") + std::to_string(v);
    }
    f.problems.push_back(
        "complete entries for versions " + versions + " have no commit file in _delta_log: the "
        "files were deleted, or the table was recreated at the same path while the old "
        "entries were kept; repair does not touch complete entries");
  }
  for (const std::string& name : e.foreign_names) {
    f.problems.push_back("entry with fileName \"" + name +
                         "\" is not a commit file name: a Delta writer did not write it");
  }
}

}  // namespace

Findings Assess(const std::string& table_path, const DeltaLogTableState& table,
                const EntriesState& entries) {
  Findings f;
  AssessTable(table, f);
  AssessLogAgainstEntries(table_path, table, entries, f);
  AssessEntries(table_path, table, entries, f);
  return f;
}

std::string DeleteEntryCommand(const std::string& dynamodb_table, const std::string& table_path,
                               const std::string& file_name) {
  nlohmann::ordered_json key{{"tablePath", {{"S", table_path}}}, {"fileName", {{"S", file_name}}}};
  return "`aws dynamodb delete-item --table-name " + dynamodb_table + " --key '" + key.dump() +
         "'`";
}

}  // namespace deltacommit::cli
