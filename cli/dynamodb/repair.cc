// `deltacommit dynamodb repair TABLE`: recovers every incomplete entry of
// TABLE's tablePath, in version order, as any s3-dynamodb reader would
// (S3DynamoDbLogStore::Recover: copy the temp object to N.json if missing,
// then mark the entry complete). Idempotent and safe to race with writers
// and other recoverers: each entry is read again just before, and an entry
// whose temp object and N.json are both gone is reported, never invented.
// Exit 0 when every entry is recovered, 4 when some content is lost, 1 when
// a recovery failed (run it again).
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"
#include "dynamodb/findings.h"
#include "dynamodb/inspect.h"
#include "dynamodb/subcommands.h"
#include "shared/output.h"

namespace deltacommit::cli {
namespace {

struct RepairArgs {
  std::string table;
  bool json = false;
  TableFlags table_flags;
};

enum class Outcome { kCopied, kAlreadyPresent, kAlreadyComplete, kUnrecoverable, kFailed };

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kCopied: return "copied";
    case Outcome::kAlreadyPresent: return "already-present";
    case Outcome::kAlreadyComplete: return "already-complete";
    case Outcome::kUnrecoverable: return "unrecoverable";
    case Outcome::kFailed: return "failed";
  }
  return "?";
}

struct Repaired {
  ExternalCommitEntry entry;
  Outcome outcome = Outcome::kFailed;
  std::string detail;  // one sentence: what was done, or why not
};

// Recovers `entry` if it is still incomplete; errors are the kFailed outcome.
StatusOr<Repaired> RepairOne(const DynamoDbTarget& target, const ExternalCommitEntry& seen) {
  const std::string& name = seen.file_name;
  DC_ASSIGN_OR_RETURN(std::optional<ExternalCommitEntry> entry,
                      target.coordination->Get(target.table_path, name));
  if (!entry || entry->complete) {
    return Repaired{seen, Outcome::kAlreadyComplete,
                    entry ? "already complete (another reader or writer recovered it)"
                          : "the entry is gone (removed since it was listed)"};
  }
  ObjectStore& store = *target.open->store;
  const std::string temp = std::string(kLogDir) + entry->temp_path;
  DC_ASSIGN_OR_RETURN(bool commit_exists, ObjectExists(store, std::string(kLogDir) + name));
  DC_ASSIGN_OR_RETURN(bool temp_exists, ObjectExists(store, temp));
  if (!commit_exists && !temp_exists) {
    return Repaired{*entry, Outcome::kUnrecoverable,
                    "DATA LOSS: its temp object " + entry->temp_path + " and " + name +
                        " are both missing, so the content of this commit is lost; left as it "
                        "is. Once no writer of it can be running, remove it with " +
                        DeleteEntryCommand(target.coordination->table(), target.table_path, name)};
  }
  DC_RETURN_IF_ERROR(target.log->Recover(*entry));
  if (commit_exists) {
    return Repaired{*entry, Outcome::kAlreadyPresent, name + " already present; marked complete"};
  }
  return Repaired{*entry, Outcome::kCopied,
                  "copied " + entry->temp_path + " to " + name + "; marked complete"};
}

nlohmann::ordered_json ReportJson(const std::string& table_path,
                                  const std::vector<Repaired>& results) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::map<std::string, int> counts;
  for (const Repaired& r : results) {
    entries.push_back({{"fileName", r.entry.file_name},
                       {"version", ParseLogPath(r.entry.file_name).version},
                       {"tempPath", r.entry.temp_path},
                       {"outcome", OutcomeName(r.outcome)},
                       {"detail", r.detail}});
    ++counts[OutcomeName(r.outcome)];
  }
  return {{"tablePath", table_path},
          {"entries", entries},
          {"recovered", counts["copied"] + counts["already-present"] + counts["already-complete"]},
          {"unrecoverable", counts["unrecoverable"]},
          {"failed", counts["failed"]}};
}

int RunRepair(const RepairArgs& args) {
  auto target = OpenDynamoDbTarget(args.table, args.table_flags);
  if (!target.ok()) return ReportError(target.status());
  // InspectEntries finds the incomplete entries page by page; the
  // DynamoDB table's existence is checked by its first query.
  auto entries = InspectEntries(*target, kEntryPageSize);
  if (!entries.ok()) return ReportError(entries.status());
  std::vector<Repaired> results;
  for (const IncompleteEntry& i : entries->incomplete) {
    StatusOr<Repaired> r = RepairOne(*target, i.entry);
    results.push_back(r.ok() ? *std::move(r)
                             : Repaired{i.entry, Outcome::kFailed, r.status().ToString()});
  }
  nlohmann::ordered_json report = ReportJson(target->table_path, results);
  if (args.json) {
    std::cout << report.dump() << "\n";
  } else {
    for (const Repaired& r : results) {
      std::cout << r.entry.file_name << ": " << OutcomeName(r.outcome) << ": " << r.detail << "\n";
    }
    std::cout << "repair of tablePath " << target->table_path << ": " << results.size()
              << " incomplete entries, " << report["recovered"] << " recovered, "
              << report["unrecoverable"] << " unrecoverable, " << report["failed"]
              << " failed\n";
  }
  if (report["failed"] != 0) return kExitError;
  return report["unrecoverable"] != 0 ? kExitUnsound : kExitOk;
}

}  // namespace

void RegisterDynamoDbRepair(CLI::App& group, int* exit_code) {
  auto args = std::make_shared<RepairArgs>();
  CLI::App* cmd = group.add_subcommand(
      "repair",
      "Recover every incomplete entry of TABLE (copy its temp object to N.json, mark it "
      "complete); exit 0 if all are, 4 if some content is lost, 1 if a recovery failed");
  cmd->add_option("table", args->table, "The s3:// (s3a://, s3n://) table")->required();
  cmd->add_flag("--json", args->json, "Print as JSON");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunRepair(*args); });
}

}  // namespace deltacommit::cli
