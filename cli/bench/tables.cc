// `deltacommit bench`: the tables of one run, created before it and checked
// after it through the CLI's own commands (so with the mode's log store:
// coordinated reads include the commits the service has not published).
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/modes.h"
#include "shared/self_process.h"

namespace deltacommit::cli {
namespace {

// The table's state as `deltacommit snapshot --json` prints it.
StatusOr<nlohmann::json> Snapshot(const std::string& self, const ModeTarget& target,
                                  const std::string& table, const std::string& out) {
  std::vector<std::string> args = {"snapshot", table, "--json"};
  args.insert(args.end(), target.options.begin(), target.options.end());
  if (RunSelf(self, args, out) != 0) {
    return UnavailableError("deltacommit snapshot " + table + " (" + target.mode +
                            "): " + ReadChildOutput(out + ".err"));
  }
  nlohmann::json j = nlohmann::json::parse(ReadChildOutput(out), nullptr, false);
  if (!j.is_object() || !j.contains("version")) {
    return DataLossError("deltacommit snapshot " + table + " --json printed no version");
  }
  return j;
}

// The differences between one table's log and its writers' reports; "" when
// none.
std::string Differences(const nlohmann::json& snap, const TableTally& tally, int writers,
                        int commits, bool blind) {
  std::ostringstream d;
  const int64_t version = snap["version"].get<int64_t>();
  const bool versions_match =
      static_cast<int64_t>(tally.versions.size()) == version &&
      (version == 0 || (*tally.versions.begin() == 1 && *tally.versions.rbegin() == version));
  if (!versions_match) {
    d << " the log is at version " << version << " but the writers' " << tally.committed
      << " landed commits are in " << tally.versions.size() << " versions";
    if (!tally.versions.empty()) {
      d << " (" << *tally.versions.begin() << ".." << *tally.versions.rbegin() << ")";
    }
    d << ";";
  }
  const nlohmann::json txns = snap.value("txns", nlohmann::json::object());
  for (const auto& [writer, batch] : tally.last_batch) {
    const std::string app = "demo-writer-" + std::to_string(writer);
    if (txns.value(app, int64_t{-1}) != batch) {
      d << " writer " << writer << "'s last landed batch is " << batch << " but the log's "
        << app << " transaction is at " << txns.value(app, int64_t{-1}) << ";";
    }
  }
  const int64_t expected = int64_t{writers} * commits;
  if (blind && (tally.committed != expected || snap.value("numFiles", int64_t{-1}) != expected)) {
    d << " blind appends: " << expected << " expected to land, " << tally.committed
      << " reported landing, " << snap.value("numFiles", int64_t{-1})
      << " files in the snapshot;";
  }
  return d.str();
}

}  // namespace

StatusOr<std::vector<std::string>> CreateTables(const std::string& self, const ModeTarget& target,
                                                const std::string& name, int count,
                                                const std::string& scratch) {
  std::vector<std::string> tables;
  for (int k = 0; k < count; ++k) {
    const std::string uri = target.table_root + "/" + name + "-t" + std::to_string(k);
    std::vector<std::string> args = {"create", uri, "--schema", "id:long"};
    args.insert(args.end(), target.options.begin(), target.options.end());
    const std::string out = scratch + ".create-t" + std::to_string(k) + ".out";
    if (RunSelf(self, args, out) != 0) {
      return UnavailableError("deltacommit create " + uri + " (" + target.mode +
                              "): " + ReadChildOutput(out + ".err"));
    }
    tables.push_back(uri);
  }
  return tables;
}

StatusOr<std::vector<int64_t>> CheckTables(const std::string& self, const ModeTarget& target,
                                           const std::vector<WriterOutput>& outputs,
                                           const RunStats& stats, int commits, bool blind,
                                           const std::string& scratch) {
  std::vector<std::string> tables;
  std::map<std::string, int> writers;
  for (const WriterOutput& o : outputs) {
    if (writers[o.table]++ == 0) tables.push_back(o.table);
  }
  std::vector<int64_t> versions;
  for (size_t k = 0; k < tables.size(); ++k) {
    const std::string& table = tables[k];
    DC_ASSIGN_OR_RETURN(
        const nlohmann::json snap,
        Snapshot(self, target, table, scratch + ".snapshot-t" + std::to_string(k) + ".json"));
    const auto tally = stats.by_table.find(table);
    const std::string differences = Differences(
        snap, tally == stats.by_table.end() ? TableTally{} : tally->second, writers[table],
        commits, blind);
    if (!differences.empty()) {
      return DataLossError(target.mode + " table " + table + ":" + differences);
    }
    versions.push_back(snap["version"].get<int64_t>());
  }
  return versions;
}

}  // namespace deltacommit::cli
