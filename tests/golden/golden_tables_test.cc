// Golden tables: the Delta project's corpus of real tables, read with
// LoadSnapshot and CheckLog and compared with a state derived here
// independently (nlohmann::json, not ActionParser/LogReplay).
//
// The corpus is GoldenTablesDir() (DELTACOMMIT_GOLDEN_DIR, else shared/
// beside the checkout); each directory in it is one test case. Directories
// that are not a plain table (the table is in a subdirectory, there is no
// table, or the table is broken on purpose) are classified in kRules with
// a reason; any other directory must hold a table that loads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/log_check.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/golden_dir.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::Contains;
using ::testing::HasSubstr;

std::optional<fs::path> GoldenDir() { return GoldenTablesDir(); }

std::string UnsetMessage() { return GoldenTablesMissingMessage(); }

// --- Classification ----------------------------------------------------------

enum class Expect {
  kLoads,  // a table (in `table_dir`) that must load
  kFails,  // a broken table: LoadSnapshot must fail with `code` and `message`
  kNotATable,  // fixtures for other suites: must be NotFound
  kContainer,  // one table per subdirectory, each its own case
};

struct TableRule {
  std::string_view name;
  Expect expect;
  std::string_view reason;
  std::string_view table_dir = "";  // the table root inside the directory
  StatusCode code = StatusCode::kOk;
  std::string_view message = "";  // in the error and among CheckLog's problems
  std::string_view checkpoint_lacks = "";  // action missing from its checkpoint
};

constexpr TableRule kRules[] = {
    {"data-reader-date-types-America", Expect::kLoads,
     "Spark wrote the table under its time-zone name", "Los_Angeles"},
    {"data-reader-date-types-Asia", Expect::kLoads,
     "Spark wrote the table under its time-zone name", "Beirut"},
    {"data-reader-date-types-Etc", Expect::kLoads,
     "Spark wrote the table under its time-zone name", "GMT+9"},
    {"hive", Expect::kContainer,
     "Hive connector fixtures: one Delta table per subdirectory"},
    {"log-store-listFrom", Expect::kNotATable,
     "LogStore.listFrom fixture: bare files 1, 2, 3 and no _delta_log", "",
     StatusCode::kNotFound, "no Delta table"},
    {"log-store-read", Expect::kNotATable,
     "LogStore.read fixture: bare files 0, 1 and no _delta_log", "",
     StatusCode::kNotFound, "no Delta table"},
    {"no-delta-log-folder", Expect::kFails,
     "data files without a _delta_log: not a Delta table", "",
     StatusCode::kNotFound, "no Delta table"},
    {"versions-not-contiguous", Expect::kFails,
     "commit 1 is missing between 0 and 2", "", StatusCode::kFailedPrecondition,
     "_delta_log/00000000000000000001.json"},
    // table_features.h: a reader version this build does not implement is
    // Unimplemented.
    {"deltalog-invalid-protocol-version", Expect::kFails,
     "protocol asks for minReaderVersion 99", "", StatusCode::kUnimplemented,
     "minReaderVersion=99"},
    {"deltalog-state-reconstruction-without-protocol", Expect::kFails,
     "the log has metaData but never a protocol", "",
     StatusCode::kFailedPrecondition, "missing protocol"},
    {"data-reader-absolute-paths-escaped-chars", Expect::kFails,
     "Delta's generator wrote protocol and adds but never metaData, which "
     "the protocol requires",
     "", StatusCode::kFailedPrecondition, "missing metaData"},
    {"deltalog-state-reconstruction-without-metadata", Expect::kFails,
     "the log has a protocol but never metaData", "",
     StatusCode::kFailedPrecondition, "missing metaData"},
    // Commits 0..10 are all there, so the JSON history alone is a sound table;
    // the checkpoint at 10 is the broken part, and a reader that trusts it
    // must refuse the state (checked with a simulated checkpoint reader).
    {"deltalog-state-reconstruction-from-checkpoint-missing-metadata",
     Expect::kLoads,
     "checkpoint 10 lacks metaData; the JSON history is complete", "",
     StatusCode::kOk, "", "metaData"},
    {"deltalog-state-reconstruction-from-checkpoint-missing-protocol",
     Expect::kLoads,
     "checkpoint 10 lacks protocol; the JSON history is complete", "",
     StatusCode::kOk, "", "protocol"},
};

// Cases are "<dir>" or "<container>/<dir>"; the latter are plain tables.
const TableRule* RuleFor(std::string_view name) {
  for (const TableRule& rule : kRules) {
    if (rule.name == name) return &rule;
  }
  return nullptr;
}

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::vector<std::string> SubdirectoryNames(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (IsDirectory(entry.path()))
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The table cases, listed at startup: none when the variable is unset.
std::vector<std::string> TableCases() {
  const std::optional<fs::path> dir = GoldenDir();
  if (!dir || !IsDirectory(*dir)) return {};
  std::vector<std::string> cases;
  for (const std::string& name : SubdirectoryNames(*dir)) {
    const TableRule* rule = RuleFor(name);
    if (rule == nullptr || rule->expect != Expect::kContainer) {
      cases.push_back(name);
      continue;
    }
    for (const std::string& sub : SubdirectoryNames(*dir / name))
      cases.push_back(name + "/" + sub);
  }
  return cases;
}

// The cases: the tables, or, when the corpus is absent, one empty case that
// skips (ctest lists them when it starts: PRE_TEST discovery).
std::vector<std::string> GoldenCases() {
  std::vector<std::string> cases = TableCases();
  if (cases.empty()) cases.push_back("");
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  return GoldenCaseName(info.param);
}

// --- The expected state, derived with nlohmann::json -------------------------

// (canonical path, deletion vector unique id or "").
using ExpectedKey = std::pair<std::string, std::string>;

struct ExpectedState {
  std::optional<json> protocol;
  std::optional<json> metadata;
  std::map<ExpectedKey, json> files;  // key -> the add action's value
  std::map<std::string, json> txns;   // appId -> the txn action's value
};

struct ExpectedLog {
  std::map<Version, fs::path> commits;
  // version -> each complete checkpoint there (its files' keys, sorted).
  std::map<Version, std::vector<std::vector<std::string>>> checkpoints;
  Version latest = -1;
  bool complete = false;              // commits 0..latest all present
  std::vector<ExpectedState> states;  // states[v], when complete
};

std::string Str(const json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_string() ? it->get<std::string>()
                                            : std::string();
}

int64_t Int(const json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

std::optional<std::vector<std::string>> StrList(const json& obj,
                                                const char* field) {
  auto it = obj.find(field);
  if (it == obj.end() || !it->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const json& v : *it)
    out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return out;
}

StringMap StrMap(const json& obj, const char* field) {
  StringMap out;
  auto it = obj.find(field);
  if (it == obj.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items())
    out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

// "file:/a" and "file:///a" name the file "/a" (Spark qualifies paths).
std::string Canonical(std::string path) {
  if (path.starts_with("file:///")) return path.substr(7);
  if (path.starts_with("file:/")) return path.substr(5);
  return path;
}

ExpectedKey KeyOfAction(const json& action) {
  std::string dv_id;
  auto dv = action.find("deletionVector");
  if (dv != action.end() && dv->is_object()) {
    dv_id = Str(*dv, "storageType") + Str(*dv, "pathOrInlineDv");
    if (dv->contains("offset"))
      dv_id += "@" + std::to_string(Int(*dv, "offset"));
  }
  return {Canonical(Str(action, "path")), dv_id};
}

// Applies one commit file; removes before adds, so the add of a key wins.
void ApplyCommit(const fs::path& file, ExpectedState& state) {
  std::ifstream in(file);
  ASSERT_TRUE(in) << "cannot read " << file;
  std::vector<ExpectedKey> removes;
  std::vector<json> adds;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(j.is_object() && j.size() == 1)
        << file << " line " << n << ": " << line;
    // (Not a structured binding over j.items(): that proxy is a temporary.)
    const std::string type = j.begin().key();
    const json& value = j.begin().value();
    if (type == "protocol") state.protocol = value;
    if (type == "metaData") state.metadata = value;
    if (type == "txn") state.txns[Str(value, "appId")] = value;
    if (type == "remove") removes.push_back(KeyOfAction(value));
    if (type == "add") adds.push_back(value);
  }
  for (const ExpectedKey& key : removes) state.files.erase(key);
  for (json& add : adds) {
    ExpectedKey key = KeyOfAction(add);
    state.files[std::move(key)] = std::move(add);
  }
}

std::string Pad(int64_t n, int width) {
  std::ostringstream out;
  out << std::setw(width) << std::setfill('0') << n;
  return out.str();
}

void CollectFile(
    const std::string& name, ExpectedLog& log,
    std::map<std::pair<Version, int64_t>, std::set<int64_t>>& parts) {
  static const std::regex kCommit(R"((\d{20})\.json)");
  static const std::regex kSingle(
      R"((\d{20})\.checkpoint(\.[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}\.(json|parquet)|\.parquet))");
  static const std::regex kPart(
      R"((\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet)");
  std::smatch m;
  if (std::regex_match(name, m, kCommit)) {
    log.commits[std::stoll(m[1].str())] = name;
  } else if (std::regex_match(name, m, kSingle)) {
    log.checkpoints[std::stoll(m[1].str())].push_back({"_delta_log/" + name});
  } else if (std::regex_match(name, m, kPart)) {
    parts[{std::stoll(m[1].str()), std::stoll(m[3].str())}].insert(
        std::stoll(m[2].str()));
  }
}

ExpectedLog DeriveExpected(const fs::path& log_dir) {
  ExpectedLog log;
  // (version, part count) -> the part numbers listed.
  std::map<std::pair<Version, int64_t>, std::set<int64_t>> parts;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(log_dir, ec)) {
    CollectFile(entry.path().filename().string(), log, parts);
  }
  for (const auto& [vn, got] : parts) {
    const auto [v, n] = vn;
    if (static_cast<int64_t>(got.size()) != n || *got.begin() != 1 ||
        *got.rbegin() != n)
      continue;
    std::vector<std::string> keys;
    for (int64_t p = 1; p <= n; ++p) {
      keys.push_back("_delta_log/" + Pad(v, 20) + ".checkpoint." + Pad(p, 10) +
                     "." + Pad(n, 10) + ".parquet");
    }
    log.checkpoints[v].push_back(std::move(keys));
  }
  if (!log.commits.empty()) log.latest = log.commits.rbegin()->first;
  if (!log.checkpoints.empty())
    log.latest = std::max(log.latest, log.checkpoints.rbegin()->first);
  log.complete = !log.commits.empty() && log.commits.begin()->first == 0 &&
                 static_cast<Version>(log.commits.size()) == log.latest + 1;
  if (!log.complete) return log;
  ExpectedState state;
  for (const auto& [v, name] : log.commits) {
    ApplyCommit(log_dir / name, state);
    log.states.push_back(state);
  }
  return log;
}

// Newest complete checkpoint at or below v.
std::optional<Version> CheckpointAtOrBelow(const ExpectedLog& log, Version v) {
  auto it = log.checkpoints.upper_bound(v);
  if (it == log.checkpoints.begin()) return std::nullopt;
  return std::prev(it)->first;
}

// --- Comparing ---------------------------------------------------------------

void ExpectMatches(const Snapshot& s, const ExpectedState& e, Version v) {
  SCOPED_TRACE("version " + std::to_string(v));
  EXPECT_EQ(s.version(), v);
  ASSERT_TRUE(e.protocol && e.metadata)
      << "expected state has no protocol/metaData";
  const Protocol& p = s.protocol();
  EXPECT_EQ(p.min_reader_version, Int(*e.protocol, "minReaderVersion"));
  EXPECT_EQ(p.min_writer_version, Int(*e.protocol, "minWriterVersion"));
  EXPECT_EQ(p.reader_features, StrList(*e.protocol, "readerFeatures"));
  EXPECT_EQ(p.writer_features, StrList(*e.protocol, "writerFeatures"));
  const Metadata& m = s.metadata();
  EXPECT_EQ(m.id, Str(*e.metadata, "id"));
  EXPECT_EQ(m.schema_string, Str(*e.metadata, "schemaString"));
  EXPECT_EQ(m.partition_columns, StrList(*e.metadata, "partitionColumns")
                                     .value_or(std::vector<std::string>{}));
  EXPECT_EQ(m.configuration, StrMap(*e.metadata, "configuration"));
  std::set<ExpectedKey> got_files;
  for (const auto& [key, add] : s.active_files())
    got_files.insert({key.path, key.dv_id});
  std::set<ExpectedKey> want_files;
  for (const auto& [key, add] : e.files) want_files.insert(key);
  EXPECT_EQ(got_files, want_files);
  std::map<std::string, int64_t> want_txns;
  for (const auto& [app, txn] : e.txns) want_txns[app] = Int(txn, "version");
  EXPECT_EQ(s.app_versions(), want_txns);
}

// `loaded` is version v: it must match `want`, or be refused when the log has
// not set protocol or metaData by v.
void ExpectLoadMatches(const StatusOr<std::shared_ptr<const Snapshot>>& loaded,
                       const ExpectedState& want, Version v) {
  if (!want.protocol || !want.metadata) {
    EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition)
        << "version " << v;
    EXPECT_THAT(loaded.status().message(),
                HasSubstr(want.protocol ? "metaData" : "protocol"));
    return;
  }
  EXPECT_TRUE(loaded.ok()) << "version " << v << ": "
                           << loaded.status().ToString();
  if (loaded.ok()) ExpectMatches(**loaded, want, v);
}

StatusOr<std::shared_ptr<const Snapshot>> Load(
    LogStore& log, std::optional<Version> version,
    ParquetHandler* parquet = nullptr, ObjectStore* store = nullptr) {
  SnapshotRequest request;
  request.version = version;
  request.parquet = parquet;
  request.checkpoint_store = store;
  return LoadSnapshot(log, request);
}

// --- Test doubles ------------------------------------------------------------

// Hides the commits at or below `through`, as log cleanup after a checkpoint
// would have deleted them.
class HistoryHidingLogStore : public LogStore {
 public:
  HistoryHidingLogStore(LogStore& base, Version through)
      : base_(base), through_(through) {}
  std::string Describe() const override { return base_.Describe(); }
  Status Write(Version, std::string_view) override {
    return UnimplementedError("read-only");
  }
  StatusOr<std::vector<ObjectMeta>> List(Version from) override {
    DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> all, base_.List(from));
    std::erase_if(all, [&](const ObjectMeta& m) { return Hidden(m.key); });
    return all;
  }
  StatusOr<std::string> Read(std::string_view key) override {
    if (Hidden(key)) return NotFoundError(std::string(key) + " (hidden)");
    return base_.Read(key);
  }

 private:
  bool Hidden(std::string_view key) const {
    static const std::regex kCommit(R"(_delta_log/(\d{20})\.json)");
    std::match_results<std::string_view::const_iterator> m;
    return std::regex_match(key.begin(), key.end(), m, kCommit) &&
           std::stoll(m[1].str()) <= through_;
  }
  LogStore& base_;
  const Version through_;
};

// Serves a checkpoint's actions from the expected state at its version (the
// corpus's Parquet is not read here), leaving out `lacks` ("protocol" or
// "metaData") the way the broken golden checkpoints do.
class SimulatedCheckpointReader : public ParquetHandler {
 public:
  SimulatedCheckpointReader(const ExpectedLog& log, std::string_view lacks)
      : log_(log), lacks_(lacks) {}

  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    for (const auto& [v, options] : log_.checkpoints) {
      if (std::find(options.begin(), options.end(), keys) == options.end())
        continue;
      for (const std::string& key : keys)
        DC_RETURN_IF_ERROR(store.Head(key).status());
      served_ = v;
      return Lines(log_.states[static_cast<size_t>(v)]);
    }
    return InvalidArgumentError("not one complete checkpoint: " +
                                ::testing::PrintToString(keys));
  }

  // The checkpoint version served since the last call (none: not called).
  std::optional<Version> TakeServed() {
    return std::exchange(served_, std::nullopt);
  }

 private:
  std::vector<std::string> Lines(const ExpectedState& state) const {
    std::vector<std::string> lines;
    if (state.protocol && lacks_ != "protocol")
      lines.push_back(json{{"protocol", *state.protocol}}.dump());
    if (state.metadata && lacks_ != "metaData")
      lines.push_back(json{{"metaData", *state.metadata}}.dump());
    for (const auto& [key, add] : state.files)
      lines.push_back(json{{"add", add}}.dump());
    for (const auto& [app, txn] : state.txns)
      lines.push_back(json{{"txn", txn}}.dump());
    return lines;
  }

  const ExpectedLog& log_;
  const std::string lacks_;
  std::optional<Version> served_;
};

// --- Per category ------------------------------------------------------------

std::string CheckFails(LogStore& log, const TableRule& rule) {
  auto snapshot = Load(log, std::nullopt);
  EXPECT_FALSE(snapshot.ok())
      << "a table that must fail loaded: " << rule.reason;
  if (snapshot.ok()) return "LOADED, but must fail";
  EXPECT_EQ(snapshot.status().code(), rule.code)
      << snapshot.status().ToString();
  EXPECT_THAT(snapshot.status().message(), HasSubstr(rule.message));
  auto report = CheckLog(log);
  if (rule.code == StatusCode::kNotFound) {
    EXPECT_EQ(report.status().code(), StatusCode::kNotFound)
        << report.status().ToString();
  } else if (report.ok()) {
    EXPECT_THAT(report->problems, Contains(HasSubstr(rule.message)));
  } else {
    ADD_FAILURE() << "CheckLog: " << report.status().ToString();
  }
  return "failed as expected (" + std::string(rule.reason) +
         "): " + snapshot.status().ToString();
}

// Checkpoint reading through a simulated reader, and without the history the
// checkpoint replaces.
std::string CheckCheckpoints(const ExpectedLog& expected, ObjectStore& store,
                             LogStore& log, std::string_view lacks) {
  SimulatedCheckpointReader reader(expected, lacks);
  for (Version v = 0; v <= expected.latest; ++v) {
    SCOPED_TRACE("simulated checkpoint reader, version " + std::to_string(v));
    const std::optional<Version> cp = CheckpointAtOrBelow(expected, v);
    auto s = Load(log, v, &reader, &store);
    EXPECT_EQ(reader.TakeServed(), cp)
        << "not the newest complete checkpoint <= " << v;
    if (cp && !lacks.empty()) {
      EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition)
          << s.status().ToString();
      EXPECT_THAT(s.status().message(),
                  HasSubstr("missing " + std::string(lacks)));
    } else {
      ExpectLoadMatches(s, expected.states[static_cast<size_t>(v)], v);
    }
  }
  const Version newest = expected.checkpoints.rbegin()->first;
  HistoryHidingLogStore cleaned(log, newest);
  auto without_reader = Load(cleaned, std::nullopt);
  EXPECT_EQ(without_reader.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(without_reader.status().message(),
              HasSubstr("checkpoint reading not available"));
  auto with_reader = Load(cleaned, std::nullopt, &reader, &store);
  if (!lacks.empty()) {
    EXPECT_THAT(with_reader.status().message(),
                HasSubstr("missing " + std::string(lacks)));
  } else {
    SCOPED_TRACE("without commits <= " + std::to_string(newest));
    ExpectLoadMatches(with_reader, expected.states.back(), expected.latest);
  }
  std::string cps;
  for (const auto& [v, files] : expected.checkpoints)
    cps += " " + std::to_string(v);
  return "; checkpoints at" + cps + ": simulated reader " +
         (lacks.empty() ? "agrees"
                        : "refuses (missing " + std::string(lacks) + ")") +
         "; without commits <= " + std::to_string(newest) +
         ": needs checkpoint";
}

// Commits before a checkpoint are gone: without a checkpoint reader the
// table cannot be read.
std::string CheckNeedsCheckpoint(const ExpectedLog& expected, LogStore& log) {
  EXPECT_FALSE(expected.checkpoints.empty())
      << "history has gaps and no checkpoint: classify it in kRules";
  auto s = Load(log, std::nullopt);
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition)
      << s.status().ToString();
  EXPECT_THAT(s.status().message(),
              HasSubstr("checkpoint reading not available"));
  return "needs checkpoint: " + s.status().ToString();
}

std::string CheckLoads(const fs::path& dir, ObjectStore& store, LogStore& log,
                       const TableRule* rule) {
  if (!IsDirectory(dir / "_delta_log")) {
    ADD_FAILURE() << dir << " has no _delta_log: classify it in kRules";
    return "UNCLASSIFIED";
  }
  const ExpectedLog expected = DeriveExpected(dir / "_delta_log");
  if (::testing::Test::HasFatalFailure()) return "commit JSON unreadable";
  if (!expected.complete) return CheckNeedsCheckpoint(expected, log);
  if (!expected.states.back().protocol || !expected.states.back().metadata) {
    ADD_FAILURE()
        << "the log never sets protocol or metaData: classify it as kFails";
    return "UNCLASSIFIED";
  }
  for (Version v = 0; v <= expected.latest; ++v) {
    ExpectLoadMatches(Load(log, v), expected.states[static_cast<size_t>(v)], v);
  }
  ExpectLoadMatches(Load(log, std::nullopt), expected.states.back(),
                    expected.latest);

  auto report = CheckLog(log);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (report.ok()) {
    EXPECT_TRUE(report->sound()) << ::testing::PrintToString(report->problems);
    EXPECT_EQ(report->latest_version, expected.latest);
  }
  std::string summary = "loaded " + std::to_string(expected.latest + 1) +
                        " versions (0.." + std::to_string(expected.latest) +
                        "), CheckLog sound";
  if (rule != nullptr) summary += " [" + std::string(rule->reason) + "]";
  if (!expected.checkpoints.empty()) {
    summary += CheckCheckpoints(expected, store, log,
                                rule ? rule->checkpoint_lacks : "");
  }
  return summary;
}

void CheckCase(const fs::path& root, const std::string& name) {
  const TableRule* rule = RuleFor(name);  // none for a container's tables
  fs::path dir = root / name;
  if (rule != nullptr) dir /= rule->table_dir;
  PosixObjectStore store(dir.string());
  ObjectStoreLogStore log(store, "local");
  const bool must_fail =
      rule != nullptr &&
      (rule->expect == Expect::kFails || rule->expect == Expect::kNotATable);
  std::string summary =
      must_fail ? CheckFails(log, *rule) : CheckLoads(dir, store, log, rule);
  if (::testing::Test::HasFailure())
    summary = "MISMATCH (see failures): " + summary;
  ::testing::Test::RecordProperty("golden_summary", summary);
  std::cout << "[golden] " << name << ": " << summary << std::endl;
}

// --- Tests -------------------------------------------------------------------

class GoldenTableTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTableTest, MatchesIndependentReplay) {
  const std::optional<fs::path> root = GoldenDir();
  if (!root) GTEST_SKIP() << UnsetMessage();
  ASSERT_TRUE(IsDirectory(*root))
      << kGoldenDirVariable << "=" << *root << " is not a directory";
  if (!GetParam().empty()) {
    CheckCase(*root, GetParam());
    return;
  }
  // Listed without the variable but run with it (a stale ctest listing).
  for (const std::string& name : TableCases()) {
    SCOPED_TRACE(name);
    CheckCase(*root, name);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenTableTest,
                         ::testing::ValuesIn(GoldenCases()), CaseName);

TEST(GoldenCorpusTest, DirectoryHoldsTables) {
  const std::optional<fs::path> root = GoldenDir();
  if (!root) GTEST_SKIP() << UnsetMessage();
  ASSERT_TRUE(IsDirectory(*root))
      << kGoldenDirVariable << "=" << *root << " is not a directory";
  EXPECT_FALSE(TableCases().empty()) << *root << " holds no table directory";
}

TEST(GoldenCorpusTest, EveryRuleNamesAnExistingDirectory) {
  const std::optional<fs::path> root = GoldenDir();
  if (!root) GTEST_SKIP() << UnsetMessage();
  for (const TableRule& rule : kRules) {
    EXPECT_TRUE(IsDirectory(*root / rule.name / rule.table_dir))
        << "stale rule: " << rule.name << "/" << rule.table_dir;
  }
}

}  // namespace
}  // namespace deltacommit
