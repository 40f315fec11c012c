// `deltacommit delete TABLE --where CONDITION`: deletes the rows the SQL
// condition matches, as one transaction (Table::Delete): with deletion
// vectors where the table enables them, by rewriting files otherwise.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct DeleteArgs {
  std::string table;
  std::string where;
  int max_attempts = 100;
  std::string memory_limit = "1GB";
  bool json = false;
  TableFlags table_flags;
};

int Report(const DeleteArgs& args, const std::string& uri, const DeleteResult& r) {
  const bool conflict = r.outcome && r.outcome->result == CommitResult::kConflict;
  if (args.json) {
    nlohmann::ordered_json out{
        {"table", uri},
        {"result", !r.outcome ? "nothing matched"
                   : conflict ? "conflict"
                              : "committed"},
        {"version", r.outcome ? nlohmann::ordered_json(r.outcome->version) : nullptr},
        {"rows_deleted", r.rows_deleted},
        {"files_read", r.files_read},
        {"files_removed", r.files_removed},
        {"files_with_deletion_vectors", r.files_marked},
        {"files_rewritten", r.files_rewritten},
        {"change_data_files", r.change_files.size()}};
    if (r.outcome) {
      out["attempts"] = r.outcome->attempts;
      out["rebases"] = r.outcome->rebases;
    }
    std::cout << out.dump() << "\n";
  }
  if (conflict) {
    std::cerr << "conflict: table " << uri << ": " << r.outcome->conflict->Describe()
              << "; nothing was deleted\n";
    return kExitConflict;
  }
  if (args.json) return kExitOk;
  if (!r.outcome) {
    std::cout << "no row of " << uri << " matches; nothing was committed\n";
    return kExitOk;
  }
  std::cout << "deleted " << r.rows_deleted << " row(s) from " << uri << ": " << r.files_removed
            << " file(s) removed, " << r.files_marked << " given deletion vectors, "
            << r.files_rewritten << " rewritten; committed version " << r.outcome->version << " ("
            << r.outcome->attempts << " attempt(s))\n";
  return kExitOk;
}

int RunDelete(const DeleteArgs& args) {
  if (args.max_attempts < 1) {
    return ReportError(InvalidArgumentError("--max-attempts must be at least 1"));
  }
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  DeleteOptions options;
  options.transaction.max_attempts = args.max_attempts;
  options.memory_limit = args.memory_limit;
  auto result = table->Delete(args.where, options);
  if (!result.ok()) return ReportError(result.status());
  return Report(args, table->uri(), *result);
}

}  // namespace

void RegisterDelete(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DeleteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "delete",
      "Delete the rows an SQL condition matches (one commit; deletion vectors where the table "
      "enables them, else files rewritten)");
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_option("--where", args->where,
                  "The rows to delete: an SQL condition (DuckDB's dialect) over the table's "
                  "columns, as after WHERE; --where true deletes every row")
      ->required();
  cmd->add_option("--max-attempts", args->max_attempts, "Writes tried before giving up")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the outcome as JSON");
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Memory DuckDB may use matching and rewriting rows (e.g. 512MB, 4GB); beyond "
                  "it, it spills to a temporary directory")
      ->capture_default_str();
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunDelete(*args); });
}

}  // namespace deltacommit::cli
