// Checkpoint writing on S3 (Ceph RGW): the round trip of
// checkpoint_writer_test.cc through a remote store, and hyparquet reads the
// object as stored.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "adapters/parquet/checkpoint_test_table.h"
#include "common/test_servers.h"
#include "contract/temp_dir.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/testing/fake_clock.h"

namespace deltacommit {
namespace {

using checkpoint_test::ExpectSameSnapshot;
using checkpoint_test::GeneratedCommits;
using checkpoint_test::LaterCommit;
using checkpoint_test::ReadWithHyparquet;
using checkpoint_test::WriteCommits;

TEST(CheckpointWriterS3Test, SnapshotFromCheckpointEqualsJsonReplayOnS3) {
  DC_REQUIRE_S3();
  testing::S3TestStore s3 = testing::NewS3TestStore("checkpoint-writer");
  ObjectStore& store = *s3.store;
  ObjectStoreLogStore log(store, "s3-conditional");
  auto parquet = DuckDbParquetHandler::Create();
  ASSERT_TRUE(parquet.ok()) << parquet.status().ToString();
  WriteCommits(store, GeneratedCommits(), 0);

  auto at4 = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(at4.ok()) << at4.status().ToString();
  FakeClock clock(1700000010000);  // no tombstone has expired
  auto info = WriteCheckpoint(store, **parquet, **at4, clock);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_TRUE(WriteCheckpoint(store, **parquet, **at4, clock).status().IsAlreadyExists());
  WriteCommits(store, {LaterCommit()}, 5);

  auto from_json = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store.Delete(CommitPath(v)).ok());
  SnapshotRequest request;
  request.parquet = parquet->get();
  request.checkpoint_store = &store;
  auto from_checkpoint = LoadSnapshot(log, request);
  ASSERT_TRUE(from_checkpoint.ok()) << from_checkpoint.status().ToString();
  ExpectSameSnapshot(**from_checkpoint, **from_json);

  auto last = store.Get(LastCheckpointPath());
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(*last, LastCheckpointJson(*info));

  // The object as stored is Parquet an independent reader accepts.
  DC_REQUIRE_HYPARQUET();
  auto bytes = store.Get(info->key);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  TempDir dir;
  const std::string file = dir.path() + "/checkpoint.parquet";
  std::ofstream(file, std::ios::binary) << *bytes;
  const nlohmann::json read = ReadWithHyparquet(file);
  ASSERT_TRUE(read.is_object());
  int adds = 0;
  for (const auto& row : read["rows"]) adds += row["add"].is_null() ? 0 : 1;
  EXPECT_EQ(adds, info->num_of_add_files);
  EXPECT_EQ(static_cast<int64_t>(read["rows"].size()), info->size);
}

TEST(CheckpointWriterS3Test, MultiPartSnapshotEqualsJsonReplayOnS3) {
  DC_REQUIRE_S3();
  testing::S3TestStore s3 = testing::NewS3TestStore("checkpoint-parts");
  ObjectStore& store = *s3.store;
  ObjectStoreLogStore log(store, "s3-conditional");
  auto parquet = DuckDbParquetHandler::Create();
  ASSERT_TRUE(parquet.ok()) << parquet.status().ToString();
  WriteCommits(store, GeneratedCommits(), 0);
  auto at4 = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(at4.ok()) << at4.status().ToString();
  FakeClock clock(1700000010000);
  CheckpointOptions options;
  options.part_size = 3;  // 8 adds and removes: 3 parts
  auto info = WriteCheckpoint(store, **parquet, **at4, clock, options);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->parts, 3);
  for (int32_t i = 1; i <= 3; ++i) EXPECT_TRUE(store.Head(MultiPartCheckpointPath(4, i, 3)).ok());
  EXPECT_TRUE(WriteCheckpoint(store, **parquet, **at4, clock, options).status().IsAlreadyExists());

  WriteCommits(store, {LaterCommit()}, 5);
  auto from_json = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  for (Version v = 0; v <= 4; ++v) ASSERT_TRUE(store.Delete(CommitPath(v)).ok());
  SnapshotRequest request;
  request.parquet = parquet->get();
  request.checkpoint_store = &store;
  auto from_parts = LoadSnapshot(log, request);
  ASSERT_TRUE(from_parts.ok()) << from_parts.status().ToString();
  ExpectSameSnapshot(**from_parts, **from_json);
  EXPECT_EQ(nlohmann::json::parse(*store.Get(LastCheckpointPath()))["parts"], 3);
}

}  // namespace
}  // namespace deltacommit
