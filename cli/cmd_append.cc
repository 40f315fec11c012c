// `deltacommit append TABLE INPUT...`: converts CSV, JSON-lines or Parquet
// inputs to Parquet data files matching the table's schema, writes them into
// the table and commits them as one blind append (conflict detection and
// retry as `commit`). Memory stays bounded whatever the input's size: stdin
// is spooled to a file, DuckDB spills beyond --memory-limit into the
// staging directory, and data files are cut at kTargetDataFileBytes.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_file_handler.h"
#include "auto_checkpoint.h"
#include "commands.h"
#include "data_staging.h"
#include "deltacommit/clock.h"
#include "deltacommit/transaction.h"
#include "output.h"
#include "progress_line.h"
#include "table_access.h"

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
  TableOptions table_options;
};

struct Staged {
  std::vector<AddFile> adds;
  std::vector<std::string> uploaded;  // keys written into the table
  int64_t rows = 0;
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

// What every input's conversion and upload share.
struct StageContext {
  const AppendArgs& args;
  DataFileHandler& handler;
  const TableLayout& layout;
  StagingDir& staging;
  ObjectStore& store;
  ProgressLine& progress;
};

Status UploadFiles(const StageContext& c, const std::string& prefix,
                   const std::vector<WrittenDataFile>& files, Staged& staged) {
  for (size_t i = 0; i < files.size(); ++i) {
    const WrittenDataFile& f = files[i];
    c.progress.Show("uploading", prefix + ": uploading file " + std::to_string(i + 1) + "/" +
                                     std::to_string(files.size()));
    AddFile add;
    add.path = f.add_path;
    add.partition_values = f.partition_values;
    DC_ASSIGN_OR_RETURN(add.size, LocalFileSize(f.local_path));
    add.modification_time = SystemClock().NowMillis();
    add.data_change = true;
    add.stats = f.stats;
    DC_RETURN_IF_ERROR(UploadFile(c.store, f.local_path, f.table_key));
    staged.uploaded.push_back(f.table_key);
    staged.adds.push_back(std::move(add));
    staged.rows += f.num_records;
  }
  return OkStatus();
}

// Converts and uploads one input, adding its files to `staged`.
Status StageInput(const StageContext& c, size_t index, Staged& staged) {
  const std::string& name = c.args.inputs[index];
  DataInput input{name, c.args.format, name == "-" ? "stdin" : name, {}};
  const std::string prefix = "input " + std::to_string(index + 1) + "/" +
                             std::to_string(c.args.inputs.size()) + " " + input.label;
  if (name == "-") {
    DC_ASSIGN_OR_RETURN(input.path, c.staging.SaveStdin("stdin-input", [&](int64_t bytes) {
      c.progress.Show("reading", prefix + ": reading " + ProgressLine::Bytes(bytes));
    }));
  }
  if (!c.args.quiet) {
    c.progress.Clear();
    std::cerr << prefix << ": converting\n";
  }
  input.progress = [&](std::string_view step, double percent) {
    c.progress.Show(std::string(step), prefix + ": " + std::string(step) + " " +
                                           ProgressLine::Percent(percent));
  };
  DC_ASSIGN_OR_RETURN(std::vector<WrittenDataFile> files,
                      c.handler.WriteDataFiles(input, c.layout, c.staging.path()));
  const int64_t rows_before = staged.rows;
  DC_RETURN_IF_ERROR(UploadFiles(c, prefix, files, staged));
  c.progress.Clear();
  if (!c.args.quiet) {
    std::cerr << prefix << ": " << staged.rows - rows_before << " row(s) in " << files.size()
              << " file(s) written\n";
  }
  return OkStatus();
}

// Data files nobody will reference: removed, best effort (a commit whose
// outcome is unknown keeps them, since it may have referenced them).
void RemoveUploaded(ObjectStore& store, const Staged& staged) {
  for (const std::string& key : staged.uploaded) (void)store.Delete(key);
}

// What the data files must match, with the table's statistics setting.
StatusOr<TableLayout> Layout(const Metadata& m) {
  TableLayout layout{m.schema_string, m.partition_columns};
  if (auto it = m.configuration.find("delta.dataSkippingNumIndexedCols");
      it != m.configuration.end()) {
    try {
      size_t used = 0;
      layout.stats_columns = std::stoi(it->second, &used);
      if (used != it->second.size() || layout.stats_columns < -1) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return InvalidArgumentError("table property delta.dataSkippingNumIndexedCols=\"" + it->second +
                                  "\": expected an integer >= -1");
    }
  }
  return layout;
}

TransactionOptions AppendOptions(const AppendArgs& args, const Metadata& m) {
  TransactionOptions o;
  o.operation = "WRITE";
  o.operation_parameters = {{"mode", "\"Append\""},
                            {"partitionBy", nlohmann::json(nlohmann::json(m.partition_columns).dump()).dump()}};
  o.max_attempts = args.max_attempts;
  return o;
}

int Report(const AppendArgs& args, const std::string& uri, const Staged& staged,
           const CommitOutcome& o) {
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
  auto table = OpenTableUri(args.table, args.table_options);
  if (!table.ok()) return ReportError(table.status());
  auto snapshot = LoadSnapshot(*table->log, table->Request());
  if (!snapshot.ok()) return ReportError(snapshot.status());
  if (Status st = CheckDataCommandSupported(**snapshot, false, "append"); !st.ok()) {
    return ReportError(st);
  }
  auto staging = StagingDir::Create();
  if (!staging.ok()) return ReportError(staging.status());
  // DuckDB spills into the staging directory (removed afterwards), never
  // into the working directory.
  DuckDbOptions duckdb;
  duckdb.memory_limit = args.memory_limit;
  duckdb.temp_directory = staging->path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return ReportError(handler.status().WithContext("--memory-limit"));
  const Metadata& m = (*snapshot)->metadata();
  auto layout = Layout(m);
  if (!layout.ok()) return ReportError(layout.status());
  ProgressLine progress(args.progress, args.quiet);
  const StageContext context{args, **handler, *layout, *staging, *table->store, progress};
  Staged staged;
  for (size_t i = 0; i < args.inputs.size(); ++i) {
    Status st = StageInput(context, i, staged);
    if (!st.ok()) {
      RemoveUploaded(*table->store, staged);
      return ReportError(st.WithContext("table " + table->uri + ": nothing was committed"));
    }
  }
  if (staged.adds.empty()) {
    return ReportError(InvalidArgumentError("the inputs hold no rows: nothing was committed"));
  }
  Transaction txn(*table->log, *snapshot, AppendOptions(args, m), SystemClock(), RealSleeper());
  for (const AddFile& add : staged.adds) txn.AddAction(add);
  auto outcome = txn.Commit();
  if (!outcome.ok()) {
    if (!outcome.status().IsUnknownOutcome()) RemoveUploaded(*table->store, staged);
    return ReportError(outcome.status().WithContext("table " + table->uri));
  }
  if (outcome->result == CommitResult::kConflict) RemoveUploaded(*table->store, staged);
  if (outcome->result == CommitResult::kCommitted) {
    MaybeCheckpointAfterCommit(*table, **snapshot, outcome->version);
  }
  return Report(args, table->uri, staged, *outcome);
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
  AddTableOptions(cmd, &args->table_options);
  cmd->callback([args, exit_code] { *exit_code = RunAppend(*args); });
}

}  // namespace deltacommit::cli
