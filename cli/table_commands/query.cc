// `deltacommit query TABLE SQL`: runs SQL (DuckDB's dialect) over the
// snapshot's active files, seen as a view named `t`. Several statements run
// in order and the last one answers; a statement that is not a query (COPY
// ... TO, EXPLAIN, SET) runs as it is. The rows are printed as a table, as
// CSV or as JSON lines (nested values as JSON, decimals exactly), or written
// to a file with --output.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "deltacommit/table.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct QueryArgs {
  std::string table;
  std::string sql;
  int64_t version = -1;
  bool json = false;
  bool csv = false;
  std::string output;
  std::string format;
  bool overwrite = false;
  TableFlags table_flags;
};

std::string Cell(const std::optional<std::string>& v) { return v ? *v : "NULL"; }

void PrintTable(const QueryResult& r) {
  std::vector<size_t> widths;
  for (const std::string& c : r.columns) widths.push_back(c.size());
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], Cell(row[i]).size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      std::cout << (i ? " | " : "") << cells[i] << std::string(widths[i] - cells[i].size(), ' ');
    }
    std::cout << "\n";
  };
  line(r.columns);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(Cell(v));
    line(cells);
  }
}

std::string CsvField(const std::optional<std::string>& v) {
  if (!v) return "";
  if (v->find_first_of(",\"\n\r") == std::string::npos) return *v;
  std::string out = "\"";
  for (char c : *v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void PrintCsv(const QueryResult& r) {
  for (size_t i = 0; i < r.columns.size(); ++i) std::cout << (i ? "," : "") << CsvField(r.columns[i]);
  std::cout << "\n";
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < row.size(); ++i) std::cout << (i ? "," : "") << CsvField(row[i]);
    std::cout << "\n";
  }
}

Status CheckFlags(const QueryArgs& args) {
  if (args.json && args.csv) return InvalidArgumentError("--json and --csv exclude each other");
  if (args.output.empty()) {
    if (!args.format.empty()) return InvalidArgumentError("--format goes with --output FILE");
    if (args.overwrite) return InvalidArgumentError("--overwrite goes with --output FILE");
  } else if (args.json || args.csv) {
    return InvalidArgumentError(
        "--output writes a file; --json and --csv choose what is printed (use --format)");
  }
  return OkStatus();
}

int RunQuery(const QueryArgs& args) {
  if (Status flags = CheckFlags(args); !flags.ok()) return ReportError(flags);
  auto table = OpenCliTable(args.table, args.table_flags);
  if (!table.ok()) return ReportError(table.status());
  QueryOptions options;
  if (args.version >= 0) options.version = args.version;
  options.json_rows = args.json;
  if (!args.output.empty()) {
    options.output = QueryOutputFile{args.output, args.format, args.overwrite};
  }
  auto result = table->Query(args.sql, options);
  if (!result.ok()) return ReportError(result.status());
  if (result->rows_written) {
    std::cout << "wrote " << *result->rows_written << " row(s) to " << args.output << "\n";
  } else if (args.json) {
    for (const auto& row : result->rows) std::cout << Cell(row.at(0)) << "\n";
  } else if (args.csv) {
    PrintCsv(*result);
  } else {
    PrintTable(*result);
  }
  return kExitOk;
}

}  // namespace

void RegisterQuery(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "query", "Run SQL (DuckDB) over the table's active files, a view named t");
  cmd->add_option("table", args->table, "Table location")->required();
  cmd->add_option("sql", args->sql, "SQL, e.g. \"SELECT count(*) FROM t\"")->required();
  cmd->add_option("--version", args->version, "Table version to read (default: latest)");
  cmd->add_flag("--json", args->json, "One JSON object per result row");
  cmd->add_flag("--csv", args->csv, "CSV with a header line");
  cmd->add_option("--output", args->output,
                  "Write the rows to this file (whole or not at all) instead of printing them");
  cmd->add_option("--format", args->format,
                  "The --output file's format: parquet, csv or json (JSON lines); default: "
                  "from its extension");
  cmd->add_flag("--overwrite", args->overwrite, "Let --output replace an existing file");
  AddTableOptions(cmd, &args->table_flags);
  cmd->callback([args, exit_code] { *exit_code = RunQuery(*args); });
}

}  // namespace deltacommit::cli
