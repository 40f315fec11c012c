#include "service_load/table_check.h"

#include <atomic>
#include <optional>
#include <thread>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "service_load/committers.h"
#include "service_load/table_store.h"

namespace deltacommit::bench {
namespace {

constexpr std::string_view kStagedDir = "_delta_log/_staged_commits/";

// The bench commits a version holds: (committer, seq) each (several when
// the service merged appends), or why it holds none.
struct Found {
  std::vector<std::pair<int, int64_t>> commits;
  std::string problem;
};

Found Identify(ActionParser& parser, Version version,
               const StatusOr<std::string>& content) {
  const std::string where = "version " + std::to_string(version);
  if (!content.ok())
    return {{}, where + " cannot be read: " + content.status().ToString()};
  StatusOr<std::vector<Action>> actions = parser.ParseCommit(*content);
  if (!actions.ok())
    return {{}, where + " is malformed: " + actions.status().message()};
  Found found;
  for (const Action& action : *actions) {
    const auto* add = std::get_if<AddFile>(&action);
    if (add == nullptr) continue;
    int id = 0;
    int64_t seq = 0;
    if (!ParseAddPath(add->path, id, seq)) {
      return {{}, where + " adds " + add->path + ", not a bench file"};
    }
    found.commits.emplace_back(id, seq);
  }
  if (found.commits.empty()) found.problem = where + " adds no bench file";
  return found;
}

std::string Name(const std::pair<int, int64_t>& commit) {
  return "commit #" + std::to_string(commit.second) + " of committer c" +
         std::to_string(commit.first);
}

// Reads versions 1..latest with `readers` threads, each with its own store.
std::vector<Found> ReadCommits(const std::string& table, Version latest,
                               int readers) {
  std::vector<Found> found(static_cast<size_t>(latest + 1));
  std::atomic<Version> next{1};
  std::vector<std::thread> threads;
  for (int r = 0; r < readers; ++r) {
    threads.emplace_back([&] {
      StatusOr<TableStore> store = OpenTableStore(table);
      ActionParser parser;
      for (Version v = next++; v <= latest; v = next++) {
        found[static_cast<size_t>(v)] =
            store.ok() ? Identify(parser, v, store->store->Get(CommitPath(v)))
                       : Found{{}, store.status().ToString()};
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return found;
}

// Checks one bench commit found at `version` against what was acknowledged.
void CheckFound(const std::pair<int, int64_t>& commit, Version version,
                const Acknowledged& acknowledged, int64_t abandoned,
                std::map<std::pair<int, int64_t>, Version>& seen, TableCheck& check) {
  if (auto [it, inserted] = seen.emplace(commit, version); !inserted) {
    check.problems.push_back(Name(commit) + " is in the log twice: versions " +
                             std::to_string(it->second) + " and " + std::to_string(version));
  }
  auto told = acknowledged.find(commit);
  if (told == acknowledged.end() && abandoned == 0) {
    check.problems.push_back("version " + std::to_string(version) + " holds " + Name(commit) +
                             ", which no committer was told had succeeded");
  } else if (told != acknowledged.end() && told->second != version) {
    check.problems.push_back(Name(commit) + " was acknowledged as version " +
                             std::to_string(told->second) + " but is version " +
                             std::to_string(version));
  }
}

void CompareWithAcknowledged(const std::vector<Found>& found,
                             const Acknowledged& acknowledged,
                             int64_t abandoned, TableCheck& check) {
  std::map<std::pair<int, int64_t>, Version> seen;
  for (size_t v = 1; v < found.size(); ++v) {
    if (found[v].commits.empty()) check.problems.push_back(found[v].problem);
    for (const auto& commit : found[v].commits) {
      CheckFound(commit, static_cast<Version>(v), acknowledged, abandoned, seen, check);
    }
  }
  for (const auto& [commit, version] : acknowledged) {
    if (!seen.contains(commit)) {
      check.problems.push_back(Name(commit) + " was acknowledged as version " +
                               std::to_string(version) +
                               " but is not in the log");
    }
  }
}

}  // namespace

TableCheck CheckTableLog(const std::string& table,
                         const Acknowledged& acknowledged, int64_t abandoned,
                         int readers) {
  TableCheck check;
  check.table = table;
  StatusOr<TableStore> store = OpenTableStore(table);
  StatusOr<std::vector<ObjectMeta>> listing =
      store.ok() ? store->store->List(kLogDir)
                 : StatusOr<std::vector<ObjectMeta>>(store.status());
  if (!listing.ok()) {
    check.problems.push_back("cannot list the log: " +
                             listing.status().ToString());
    return check;
  }
  std::vector<Version> versions;
  for (const ObjectMeta& meta : *listing) {
    std::string_view key = meta.key;
    if (key.starts_with(kStagedDir)) ++check.staged_left;
    const ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
    if (parsed.type == LogFileType::kCommit) versions.push_back(parsed.version);
  }
  check.commit_files = static_cast<int64_t>(versions.size());
  // Listed in key order, and commit names are zero-padded: ascending.
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i] != static_cast<Version>(i)) {
      check.problems.push_back(
          "the log has a gap: version " + std::to_string(i) +
          " is missing (the next one is " + std::to_string(versions[i]) + ")");
      return check;
    }
  }
  check.latest = versions.empty() ? -1 : versions.back();
  CompareWithAcknowledged(ReadCommits(table, check.latest, readers),
                          acknowledged, abandoned, check);
  return check;
}

int64_t DeleteTable(const std::string& table, int threads) {
  StatusOr<TableStore> store = OpenTableStore(table);
  if (!store.ok()) return 0;
  StatusOr<std::vector<ObjectMeta>> listing = store->store->List("");
  if (!listing.ok()) return 0;
  std::atomic<size_t> next{0};
  std::atomic<int64_t> deleted{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      StatusOr<TableStore> own = OpenTableStore(table);
      if (!own.ok()) return;
      for (size_t i = next++; i < listing->size(); i = next++) {
        if (own->store->Delete((*listing)[i].key).ok()) ++deleted;
      }
    });
  }
  for (std::thread& t : workers) t.join();
  return deleted.load();
}

}  // namespace deltacommit::bench
