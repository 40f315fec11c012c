// `deltacommit commit TABLE --actions FILE|-`: commits JSON-lines actions as
// one transaction with conflict detection and retry.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/action_json.h"
#include "deltacommit/commit_rules.h"
#include "deltacommit/transaction.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct CommitArgs {
  std::string table;
  std::string actions_file;
  std::string operation = "WRITE";
  std::string isolation = "WriteSerializable";
  int64_t read_version = -1;
  std::string app_id;
  int64_t app_version = -1;
  int max_attempts = 100;
  bool read_whole_table = false;
  std::vector<std::string> read_partitions;
  bool json = false;
  TableFlags table_flags;
};

StatusOr<std::string> ReadInput(const std::string& file) {
  if (file == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), {});
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return NotFoundError("--actions \"" + file + "\": cannot open file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// "col=value,col2=value2" (value "null" for a null partition value).
StatusOr<PartitionPredicate> ParsePartitionPredicate(const std::string& text) {
  PartitionPredicate predicate;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("--read-partition \"" + text + "\": expected col=value[,col=value]");
    }
    std::string value = item.substr(eq + 1);
    PartitionFilter f{item.substr(0, eq), {}};
    if (value == "null") {
      f.values.push_back(std::nullopt);
    } else {
      f.values.push_back(value);
    }
    predicate.push_back(std::move(f));
  }
  return predicate;
}

StatusOr<TransactionOptions> Options(const CommitArgs& args) {
  TransactionOptions o;
  o.operation = args.operation;
  auto level = ParseIsolationLevel(args.isolation);
  if (!level) {
    return InvalidArgumentError("--isolation-level \"" + args.isolation +
                                "\": expected Serializable, WriteSerializable or SnapshotIsolation");
  }
  o.isolation_level = *level;
  if (args.max_attempts < 1) return InvalidArgumentError("--max-attempts must be at least 1");
  o.max_attempts = args.max_attempts;
  return o;
}

Status Prepare(const CommitArgs& args, const Snapshot& snapshot, Transaction& txn,
               std::vector<Action> actions) {
  if (args.read_whole_table) txn.ReadWholeTable();
  for (const std::string& p : args.read_partitions) {
    DC_ASSIGN_OR_RETURN(PartitionPredicate predicate, ParsePartitionPredicate(p));
    DC_RETURN_IF_ERROR(CheckReadPredicate(predicate, snapshot.metadata())
                           .WithContext("--read-partition \"" + p + "\""));
    txn.AddReadPredicate(std::move(predicate));
  }
  if (!args.app_id.empty()) {
    if (args.app_version < 0) return InvalidArgumentError("--app-id needs --app-version N (N >= 0)");
    txn.SetAppTransaction(args.app_id, args.app_version);
  }
  for (Action& a : actions) {
    // A transaction that removes a file has read it.
    if (auto* rm = std::get_if<RemoveFile>(&a)) txn.AddReadFile(rm->path);
    txn.AddAction(std::move(a));
  }
  return OkStatus();
}

int Report(const CommitArgs& args, const std::string& uri, const CommitOutcome& o) {
  const char* result = o.result == CommitResult::kCommitted          ? "committed"
                       : o.result == CommitResult::kAlreadyCommitted ? "already-committed"
                                                                     : "conflict";
  if (args.json) {
    nlohmann::ordered_json out{{"table", uri}, {"result", result}, {"version", o.version},
                               {"attempts", o.attempts}, {"rebases", o.rebases}};
    if (o.assigned) {
      out["assigned"] = true;  // by the commit service
      out["merged"] = o.merged;
    }
    if (o.conflict) {
      out["conflict"] = {{"type", ConflictTypeName(o.conflict->type)},
                         {"winningVersion", o.conflict->winning_version},
                         {"detail", o.conflict->detail}};
    }
    std::cout << out.dump() << "\n";
  } else if (o.result == CommitResult::kConflict) {
    std::cerr << "conflict: table " << uri << ": " << o.conflict->Describe()
              << "; nothing was written\n";
  } else if (o.result == CommitResult::kAlreadyCommitted && o.assigned) {
    std::cout << "already committed: this append landed in version " << o.version << " of "
              << uri << " (its txn was applied before); nothing was written again\n";
  } else if (o.result == CommitResult::kAlreadyCommitted) {
    std::cout << "already committed: app " << args.app_id << " version " << args.app_version
              << " is in table " << uri << " (at or before version " << o.version << ")\n";
  } else if (o.assigned) {
    std::cout << "committed version " << o.version << " to " << uri
              << " (version assigned by the commit service";
    if (o.merged > 1) std::cout << ", shared with " << o.merged - 1 << " other append(s)";
    std::cout << ")\n";
  } else {
    std::cout << "committed version " << o.version << " to " << uri << " (" << o.attempts
              << " attempt(s), rebased over " << o.rebases << " concurrent commit(s))\n";
  }
  return o.result == CommitResult::kConflict ? kExitConflict : kExitOk;
}

int RunCommit(const CommitArgs& args) {
  auto options = Options(args);
  if (!options.ok()) return ReportError(options.status());
  auto input = ReadInput(args.actions_file);
  if (!input.ok()) return ReportError(input.status());
  ActionParser parser;
  auto actions = parser.ParseCommit(*input);
  if (!actions.ok()) return ReportError(actions.status().WithContext("--actions " + args.actions_file));
  if (actions->empty()) return ReportError(InvalidArgumentError("--actions " + args.actions_file + ": no actions"));
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  auto snapshot = args.read_version >= 0 ? table->SnapshotAt(args.read_version) : table->Snapshot();
  if (!snapshot.ok()) return ReportError(snapshot.status());
  auto txn = table->NewTransaction(*options, *snapshot);
  if (!txn.ok()) return ReportError(txn.status());
  Status st = Prepare(args, **snapshot, *txn, std::move(actions).value());
  if (!st.ok()) return ReportError(st);
  auto outcome = table->Commit(*txn);
  if (!outcome.ok()) return ReportError(outcome.status());
  return Report(args, table->uri(), *outcome);
}

}  // namespace

void RegisterCommit(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CommitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "commit", "Commit JSON-lines actions as one transaction (commitInfo is added)");
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_option("--actions", args->actions_file, "File of actions, one per line; - for stdin")
      ->required();
  cmd->add_option("--operation", args->operation, "Operation name for commitInfo")
      ->capture_default_str();
  cmd->add_option("--isolation-level", args->isolation,
                  "Serializable, WriteSerializable or SnapshotIsolation")
      ->capture_default_str();
  cmd->add_option("--read-version", args->read_version,
                  "Version the actions were computed from (default: latest)");
  cmd->add_option("--app-id", args->app_id, "Application id for idempotent retries (txn action)");
  cmd->add_option("--app-version", args->app_version, "Application version for --app-id");
  cmd->add_option("--max-attempts", args->max_attempts, "Writes tried before giving up")
      ->capture_default_str();
  cmd->add_flag("--read-whole-table", args->read_whole_table,
                "The actions depend on the whole table (any concurrent change conflicts)");
  cmd->add_option("--read-partition", args->read_partitions,
                  "A partition the actions depend on: col=value[,col=value] (repeatable)");
  cmd->add_flag("--json", args->json, "Print the outcome as JSON");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunCommit(*args); });
}

}  // namespace deltacommit::cli
