// Golden tables with checkpoints, read through DuckDbParquetHandler.
//
// For each table of the Delta golden corpus that has a checkpoint, and for
// each checkpoint version V in it:
//   (a) a copy of its _delta_log with every JSON commit <= V (and every other
//       checkpoint) deleted must load, through the handler, to the same state
//       as JSON replay from version 0 of the untouched log: at V and at the
//       latest version (version, protocol, metadata, active files with their
//       size and partition values, txn versions, domain metadata);
//   (b) every line the handler returns parses with ActionParser into a known
//       action.
// Where JSON replay itself refuses the table (a feature this build cannot
// read), the checkpoint path must refuse it with the same code. Tables whose
// checkpoint is broken on purpose are listed in kBrokenCheckpoints.
#include "deltacommit/parquet/duckdb_parquet_handler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/golden_dir.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;

// Checkpoints that are wrong on purpose: the JSON history is sound, and a
// reader that trusts the checkpoint must refuse the state.
struct BrokenCheckpoint {
  std::string_view table;
  StatusCode code;
  std::string_view message;
  std::string_view reason;
};

constexpr BrokenCheckpoint kBrokenCheckpoints[] = {
    {"deltalog-state-reconstruction-from-checkpoint-missing-metadata",
     StatusCode::kFailedPrecondition, "missing metaData",
     "checkpoint 10 has no metaData row"},
    {"deltalog-state-reconstruction-from-checkpoint-missing-protocol",
     StatusCode::kFailedPrecondition, "missing protocol",
     "checkpoint 10 has no protocol row"},
};

// Tables the corpus is known to hold with a checkpoint: discovery must find
// at least these (classic, multi-part, v2 JSON and Parquet with sidecars,
// deletion vectors, column mapping, variant).
constexpr std::string_view kKnownCheckpointTables[] = {
    "checkpoint",
    "multi-part-checkpoint",
    "v2-checkpoint-json",
    "v2-checkpoint-parquet",
    "dv-partitioned-with-checkpoint",
    "dv-with-columnmapping",
    "basic-with-inserts-deletes-checkpoint",
    "only-checkpoint-files",
    "corrupted-last-checkpoint",
    "spark-variant-checkpoint",
};

const BrokenCheckpoint* BrokenFor(std::string_view table) {
  for (const BrokenCheckpoint& b : kBrokenCheckpoints) {
    if (b.table == table) return &b;
  }
  return nullptr;
}

bool IsCheckpoint(LogFileType type) {
  return type == LogFileType::kClassicCheckpoint ||
         type == LogFileType::kMultiPartCheckpoint ||
         type == LogFileType::kV2Checkpoint;
}

// version -> the checkpoint files' names in _delta_log/ (sorted).
std::map<Version, std::vector<std::string>> CheckpointFiles(
    const fs::path& log_dir) {
  std::map<Version, std::vector<std::string>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(log_dir, ec)) {
    const std::string name = entry.path().filename().string();
    const ParsedLogPath parsed = ParseLogPath(name);
    if (IsCheckpoint(parsed.type)) out[parsed.version].push_back(name);
  }
  for (auto& [v, names] : out) std::sort(names.begin(), names.end());
  return out;
}

// Table directories (relative to the corpus root, up to two levels deep)
// whose _delta_log holds a checkpoint.
std::vector<std::string> CheckpointTables() {
  const std::optional<fs::path> root = GoldenTablesDir();
  std::vector<std::string> out;
  if (!root) return out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(*root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 2 || it->path().filename() != "_delta_log") continue;
    if (CheckpointFiles(it->path()).empty()) continue;
    out.push_back(fs::relative(it->path().parent_path(), *root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Cases() {
  std::vector<std::string> cases = CheckpointTables();
  if (cases.empty()) cases.push_back("");  // one case, which skips
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  return GoldenCaseName(info.param);
}

// A copy of the table's _delta_log in a fresh temp dir, keeping of the
// history only checkpoint `keep` and the commits after it.
class TrimmedLog {
 public:
  TrimmedLog(const fs::path& table, Version keep) {
    std::string pattern =
        (fs::temp_directory_path() / "deltacommit-golden-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp";
    root_ = pattern;
    fs::copy(table / "_delta_log", root_ / "_delta_log",
             fs::copy_options::recursive);
    for (const auto& entry : fs::directory_iterator(root_ / "_delta_log")) {
      const ParsedLogPath p = ParseLogPath(entry.path().filename().string());
      const bool old_commit =
          p.type == LogFileType::kCommit && p.version <= keep;
      const bool other_checkpoint = IsCheckpoint(p.type) && p.version != keep;
      if (old_commit || other_checkpoint) fs::remove(entry.path());
    }
  }
  ~TrimmedLog() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  TrimmedLog(const TrimmedLog&) = delete;
  TrimmedLog& operator=(const TrimmedLog&) = delete;

  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

// Forwards to a handler and counts the calls, so a test knows the
// checkpoint was read rather than skipped.
class CountingHandler : public ParquetHandler {
 public:
  explicit CountingHandler(ParquetHandler& base) : base_(base) {}
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    ++calls_;
    return base_.ReadCheckpointActions(store, keys);
  }
  int calls() const { return calls_; }

 private:
  ParquetHandler& base_;
  int calls_ = 0;
};

StatusOr<std::shared_ptr<const Snapshot>> Load(const std::string& dir,
                                               std::optional<Version> version,
                                               ParquetHandler* handler) {
  PosixObjectStore store(dir);
  ObjectStoreLogStore log(store, "local");
  SnapshotRequest request;
  request.version = version;
  request.parquet = handler;
  request.checkpoint_store = handler != nullptr ? &store : nullptr;
  return LoadSnapshot(log, request);
}

void ExpectSameState(const Snapshot& want, const Snapshot& got) {
  EXPECT_EQ(got.version(), want.version());
  EXPECT_EQ(got.protocol(), want.protocol());
  EXPECT_EQ(got.metadata(), want.metadata());
  EXPECT_EQ(got.app_versions(), want.app_versions());
  EXPECT_EQ(got.domain_metadata(), want.domain_metadata());
  std::set<FileKey> want_keys;
  std::set<FileKey> got_keys;
  for (const auto& [key, add] : want.active_files()) want_keys.insert(key);
  for (const auto& [key, add] : got.active_files()) got_keys.insert(key);
  ASSERT_EQ(got_keys, want_keys);
  for (const auto& [key, add] : want.active_files()) {
    const AddFile other = got.active_files().Find(key).value();
    EXPECT_EQ(other.size, add.size) << key.path;
    EXPECT_EQ(other.partition_values, add.partition_values) << key.path;
  }
}

// (a) at `version` (latest when empty), loading `trimmed` through the
// handler; returns a word for the summary.
std::string CheckLoad(const fs::path& table, const std::string& trimmed,
                      std::optional<Version> version, ParquetHandler& handler,
                      const BrokenCheckpoint* broken) {
  SCOPED_TRACE("version " + (version ? std::to_string(*version) : "latest"));
  auto want = Load(table.string(), version, nullptr);
  CountingHandler counting(handler);
  auto got = Load(trimmed, version, &counting);
  EXPECT_EQ(counting.calls(), 1) << "the checkpoint was not read";
  if (broken != nullptr) {
    EXPECT_FALSE(got.ok()) << broken->reason;
    if (got.ok()) return "loaded?";
    EXPECT_EQ(got.status().code(), broken->code) << got.status().ToString();
    EXPECT_NE(got.status().message().find(broken->message), std::string::npos)
        << got.status().ToString();
    return "refused as expected (" + std::string(broken->reason) + ")";
  }
  if (!want.ok()) {
    // JSON replay refuses the table: the checkpoint path must as well.
    EXPECT_FALSE(got.ok()) << "JSON replay: " << want.status().ToString();
    if (got.ok()) return "loaded?";
    EXPECT_EQ(got.status().code(), want.status().code())
        << got.status().ToString() << " vs " << want.status().ToString();
    return "both refuse: " + got.status().ToString();
  }
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return "failed";
  ExpectSameState(**want, **got);
  return "same state at " + std::to_string((*got)->version()) + " (" +
         std::to_string((*got)->active_files().size()) + " files)";
}

// (b) Every line is a known action, and (c) ReadCheckpoint decodes the same
// actions; returns how many lines there were.
size_t CheckLinesParse(const fs::path& table,
                       const std::vector<std::string>& files,
                       ParquetHandler& handler) {
  PosixObjectStore store(table.string());
  std::vector<std::string> keys;
  for (const std::string& f : files) keys.push_back("_delta_log/" + f);
  auto lines = handler.ReadCheckpointActions(store, keys);
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  if (!lines.ok()) return 0;
  ActionParser parser;
  std::vector<Action> parsed;
  for (const std::string& line : *lines) {
    auto action = parser.ParseLine(line);
    EXPECT_TRUE(action.ok()) << action.status().ToString() << "\n" << line;
    if (action.ok()) {
      EXPECT_FALSE(std::holds_alternative<UnknownAction>(*action)) << line;
      parsed.push_back(std::move(action).value());
    }
  }
  // (c) Decoded without JSON, the same actions in the same order.
  auto decoded = handler.ReadCheckpoint(store, keys);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  if (decoded.ok()) {
    EXPECT_EQ(decoded->size(), parsed.size());
    EXPECT_TRUE(*decoded == parsed) << "ReadCheckpoint differs from the parsed lines";
  }
  // (d) In batches, as a load applies them: the same again.
  std::vector<Action> batched;
  const auto gather = [&batched](std::vector<Action>& batch) {
    for (Action& action : batch) batched.push_back(std::move(action));
    return OkStatus();
  };
  const Status read_in_batches = handler.ReadCheckpointInBatches(store, keys, gather);
  EXPECT_TRUE(read_in_batches.ok()) << read_in_batches.ToString();
  EXPECT_TRUE(batched == parsed) << "ReadCheckpointInBatches differs from the parsed lines";
  return lines->size();
}

class CheckpointGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointGoldenTest, CheckpointReplayMatchesJsonReplay) {
  const std::optional<fs::path> root = GoldenTablesDir();
  if (!root) GTEST_SKIP() << GoldenTablesMissingMessage();
  ASSERT_FALSE(GetParam().empty()) << *root << " holds no checkpoint table";
  const fs::path table = *root / GetParam();
  const BrokenCheckpoint* broken = BrokenFor(GetParam());
  auto handler = DuckDbParquetHandler::Create();
  ASSERT_TRUE(handler.ok()) << handler.status().ToString();
  for (const auto& [version, files] : CheckpointFiles(table / "_delta_log")) {
    SCOPED_TRACE("checkpoint " + std::to_string(version) + " " + files.front());
    const size_t lines = CheckLinesParse(table, files, **handler);
    EXPECT_GT(lines, 0u);
    TrimmedLog trimmed(table, version);
    const std::string at =
        CheckLoad(table, trimmed.root(), version, **handler, broken);
    const std::string latest =
        CheckLoad(table, trimmed.root(), std::nullopt, **handler, broken);
    std::cout << "[checkpoint] " << GetParam() << " @" << version << " ("
              << files.size() << " file(s), " << lines << " actions): " << at
              << "; latest: " << latest << std::endl;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CheckpointGoldenTest,
                         ::testing::ValuesIn(Cases()), CaseName);

TEST(CheckpointGoldenCorpusTest, FindsTheKnownCheckpointTables) {
  const std::optional<fs::path> root = GoldenTablesDir();
  if (!root) GTEST_SKIP() << GoldenTablesMissingMessage();
  const std::vector<std::string> found = CheckpointTables();
  for (std::string_view name : kKnownCheckpointTables) {
    EXPECT_NE(std::find(found.begin(), found.end(), name), found.end()) << name;
  }
  for (const BrokenCheckpoint& b : kBrokenCheckpoints) {
    EXPECT_NE(std::find(found.begin(), found.end(), b.table), found.end())
        << "stale entry: " << b.table;
  }
}

}  // namespace
}  // namespace deltacommit
