// `_last_checkpoint` as Spark, kernel and delta-rs wrote it in the golden
// corpus (checkpointSchema, parts, v2Checkpoint, an empty file): for each
// table that has one, loading the latest version through the DuckDB reader
// lists the log from the hinted version exactly when the hint is valid and
// a complete checkpoint at or after it is in the directory, else from 0;
// and gives the state JSON replay gives. The expectation is derived here
// from the directory and the hint's JSON (nlohmann), not from the loader.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/testing/golden_dir.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;

// Records the `from` of each List.
class ListRecordingLogStore : public ObjectStoreLogStore {
 public:
  using ObjectStoreLogStore::ObjectStoreLogStore;
  StatusOr<std::vector<ObjectMeta>> List(Version from) override {
    froms.push_back(from);
    return ObjectStoreLogStore::List(from);
  }
  std::vector<Version> froms;
};

// Tables (up to two levels below the corpus root) with a _last_checkpoint.
std::vector<std::string> HintedTables() {
  std::vector<std::string> out;
  const std::optional<fs::path> root = GoldenTablesDir();
  if (!root) return {""};  // one case, which skips
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(*root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it.depth() > 3 || it->path().filename() != "_last_checkpoint") continue;
    if (it->path().parent_path().filename() != "_delta_log") continue;
    out.push_back(fs::relative(it->path().parent_path().parent_path(), *root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The hint's version when the file is a JSON object with an integer
// version >= 0 and an integer size >= 0 (PROTOCOL.md's required fields).
std::optional<Version> HintVersion(const fs::path& file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  for (const char* field : {"version", "size"}) {
    if (!j.contains(field) || !j[field].is_number_integer() || j[field].get<int64_t>() < 0) {
      return std::nullopt;
    }
  }
  return j["version"].get<Version>();
}

// True when _delta_log/ holds a complete checkpoint at a version >= `from`.
bool CompleteCheckpointFrom(const fs::path& log_dir, Version from) {
  std::map<std::pair<Version, int32_t>, std::set<int32_t>> parts;  // (v, n) -> parts seen
  for (const auto& entry : fs::directory_iterator(log_dir)) {
    const ParsedLogPath p = ParseLogPath(entry.path().filename().string());
    if (p.version < from) continue;
    if (p.type == LogFileType::kClassicCheckpoint || p.type == LogFileType::kV2Checkpoint) {
      return true;
    }
    if (p.type == LogFileType::kMultiPartCheckpoint) parts[{p.version, p.num_parts}].insert(p.part);
  }
  for (const auto& [key, seen] : parts) {
    if (static_cast<int32_t>(seen.size()) == key.second) return true;
  }
  return false;
}

// Checkpoints broken on purpose (no metaData / protocol row): a reader that
// trusts them must refuse the table although the JSON history is sound
// (duckdb_parquet_handler_test.cc checks them in detail).
bool CheckpointBrokenOnPurpose(const std::string& table) {
  return table == "deltalog-state-reconstruction-from-checkpoint-missing-metadata" ||
         table == "deltalog-state-reconstruction-from-checkpoint-missing-protocol";
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& param) {
  return GoldenCaseName(param.param);
}

class LastCheckpointGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LastCheckpointGoldenTest, ListsFromAValidHintAndMatchesJsonReplay) {
  const std::optional<fs::path> root = GoldenTablesDir();
  if (!root) GTEST_SKIP() << GoldenTablesMissingMessage();
  const fs::path table = *root / GetParam();
  const std::optional<Version> hint = HintVersion(table / "_delta_log" / "_last_checkpoint");
  const bool usable = hint && *hint > 0 && CompleteCheckpointFrom(table / "_delta_log", *hint);

  PosixObjectStore store(table.string());
  ListRecordingLogStore log(store, "local");
  auto handler = DuckDbParquetHandler::Create();
  ASSERT_TRUE(handler.ok()) << handler.status().ToString();
  auto hinted = LoadSnapshot(log, SnapshotRequest{std::nullopt, handler->get(), &store});
  ObjectStoreLogStore plain(store, "local");
  auto replayed = LoadSnapshot(plain, SnapshotRequest{});

  if (usable) {
    EXPECT_THAT(log.froms, ::testing::ElementsAre(*hint));
  } else {
    ASSERT_FALSE(log.froms.empty());
    EXPECT_EQ(log.froms.back(), 0);
  }
  if (CheckpointBrokenOnPurpose(GetParam())) {
    EXPECT_EQ(hinted.status().code(), StatusCode::kFailedPrecondition)
        << hinted.status().ToString();
    EXPECT_THAT(hinted.status().message(), ::testing::HasSubstr("missing"));
    return;
  }
  ASSERT_EQ(hinted.ok(), replayed.ok()) << hinted.status().ToString() << " vs "
                                        << replayed.status().ToString();
  std::string outcome = hinted.status().ToString();
  if (hinted.ok()) {
    EXPECT_EQ((*hinted)->version(), (*replayed)->version());
    EXPECT_EQ((*hinted)->protocol(), (*replayed)->protocol());
    EXPECT_EQ((*hinted)->metadata(), (*replayed)->metadata());
    EXPECT_EQ((*hinted)->app_versions(), (*replayed)->app_versions());
    std::set<FileKey> hinted_keys, replayed_keys;
    for (const auto& [key, add] : (*hinted)->active_files()) hinted_keys.insert(key);
    for (const auto& [key, add] : (*replayed)->active_files()) replayed_keys.insert(key);
    EXPECT_EQ(hinted_keys, replayed_keys);
    outcome = "version " + std::to_string((*hinted)->version());
  }
  std::cout << "[last_checkpoint] " << GetParam() << ": hint "
            << (hint ? std::to_string(*hint) : "invalid") << ", listed from "
            << ::testing::PrintToString(log.froms) << ", " << outcome << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Corpus, LastCheckpointGoldenTest, ::testing::ValuesIn(HintedTables()),
                         CaseName);

TEST(LastCheckpointGoldenCorpusTest, FindsHintsOfEveryKind) {
  const std::optional<fs::path> root = GoldenTablesDir();
  if (!root) GTEST_SKIP() << GoldenTablesMissingMessage();
  const std::vector<std::string> found = HintedTables();
  for (const char* name : {"checkpoint", "multi-part-checkpoint", "v2-checkpoint-json",
                           "corrupted-last-checkpoint-kernel"}) {
    EXPECT_THAT(found, ::testing::Contains(name));
  }
}

}  // namespace
}  // namespace deltacommit
