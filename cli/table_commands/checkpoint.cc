// `deltacommit checkpoint TABLE [--version V] [--part-size N]`: writes a
// classic checkpoint of the table at its latest version (or V), in parts of
// N adds/removes when it has more, then `_last_checkpoint`.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/clock.h"
#include "deltacommit/snapshot.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct CheckpointArgs {
  std::string table;
  int64_t version = -1;
  int64_t part_size = kDefaultCheckpointPartSize;
  bool json = false;
  TableFlags table_flags;
};

int RunCheckpoint(const CheckpointArgs& args) {
  if (args.part_size < 1) {
    return ReportError(InvalidArgumentError("--part-size " + std::to_string(args.part_size) +
                                            ": must be at least 1"));
  }
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  std::optional<Version> version;
  if (args.version >= 0) version = args.version;
  CheckpointOptions options;
  options.part_size = args.part_size;
  auto info = table->Checkpoint(version, options);
  if (!info.ok()) return ReportError(info.status());
  if (args.json) {
    nlohmann::ordered_json j;
    j["table"] = table->uri();
    j["version"] = info->version;
    j["path"] = info->key;
    if (info->parts > 0) j["parts"] = info->parts;
    j["size"] = info->size;
    j["sizeInBytes"] = info->size_in_bytes;
    j["numOfAddFiles"] = info->num_of_add_files;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "wrote checkpoint " << info->key;
    if (info->parts > 0) std::cout << " (part 1 of " << info->parts << ")";
    std::cout << " of " << table->uri() << " at version " << info->version << " (" << info->size << " actions, " << info->num_of_add_files
              << " add files, " << info->size_in_bytes << " bytes)\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterCheckpoint(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckpointArgs>();
  CLI::App* cmd = app.add_subcommand(
      "checkpoint", "Write a classic Parquet checkpoint of the table, then _last_checkpoint");
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_option("--version", args->version, "Version to checkpoint (default: latest)");
  cmd->add_option("--part-size", args->part_size,
                  "Adds and removes per part: more make a multi-part checkpoint")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print what was written as JSON");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunCheckpoint(*args); });
}

}  // namespace deltacommit::cli
