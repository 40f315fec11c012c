// Checkpoint writing on a local table: snapshot from our checkpoint (plus a
// later commit) == snapshot from JSON replay; the file is read by DuckDB's
// read_parquet and by hyparquet (an independent reader) with Spark's
// column types; _last_checkpoint; no checkpoint is ever replaced.
#include <gtest/gtest.h>

#include <memory>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/checkpoint_test_table.h"
#include "contract/temp_dir.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit {
namespace {

using checkpoint_test::ExpectSameSnapshot;
using checkpoint_test::GeneratedCommits;
using checkpoint_test::LaterCommit;
using checkpoint_test::ReadWithHyparquet;
using checkpoint_test::WriteCommits;

class CheckpointWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto handler = DuckDbParquetHandler::Create();
    ASSERT_TRUE(handler.ok()) << handler.status().ToString();
    parquet_ = std::move(handler).value();
    WriteCommits(store_, GeneratedCommits(), 0);
  }

  std::shared_ptr<const Snapshot> Load(bool with_checkpoints) {
    SnapshotRequest request;
    if (with_checkpoints) {
      request.parquet = parquet_.get();
      request.checkpoint_store = &store_;
    }
    auto s = LoadSnapshot(log_, request);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : nullptr;
  }

  CheckpointInfo Checkpoint() {
    auto json = Load(false);
    auto info = WriteCheckpoint(store_, *parquet_, *json, clock_);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? *info : CheckpointInfo{};
  }

  std::string LocalPath(const std::string& key) const { return dir_.path() + "/" + key; }

  TempDir dir_;
  PosixObjectStore store_{dir_.path()};
  ObjectStoreLogStore log_{store_, "local"};
  std::unique_ptr<DuckDbParquetHandler> parquet_;
  // Soon after the generated table's removes: no tombstone has expired.
  FakeClock clock_{1700000010000};
};

TEST_F(CheckpointWriterTest, SnapshotFromCheckpointEqualsJsonReplay) {
  const CheckpointInfo info = Checkpoint();
  EXPECT_EQ(info.version, 4);
  EXPECT_EQ(info.key, "_delta_log/00000000000000000004.checkpoint.parquet");
  WriteCommits(store_, {LaterCommit()}, 5);
  auto from_json = Load(false);
  // Without the commits the checkpoint covers, only the checkpoint can
  // give the state: this proves it is what the reader used.
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store_.Delete(CommitPath(v)).ok());
  auto from_checkpoint = Load(true);
  ASSERT_NE(from_json, nullptr);
  ASSERT_NE(from_checkpoint, nullptr);
  EXPECT_EQ(from_checkpoint->version(), 5);
  EXPECT_EQ(from_checkpoint->active_files().size(), 4u);
  EXPECT_EQ(from_checkpoint->tombstones().size(), 5u);
  EXPECT_EQ(from_checkpoint->domain_metadata().size(), 1u);
  ExpectSameSnapshot(*from_checkpoint, *from_json);
}

// A week (the default retention) after the removes at ...3000 and ...3001,
// those tombstones have expired: the checkpoint leaves them out, and
// otherwise restates JSON replay.
TEST_F(CheckpointWriterTest, ExpiredTombstonesAreLeftOutOfTheRoundTrip) {
  clock_.SetMillis(1700000003001 + 7LL * 24 * 3600 * 1000);
  const CheckpointInfo info = Checkpoint();
  EXPECT_EQ(info.size, 10);  // 13 less the 3 expired tombstones
  auto from_json = Load(false);
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store_.Delete(CommitPath(v)).ok());
  auto from_checkpoint = Load(true);
  ASSERT_NE(from_json, nullptr);
  ASSERT_NE(from_checkpoint, nullptr);
  std::map<FileKey, RemoveFile> unexpired;
  for (const auto& [key, remove] : from_json->tombstones()) {
    if (*remove.deletion_timestamp > 1700000003001) unexpired.emplace(key, remove);
  }
  ASSERT_EQ(unexpired.size(), 1u);
  EXPECT_EQ(checkpoint_test::Lines(from_checkpoint->tombstones()),
            checkpoint_test::Lines(unexpired));
  EXPECT_EQ(checkpoint_test::Lines(from_checkpoint->active_files()),
            checkpoint_test::Lines(from_json->active_files()));
  EXPECT_EQ(from_checkpoint->app_versions(), from_json->app_versions());
  EXPECT_EQ(checkpoint_test::Lines(from_checkpoint->domain_metadata()),
            checkpoint_test::Lines(from_json->domain_metadata()));
}

TEST_F(CheckpointWriterTest, LastCheckpointIsWrittenAfterTheCheckpoint) {
  const CheckpointInfo info = Checkpoint();
  auto head = store_.Head(info.key);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->size, info.size_in_bytes);
  auto last = store_.Get(LastCheckpointPath());
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  auto j = nlohmann::json::parse(*last);
  EXPECT_EQ(j["version"], 4);
  // protocol, metaData, 2 txns, 1 domain, 4 adds, 4 tombstones.
  EXPECT_EQ(j["size"], 13);
  EXPECT_EQ(j["numOfAddFiles"], 4);
  EXPECT_EQ(j["sizeInBytes"], info.size_in_bytes);
}

TEST_F(CheckpointWriterTest, AnExistingCheckpointIsNeverReplaced) {
  ASSERT_TRUE(store_.PutIfAbsent(ClassicCheckpointPath(4), "someone else's").ok());
  auto json = Load(false);
  auto info = WriteCheckpoint(store_, *parquet_, *json, clock_);
  EXPECT_TRUE(info.status().IsAlreadyExists()) << info.status().ToString();
  EXPECT_NE(info.status().message().find("00000000000000000004.checkpoint.parquet"),
            std::string::npos);
  EXPECT_EQ(*store_.Get(ClassicCheckpointPath(4)), "someone else's");
  EXPECT_TRUE(store_.Get(LastCheckpointPath()).status().IsNotFound());
}

TEST_F(CheckpointWriterTest, AnOlderCheckpointDoesNotMoveLastCheckpointBack) {
  Checkpoint();
  SnapshotRequest request;
  request.version = 2;
  auto older = LoadSnapshot(log_, request);
  ASSERT_TRUE(older.ok()) << older.status().ToString();
  ASSERT_TRUE(WriteCheckpoint(store_, *parquet_, **older, clock_).ok());
  EXPECT_EQ(nlohmann::json::parse(*store_.Get(LastCheckpointPath()))["version"], 4);
}

// Runs `sql` on a fresh DuckDB and returns the first column of each row.
std::vector<std::string> DuckDbColumn(const std::string& sql) {
  duckdb_database db = nullptr;
  duckdb_connection connection = nullptr;
  EXPECT_EQ(duckdb_open(nullptr, &db), DuckDBSuccess);
  EXPECT_EQ(duckdb_connect(db, &connection), DuckDBSuccess);
  duckdb_result result;
  std::vector<std::string> out;
  if (duckdb_query(connection, sql.c_str(), &result) != DuckDBSuccess) {
    ADD_FAILURE() << sql << ": " << duckdb_result_error(&result);
  } else {
    for (idx_t r = 0; r < duckdb_row_count(&result); ++r) {
      char* v = duckdb_value_varchar(&result, 0, r);
      out.emplace_back(v != nullptr ? v : "NULL");
      duckdb_free(v);
    }
  }
  duckdb_destroy_result(&result);
  duckdb_disconnect(&connection);
  duckdb_close(&db);
  return out;
}

TEST_F(CheckpointWriterTest, DuckDbReadsTheCheckpointWithSparkColumnTypes) {
  const std::string file = LocalPath(Checkpoint().key);
  EXPECT_EQ(DuckDbColumn("SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('" +
                         file + "'))"),
            (std::vector<std::string>{"txn", "add", "remove", "metaData", "protocol",
                                      "domainMetadata"}));
  EXPECT_EQ(DuckDbColumn("SELECT typeof(add.partitionValues) || ' ' || typeof(add.size) || ' ' "
                         "|| typeof(protocol.minReaderVersion) || ' ' || "
                         "typeof(add.deletionVector.offset) FROM read_parquet('" + file +
                         "') LIMIT 1"),
            (std::vector<std::string>{"MAP(VARCHAR, VARCHAR) BIGINT INTEGER INTEGER"}));
  EXPECT_EQ(DuckDbColumn("SELECT add.partitionValues['p'] FROM read_parquet('" + file +
                         "') WHERE add IS NOT NULL ORDER BY add.size"),
            (std::vector<std::string>{"a b", "x=y/%", "NULL", "\xC3\xBCn\xC3\xAF '\""}));
}

TEST_F(CheckpointWriterTest, HyparquetReadsTheSameAddsAsOurReader) {
  DC_REQUIRE_HYPARQUET();
  const CheckpointInfo info = Checkpoint();
  const nlohmann::json read = ReadWithHyparquet(LocalPath(info.key));
  ASSERT_TRUE(read.is_object());
  // The flat Parquet schema: the columns and the logical types that matter.
  // (Names repeat across actions, e.g. add.size and remove.size; the first
  // element of a name is kept, which is add's for add's fields.)
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& element : read["schema"]) {
    by_name.emplace(element["name"].get<std::string>(), element);
  }
  for (const char* column : {"txn", "add", "remove", "metaData", "protocol", "domainMetadata"}) {
    EXPECT_TRUE(by_name.contains(column)) << column;
  }
  EXPECT_EQ(by_name["partitionValues"]["converted_type"], "MAP");
  EXPECT_EQ(by_name["modificationTime"]["type"], "INT64");
  EXPECT_EQ(by_name["minReaderVersion"]["type"], "INT32");
  EXPECT_EQ(by_name["stats"]["converted_type"], "UTF8");
  EXPECT_EQ(by_name["partitionColumns"]["converted_type"], "LIST");

  // The adds hyparquet sees == the adds of our reader's snapshot.
  auto ours = Load(true);
  ASSERT_NE(ours, nullptr);
  std::map<std::string, nlohmann::json> expected;
  for (const auto& [key, add] : ours->active_files()) {
    nlohmann::json pv = nlohmann::json::object();
    for (const auto& [k, v] : add.partition_values) pv[k] = v ? nlohmann::json(*v) : nullptr;
    nlohmann::json tags = nullptr;
    if (add.tags) {
      tags = nlohmann::json::object();
      for (const auto& [k, v] : *add.tags) tags[k] = v ? nlohmann::json(*v) : nullptr;
    }
    expected[add.path] = {{"partitionValues", pv}, {"size", add.size}, {"tags", tags},
                          {"stats", *add.stats}, {"dataChange", false},
                          {"dv", add.deletion_vector ? add.deletion_vector->path_or_inline_dv : ""}};
  }
  std::map<std::string, nlohmann::json> seen;
  int rows_with_action = 0;
  for (const auto& row : read["rows"]) {
    int actions = 0;
    for (const auto& [column, value] : row.items()) actions += value.is_null() ? 0 : 1;
    EXPECT_EQ(actions, 1) << row.dump();
    rows_with_action += actions;
    const auto& add = row["add"];
    if (add.is_null()) continue;
    const auto& dv = add["deletionVector"];
    seen[add["path"]] = {{"partitionValues", add["partitionValues"]}, {"size", add["size"]},
                         {"tags", add["tags"]},
                         {"stats", add["stats"]}, {"dataChange", add["dataChange"]},
                         {"dv", dv.is_null() ? "" : dv["pathOrInlineDv"]}};
  }
  EXPECT_EQ(rows_with_action, info.size);
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace deltacommit
