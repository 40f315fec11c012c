// Read-only commands: `snapshot`, `history`, `check`.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct InspectArgs {
  std::string table;
  int64_t version = -1;
  int64_t limit = 0;
  bool json = false;
  bool files = false;
  TableFlags table_flags;
};

int RunSnapshot(const InspectArgs& args) {
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  auto snapshot = args.version >= 0 ? table->SnapshotAt(args.version) : table->Snapshot();
  if (!snapshot.ok()) return ReportError(snapshot.status());
  const Snapshot& s = **snapshot;
  if (args.json) {
    std::cout << SnapshotJson(s, args.files).dump() << "\n";
    return kExitOk;
  }
  std::cout << "table " << table->uri() << " at version " << s.version() << "\n"
            << "  protocol: reader " << s.protocol().min_reader_version << ", writer "
            << s.protocol().min_writer_version << "\n"
            << "  table id: " << s.metadata().id << "\n"
            << "  partition columns: " << nlohmann::json(s.metadata().partition_columns).dump() << "\n"
            << "  files: " << s.active_files().size() << " (" << s.size_in_bytes() << " bytes)\n"
            << "  app transactions: " << s.app_versions().size() << "\n";
  if (args.files) {
    for (const auto& [key, add] : s.active_files()) std::cout << "  " << add.path << "\n";
  }
  return kExitOk;
}

nlohmann::ordered_json HistoryJson(const HistoryEntry& h) {
  nlohmann::ordered_json e{{"version", h.version}};
  if (const std::optional<CommitInfo>& ci = h.commit_info) {
    if (ci->in_commit_timestamp) e["inCommitTimestamp"] = *ci->in_commit_timestamp;
    if (ci->timestamp) e["timestamp"] = *ci->timestamp;
    if (ci->operation) e["operation"] = *ci->operation;
    if (ci->read_version) e["readVersion"] = *ci->read_version;
    if (ci->isolation_level) e["isolationLevel"] = *ci->isolation_level;
    if (ci->is_blind_append) e["isBlindAppend"] = *ci->is_blind_append;
    if (ci->txn_id) e["txnId"] = *ci->txn_id;
    if (ci->engine_info) e["engineInfo"] = *ci->engine_info;
  }
  e["numAdds"] = h.num_adds;
  e["numRemoves"] = h.num_removes;
  return e;
}

int RunHistory(const InspectArgs& args) {
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  auto history = table->History(args.limit);
  if (!history.ok()) return ReportError(history.status());
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const HistoryEntry& h : *history) {
    nlohmann::ordered_json e = HistoryJson(h);
    if (args.json) {
      all.push_back(std::move(e));
      continue;
    }
    std::cout << "version " << h.version << ": " << e.value("operation", "?") << " (+"
              << e["numAdds"] << " -" << e["numRemoves"] << " files";
    if (e.contains("readVersion")) std::cout << ", read version " << e["readVersion"];
    if (e.contains("isBlindAppend")) std::cout << (e["isBlindAppend"].get<bool>() ? ", blind append" : "");
    std::cout << ")\n";
  }
  if (args.json) std::cout << all.dump() << "\n";
  return kExitOk;
}

int RunCheck(const InspectArgs& args) {
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  auto report = table->Check();
  if (!report.ok()) return ReportError(report.status());
  if (args.json) {
    nlohmann::ordered_json out{{"table", table->uri()},
                               {"sound", report->sound()},
                               {"firstVersion", report->first_version},
                               {"latestVersion", report->latest_version},
                               {"commitsChecked", report->commits_checked},
                               {"unrecognizedFiles", report->unrecognized_files},
                               {"problems", report->problems}};
    if (report->snapshot) out["numFiles"] = report->snapshot->active_files().size();
    std::cout << out.dump() << "\n";
  } else if (report->sound()) {
    std::cout << "OK: table " << table->uri() << ": versions " << report->first_version << ".."
              << report->latest_version << " contiguous, " << report->commits_checked
              << " commits parse, protocol supported, "
              << (report->snapshot ? std::to_string(report->snapshot->active_files().size())
                                   : std::string("?"))
              << " active files\n";
  } else {
    std::cout << "UNSOUND: table " << table->uri() << ": " << report->problems.size()
              << " problem(s)\n";
    for (const std::string& p : report->problems) std::cout << "  - " << p << "\n";
  }
  return report->sound() ? kExitOk : kExitUnsound;
}

CLI::App* AddTableCommand(CLI::App& app, const char* name, const char* help,
                          std::shared_ptr<InspectArgs> args) {
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_flag("--json", args->json, "Print as JSON");
  AddTableOptions(cmd, &args->table_flags);
  return cmd;
}

}  // namespace

void RegisterSnapshot(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = AddTableCommand(app, "snapshot", "Show the table state at a version", args);
  cmd->add_option("--version", args->version, "Version (default: latest)");
  cmd->add_flag("--files", args->files, "List the active files");
  cmd->callback([args, exit_code] { *exit_code = RunSnapshot(*args); });
}

void RegisterHistory(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = AddTableCommand(app, "history", "Show the commits, newest first", args);
  cmd->add_option("--limit", args->limit, "Show at most N commits");
  cmd->callback([args, exit_code] { *exit_code = RunHistory(*args); });
}

void RegisterCheck(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = AddTableCommand(
      app, "check", "Validate the log (exit 0 only if sound, 4 if not)", args);
  cmd->callback([args, exit_code] { *exit_code = RunCheck(*args); });
}

}  // namespace deltacommit::cli
