// `deltacommit append TABLE INPUT...`: converts CSV, JSON-lines or Parquet
// inputs to Parquet data files matching the table's schema, writes them into
// the table and commits them as one blind append (conflict detection and
// retry as `commit`). Memory stays bounded whatever the input's size: stdin
// is spooled to a file, DuckDB spills beyond --memory-limit into the
// staging directory, and data files are cut at kTargetDataFileBytes.
#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/table/data_staging.h"
#include "shared/output.h"
#include "shared/progress_line.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct AppendArgs {
  std::string table;
  std::vector<std::string> inputs;
  std::string format;
  int max_attempts = 100;
  std::string memory_limit = "1GB";
  bool json = false;
  bool quiet = false;
  bool progress = false;
  TableFlags table_flags;
};

Status CheckInputs(const AppendArgs& args) {
  int stdin_count = 0;
  for (const std::string& input : args.inputs) {
    if (input == "-") {
      ++stdin_count;
    } else if (::access(input.c_str(), R_OK) != 0) {
      return InvalidArgumentError("input \"" + input + "\": no such readable file");
    }
  }
  if (stdin_count > 1) return InvalidArgumentError("input \"-\" (stdin) given more than once");
  return OkStatus();
}

// How a message names input `index`: "input 2/3 rows.csv".
std::string InputPrefix(const AppendArgs& args, size_t index) {
  const std::string& name = args.inputs[index];
  return "input " + std::to_string(index + 1) + "/" + std::to_string(args.inputs.size()) + " " +
         (name == "-" ? "stdin" : name);
}

// Table::Append's events as the progress line and the per-input messages.
std::function<void(const AppendEvent&)> ShowEvents(const AppendArgs& args,
                                                   ProgressLine& progress) {
  return [&args, &progress](const AppendEvent& e) {
    const std::string prefix = InputPrefix(args, e.input);
    switch (e.kind) {
      case AppendEvent::Kind::kConverting:
        if (!args.quiet) {
          progress.Clear();
          std::cerr << prefix << ": converting\n";
        }
        break;
      case AppendEvent::Kind::kProgress:
        progress.Show(e.step, prefix + ": " + e.step + " " + ProgressLine::Percent(e.percent));
        break;
      case AppendEvent::Kind::kUploading:
        progress.Show("uploading", prefix + ": uploading file " + std::to_string(e.file) + "/" +
                                       std::to_string(e.files));
        break;
      case AppendEvent::Kind::kWritten:
        progress.Clear();
        if (!args.quiet) {
          std::cerr << prefix << ": " << e.rows << " row(s) in " << e.files
                    << " file(s) written\n";
        }
        break;
    }
  };
}

// The inputs as Table::Append takes them; stdin is first spooled to a file
// in `staging` (never all of it in memory).
StatusOr<std::vector<AppendInput>> Inputs(const AppendArgs& args, StagingDir& staging,
                                          ProgressLine& progress) {
  std::vector<AppendInput> inputs;
  for (size_t i = 0; i < args.inputs.size(); ++i) {
    AppendInput input{args.inputs[i], args.format, args.inputs[i], {}};
    if (input.path == "-") {
      const std::string prefix = InputPrefix(args, i);
      DC_ASSIGN_OR_RETURN(input.path, staging.SaveStdin("stdin-input", [&](int64_t bytes) {
        progress.Show("reading", prefix + ": reading " + ProgressLine::Bytes(bytes));
      }));
      input.label = "stdin";
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

int Report(const AppendArgs& args, const std::string& uri, const AppendResult& staged) {
  const CommitOutcome& o = staged.outcome;
  if (args.json) {
    nlohmann::ordered_json out{{"table", uri},
                               {"result", o.result == CommitResult::kConflict ? "conflict" : "committed"},
                               {"version", o.version},
                               {"files", staged.adds.size()},
                               {"rows", staged.rows},
                               {"attempts", o.attempts},
                               {"rebases", o.rebases}};
    if (o.assigned) {
      out["assigned"] = true;  // by the commit service
      out["merged"] = o.merged;
    }
    std::cout << out.dump() << "\n";
  }
  if (o.result == CommitResult::kConflict) {
    std::cerr << "conflict: table " << uri << ": " << o.conflict->Describe()
              << "; nothing was committed\n";
    return kExitConflict;
  }
  if (!args.json) {
    std::cout << "appended " << staged.rows << " row(s) in " << staged.adds.size()
              << " file(s) to " << uri << ": committed version " << o.version << " ("
              << (o.assigned ? "assigned by the commit service"
                             : std::to_string(o.attempts) + " attempt(s)")
              << ")\n";
  }
  return kExitOk;
}

int RunAppend(const AppendArgs& args) {
  if (args.max_attempts < 1) return ReportError(InvalidArgumentError("--max-attempts must be at least 1"));
  if (Status st = CheckInputs(args); !st.ok()) return ReportError(st);
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  // A table that cannot be appended to is refused before stdin is read.
  if (auto snapshot = table->Snapshot(); !snapshot.ok()) return ReportError(snapshot.status());
  ProgressLine progress(args.progress, args.quiet);
  auto staging = StagingDir::Create();  // for stdin
  if (!staging.ok()) return ReportError(staging.status());
  auto inputs = Inputs(args, *staging, progress);
  if (!inputs.ok()) {
    return ReportError(inputs.status().WithContext("table " + table->uri() + ": nothing was committed"));
  }
  AppendOptions options;
  options.transaction.max_attempts = args.max_attempts;
  options.memory_limit = args.memory_limit;
  options.on_event = ShowEvents(args, progress);
  auto result = table->Append(*inputs, options);
  progress.Clear();
  if (!result.ok()) return ReportError(result.status());
  return Report(args, table->uri(), *result);
}

}  // namespace

void RegisterAppend(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<AppendArgs>();
  CLI::App* cmd = app.add_subcommand(
      "append", "Append rows from CSV, JSON-lines or Parquet files as Parquet data files (one commit)");
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_option("inputs", args->inputs, "Input files (.csv, .json/.jsonl, .parquet); - for stdin")
      ->required();
  cmd->add_option("--format", args->format,
                  "csv, json or parquet (default: from the file name, else its first bytes)");
  cmd->add_option("--max-attempts", args->max_attempts, "Writes tried before giving up")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the outcome as JSON");
  cmd->add_flag("--quiet", args->quiet, "No progress on stderr");
  cmd->add_flag("--progress", args->progress,
                "Show progress on stderr even when it is not a terminal");
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Memory DuckDB may use converting (e.g. 512MB, 4GB); beyond it, it spills "
                  "to a temporary directory")
      ->capture_default_str();
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunAppend(*args); });
}

}  // namespace deltacommit::cli
