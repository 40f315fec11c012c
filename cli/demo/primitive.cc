// `deltacommit demo-primitive` (hidden): a process that makes C calls of a
// store's own commit primitive on fresh keys, with the same clients and
// metering as a writer, and records each as demo-writer records a commit:
// the floor `deltacommit bench` puts beside the commit modes.
//   link          the local store's create-if-absent of a new file (link(2))
//   s3-put        a conditional PUT (If-None-Match: *) on S3
//   dynamodb-put  a conditional PutItem (attribute_not_exists) on DynamoDB,
//                 the lock table of the table's s3-dynamodb options
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "deltacommit/log_path.h"
#include "deltacommit/table.h"
#include "demo/demo.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct PrimitiveArgs {
  std::string table, out, primitive;
  int writer = 0, commits = 1;
  TableFlags table_flags;
};

// As big as a demo-writer's commit (commitInfo, one add, one txn).
std::string CommitSizedContent(const std::string& key) {
  std::string content = nlohmann::json{{"commitInfo", {{"key", key}}}}.dump() + "\n";
  content.resize(600, ' ');
  content += "\n";
  return content;
}

// One call of the primitive on the fresh `key` (under _delta_log/).
Status Call(const std::string& primitive, const TableAdapters& adapters, const std::string& key) {
  if (primitive == "dynamodb-put") {
    ExternalCommitEntry entry;
    entry.table_path = adapters.uri;
    entry.file_name = key.substr(kLogDir.size());
    entry.temp_path = ".tmp/" + entry.file_name + "." + NewUuid();
    return adapters.coordination->PutIfAbsent(entry);
  }
  return adapters.store->PutIfAbsent(key, CommitSizedContent(key));
}

Status CheckPrimitive(const PrimitiveArgs& a, const TableAdapters& adapters) {
  if (a.primitive == "dynamodb-put") {
    if (adapters.coordination == nullptr) {
      return InvalidArgumentError("--primitive dynamodb-put needs --log-store s3-dynamodb");
    }
    return OkStatus();
  }
  if (a.primitive == "link" && !adapters.is_local()) {
    return InvalidArgumentError("--primitive link needs a local table path");
  }
  if (a.primitive == "s3-put" && adapters.is_local()) {
    return InvalidArgumentError("--primitive s3-put needs an s3:// table");
  }
  if (a.primitive != "link" && a.primitive != "s3-put") {
    return InvalidArgumentError("--primitive \"" + a.primitive +
                                "\": use link, s3-put or dynamodb-put");
  }
  return OkStatus();
}

int RunPrimitive(const PrimitiveArgs& a) {
  auto options = ToTableOptions(a.table_flags);
  if (!options.ok()) return ReportError(options.status());
  auto table = OpenTable(a.table, std::move(options).value());
  if (!table.ok()) return ReportError(table.status());
  const TableAdapters& adapters = table->adapters();
  if (Status ok = CheckPrimitive(a, adapters); !ok.ok()) return ReportError(ok);
  std::ofstream out(a.out, std::ios::app);
  for (int i = 0; i < a.commits; ++i) {
    // Fresh: no other writer's key, and none this writer made before.
    const std::string key = std::string(kLogDir) + "raw-" + std::to_string(a.writer) + "-" +
                            std::to_string(i) + "-" + NewUuid() + ".json";
    const std::map<std::string, int64_t> before = CallCounts(adapters);
    const auto start = std::chrono::steady_clock::now();
    const int64_t start_ms = SystemClock().NowMillis();
    if (Status st = Call(a.primitive, adapters, key); !st.ok()) {
      return ReportError(st.WithContext(a.primitive + " of " + key));
    }
    WriteAttemptLine(
        out,
        {{"result", "committed"}, {"version", i + 1}, {"attempts", 1}, {"batch", i}, {"path", key}},
        start, start_ms, adapters, before);
  }
  return kExitOk;
}

}  // namespace

void RegisterDemoPrimitive(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<PrimitiveArgs>();
  CLI::App* cmd = app.add_subcommand("demo-primitive", "")->group("");  // hidden
  cmd->add_option("table", a->table)->required();
  cmd->add_option("--primitive", a->primitive)->required();
  cmd->add_option("--writer", a->writer);
  cmd->add_option("--commits", a->commits);
  cmd->add_option("--out", a->out)->required();
  AddTableOptions(cmd, &a->table_flags);
  cmd->callback([a, exit_code] { *exit_code = RunPrimitive(*a); });
}

}  // namespace deltacommit::cli
