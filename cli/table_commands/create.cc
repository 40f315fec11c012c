// `deltacommit create TABLE (--schema SCHEMA | --from FILE) [--partition-by COLS]
//  [--property K=V]...`; --from infers the schema from a sample data file.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "deltacommit/table.h"
#include "deltacommit/parquet/data_file_handler.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct CreateArgs {
  std::string table;
  std::string schema;
  std::string from;  // a sample data file to infer the schema from
  std::string from_format;
  std::vector<std::string> partition_by;
  std::vector<std::string> properties;
  std::string name;
  std::string description;
  bool json = false;
  TableFlags table_flags;
};

// The schemaString of --from's file, through DuckDB.
StatusOr<std::string> InferSchema(const CreateArgs& args) {
  DC_ASSIGN_OR_RETURN(std::unique_ptr<DuckDbDataFileHandler> handler,
                      DuckDbDataFileHandler::Create());
  DataInput sample;
  sample.path = args.from;
  sample.format = args.from_format;
  sample.label = args.from;
  auto schema = handler->InferSchemaString(sample);
  if (!schema.ok()) return schema.status().WithContext("--from");
  return schema;
}

StatusOr<Metadata> BuildMetadata(const CreateArgs& args, int64_t now) {
  NewTable spec;
  if (!args.name.empty()) spec.name = args.name;
  if (!args.description.empty()) spec.description = args.description;
  if (!args.from.empty()) {
    DC_ASSIGN_OR_RETURN(spec.schema, InferSchema(args));
  } else {
    spec.schema = args.schema;
  }
  spec.partition_columns = args.partition_by;
  for (const std::string& kv : args.properties) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("--property \"" + kv + "\": expected KEY=VALUE");
    }
    spec.configuration[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return NewTableMetadata(std::move(spec), now);
}

int RunCreate(const CreateArgs& args) {
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  auto metadata = BuildMetadata(args, SystemClock().NowMillis());
  if (!metadata.ok()) return ReportError(metadata.status());
  auto outcome = table->Create(*metadata);
  if (!outcome.ok()) return ReportError(outcome.status());
  if (outcome->result != CommitResult::kCommitted) {
    std::cerr << "conflict: table " << table->uri() << " was created concurrently by another writer\n";
    return kExitConflict;
  }
  if (args.json) {
    nlohmann::ordered_json out{{"table", table->uri()}, {"version", outcome->version},
                               {"tableId", metadata->id}};
    std::cout << out.dump() << "\n";
  } else {
    std::cout << "created table " << table->uri() << " (id " << metadata->id << ") at version 0\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterCreate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CreateArgs>();
  CLI::App* cmd = app.add_subcommand("create", "Create a Delta table (writes version 0)");
  cmd->add_option("table", args->table, "Table location")->required();
  CLI::Option* schema = cmd->add_option(
      "--schema", args->schema, "Delta schema JSON, or compact 'id:long,name:string,price:decimal(10,2)'");
  CLI::Option* from = cmd->add_option(
      "--from", args->from, "Infer the schema from a sample data file (.csv, .json/.jsonl, .parquet)");
  from->excludes(schema);
  cmd->add_option("--from-format", args->from_format, "csv, json or parquet for --from (default: detected)")
      ->needs(from);
  cmd->add_option("--partition-by", args->partition_by, "Partition columns")->delimiter(',');
  cmd->add_option("--property", args->properties, "Table property KEY=VALUE (repeatable)");
  cmd->add_option("--name", args->name, "Table name");
  cmd->add_option("--description", args->description, "Table description");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] {
    if (args->schema.empty() == args->from.empty()) {
      *exit_code = ReportError(InvalidArgumentError("create: give the schema with --schema or --from"));
      return;
    }
    *exit_code = RunCreate(*args);
  });
}

}  // namespace deltacommit::cli
