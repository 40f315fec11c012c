// The checkpoint writer's rows (checkpoint_chunks.h), through
// DuckDbParquetHandler: every field of every action a checkpoint holds,
// set and unset, reads back as written; rows past one DuckDB chunk keep
// their order; actions without a column and lines that do not parse are
// refused, naming them, with nothing written.
#include "adapters/parquet/checkpoint_chunks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

constexpr char kKey[] = "_delta_log/00000000000000000007.checkpoint.parquet";

DeletionVectorDescriptor Dv(std::optional<int32_t> offset, bool max_row_index) {
  DeletionVectorDescriptor dv;
  dv.storage_type = offset ? "u" : "i";
  dv.path_or_inline_dv =
      offset ? "ab^-aqEH.-t@S}K{vb[*k^" : "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
  dv.offset = offset;
  dv.size_in_bytes = 36;
  dv.cardinality = 2;
  if (max_row_index) dv.unknown_fields = {{"maxRowIndex", "41"}};
  return dv;
}

// Every field of every action type a checkpoint holds, set.
std::vector<Action> EveryFieldSet() {
  Protocol protocol;
  protocol.min_reader_version = 3;
  protocol.min_writer_version = 7;
  protocol.reader_features = {"deletionVectors", "v2Checkpoint"};
  protocol.writer_features = {"deletionVectors", "v2Checkpoint", "domainMetadata"};

  Metadata metadata;
  metadata.id = "4a3b5f3e-9f0c-4a3e-8a52-0d5b5c4b1b10";
  metadata.name = "events";
  metadata.description = "every field set";
  metadata.format.options = {{"compression", "zstd"}};
  metadata.schema_string =
      R"({"type":"struct","fields":[{"name":"p","type":"string","nullable":true,"metadata":{}}]})";
  metadata.partition_columns = {"p", "q"};
  metadata.configuration = {{"delta.enableDeletionVectors", "true"}, {"k", ""}};
  metadata.created_time = 1700000000123;

  SetTransaction txn;
  txn.app_id = "stream-1";
  txn.version = 42;
  txn.last_updated = 1700000000999;

  DomainMetadata domain;
  domain.domain = "delta.clustering";
  domain.configuration = R"({"clusteringColumns":[["p"]]})";
  domain.removed = true;

  AddFile add;
  add.path = "p=a%20b/q=__HIVE_DEFAULT_PARTITION__/part-0.parquet";
  add.partition_values = {{"p", "a b"}, {"q", std::nullopt}};
  add.size = 1234;
  add.modification_time = 1700000000456;
  add.data_change = false;
  add.stats = R"({"numRecords":10,"minValues":{"x":1},"maxValues":{"x":9},"nullCount":{"x":0}})";
  add.tags = NullableStringMap{{"INSERTION_TIME", "1700000000000000"}, {"empty", std::nullopt}};
  add.deletion_vector = Dv(1, /*max_row_index=*/true);
  add.base_row_id = 100;
  add.default_row_commit_version = 6;
  add.clustering_provider = "liquid";

  RemoveFile remove;
  remove.path = "part-1.parquet";
  remove.deletion_timestamp = 1700000000789;
  remove.data_change = false;
  remove.extended_file_metadata = true;
  remove.partition_values = NullableStringMap{{"p", "x"}};
  remove.size = 99;
  remove.stats = R"({"numRecords":1})";
  remove.tags = NullableStringMap{};
  remove.deletion_vector = Dv(std::nullopt, /*max_row_index=*/false);
  remove.base_row_id = 7;
  remove.default_row_commit_version = 5;

  CheckpointMetadata checkpoint_metadata;
  checkpoint_metadata.version = 7;
  checkpoint_metadata.tags = StringMap{{"sidecars", "0"}};

  return {protocol, metadata, txn, domain, add, remove, checkpoint_metadata};
}

// Every optional field unset, every map empty.
std::vector<Action> EveryOptionalFieldUnset() {
  Protocol protocol;  // 1, 2: no features
  Metadata metadata;
  metadata.id = "id";
  metadata.schema_string = R"({"type":"struct","fields":[]})";
  SetTransaction txn;
  txn.app_id = "a";
  AddFile add;
  add.path = "part-0.parquet";
  add.data_change = false;
  RemoveFile remove;
  remove.path = "part-1.parquet";
  remove.data_change = false;
  CheckpointMetadata checkpoint_metadata;  // no tags
  return {protocol, metadata, txn, add, remove, checkpoint_metadata};
}

class CheckpointChunksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto handler = DuckDbParquetHandler::Create();
    ASSERT_TRUE(handler.ok()) << handler.status().ToString();
    handler_ = std::move(handler).value();
  }

  // Writes `actions` and reads them back.
  std::vector<Action> RoundTrip(const std::vector<Action>& actions) {
    auto written = handler_->WriteCheckpoint(store_, kKey, actions);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    if (!written.ok()) return {};
    EXPECT_EQ(*written, static_cast<int64_t>(store_.Get(kKey)->size()));
    auto read = handler_->ReadCheckpoint(store_, {kKey});
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    return read.ok() ? *read : std::vector<Action>{};
  }

  MemoryObjectStore store_;
  std::unique_ptr<DuckDbParquetHandler> handler_;
};

TEST_F(CheckpointChunksTest, EveryFieldSetReadsBackAsWritten) {
  const std::vector<Action> actions = EveryFieldSet();
  EXPECT_EQ(RoundTrip(actions), actions);
}

TEST_F(CheckpointChunksTest, UnsetFieldsAndEmptyMapsReadBackAsTheyWere) {
  const std::vector<Action> actions = EveryOptionalFieldUnset();
  EXPECT_EQ(RoundTrip(actions), actions);
}

TEST_F(CheckpointChunksTest, UnknownFieldsAreDroppedButADeletionVectorsMaxRowIndex) {
  std::vector<Action> actions = EveryFieldSet();
  std::get<AddFile>(actions[4]).unknown_fields = {{"futureField", "1"}};
  std::get<Protocol>(actions[0]).unknown_fields = {{"futureField", "\"x\""}};
  const std::vector<Action> read = RoundTrip(actions);
  ASSERT_EQ(read.size(), actions.size());
  EXPECT_TRUE(std::get<AddFile>(read[4]).unknown_fields.empty());
  EXPECT_TRUE(std::get<Protocol>(read[0]).unknown_fields.empty());
  EXPECT_EQ(std::get<AddFile>(read[4]).deletion_vector->unknown_fields,
            (UnknownFields{{"maxRowIndex", "41"}}));
}

// Several DuckDB chunks (2,048 rows each), the actions interleaved so
// that every chunk holds several columns.
std::vector<Action> ManyRows(int adds) {
  std::vector<Action> actions = EveryOptionalFieldUnset();
  for (int i = 0; i < adds; ++i) {
    AddFile add;
    add.path = "part-" + std::to_string(i) + ".parquet";
    add.partition_values = {{"p", std::to_string(i % 7)}};
    add.size = i;
    add.data_change = false;
    if (i % 3 == 0) add.tags = NullableStringMap{{"t", std::to_string(i)}};
    // Adds with and without a deletion vector, side by side in each chunk.
    if (i % 5 == 0) add.deletion_vector = Dv(i, /*max_row_index=*/i % 10 == 0);
    actions.emplace_back(std::move(add));
    if (i % 1000 == 0) {
      SetTransaction txn;
      txn.app_id = "app-" + std::to_string(i);
      txn.version = i;
      actions.emplace_back(std::move(txn));
    }
  }
  return actions;
}

TEST_F(CheckpointChunksTest, RowsOfManyChunksKeepTheirOrder) {
  const std::vector<Action> actions = ManyRows(5000);
  EXPECT_EQ(RoundTrip(actions), actions);
}

// A load applies a checkpoint's actions as they are decoded: batches of
// kBatchRows or a chunk more, in order, together the actions read at once.
TEST_F(CheckpointChunksTest, ABatchedReadHandsOverTheSameActionsInBatches) {
  const std::vector<Action> actions = ManyRows(20000);
  ASSERT_TRUE(handler_->WriteCheckpoint(store_, kKey, actions).ok());
  std::vector<Action> read;
  std::vector<size_t> batches;
  const auto gather = [&](std::vector<Action>& batch) {
    batches.push_back(batch.size());
    for (Action& action : batch) read.push_back(std::move(action));
    return OkStatus();
  };
  ASSERT_TRUE(handler_->ReadCheckpointInBatches(store_, {kKey}, gather).ok());
  EXPECT_TRUE(read == actions);
  ASSERT_EQ(batches.size(), 3u) << "20,026 rows: two full batches, then the rest";
  for (size_t i = 0; i + 1 < batches.size(); ++i) {
    EXPECT_GE(batches[i], DuckDbParquetHandler::kBatchRows);
    EXPECT_LT(batches[i], DuckDbParquetHandler::kBatchRows + 2048);
  }
  // An error from a batch stops the read there and is what it returns.
  batches.clear();
  const auto refuse = [&](std::vector<Action>& batch) {
    batches.push_back(batch.size());
    return DataLossError("stop");
  };
  const Status stopped = handler_->ReadCheckpointInBatches(store_, {kKey}, refuse);
  EXPECT_EQ(stopped.code(), StatusCode::kDataLoss);
  EXPECT_EQ(stopped.message(), "stop") << stopped.ToString();
  EXPECT_EQ(batches.size(), 1u);
}

TEST_F(CheckpointChunksTest, ConcurrentWritesEachGetTheirOwnRows) {
  // One handler, one table function: each write's COPY reads its own rows.
  std::vector<std::vector<Action>> tables;
  for (int t = 0; t < 4; ++t) tables.push_back(ManyRows(3000 + 500 * t));
  std::vector<std::thread> writers;
  std::vector<Status> written(tables.size());
  for (size_t t = 0; t < tables.size(); ++t) {
    writers.emplace_back([&, t] {
      written[t] =
          handler_
              ->WriteCheckpoint(store_, "_delta_log/" + std::to_string(t) + ".parquet", tables[t])
              .status();
    });
  }
  for (std::thread& w : writers) w.join();
  for (size_t t = 0; t < tables.size(); ++t) {
    ASSERT_TRUE(written[t].ok()) << written[t].ToString();
    auto read = handler_->ReadCheckpoint(store_, {"_delta_log/" + std::to_string(t) + ".parquet"});
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, tables[t]) << "write " << t;
  }
}

TEST_F(CheckpointChunksTest, AnActionACheckpointDoesNotHoldIsRefusedAndNothingWritten) {
  // In the second chunk: the COPY has begun when the row is reached.
  std::vector<Action> actions = ManyRows(5000);
  CommitInfo info;
  info.operation = "WRITE";
  actions.insert(actions.begin() + 3000, info);
  auto written = handler_->WriteCheckpoint(store_, kKey, actions);
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument) << written.status().ToString();
  EXPECT_THAT(written.status().message(), HasSubstr("commitInfo"));
  EXPECT_THAT(written.status().message(), HasSubstr("row 3000"));
  EXPECT_THAT(written.status().message(), HasSubstr(kKey));
  EXPECT_TRUE(store_.Head(kKey).status().IsNotFound());
  // The handler writes on.
  EXPECT_EQ(RoundTrip(EveryFieldSet()), EveryFieldSet());
}

TEST_F(CheckpointChunksTest, LinesAreDecodedFirstAndALineThatDoesNotParseIsNamed) {
  std::vector<std::string> lines;
  for (const Action& action : EveryFieldSet()) lines.push_back(ActionToJson(action));
  auto written = handler_->WriteCheckpointActions(store_, kKey, lines);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*handler_->ReadCheckpoint(store_, {kKey}), EveryFieldSet());

  const std::string other = "_delta_log/00000000000000000008.checkpoint.parquet";
  lines.insert(lines.begin() + 1, R"({"add":{"path":1}})");
  auto refused = handler_->WriteCheckpointActions(store_, other, lines);
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("action line 2"));
  EXPECT_THAT(refused.status().message(), HasSubstr(other));
  EXPECT_TRUE(store_.Head(other).status().IsNotFound());
}

}  // namespace
}  // namespace deltacommit
