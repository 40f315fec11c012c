// `_last_checkpoint` on S3 (Ceph RGW), with the DuckDB reader: a load lists
// the bucket from the hinted checkpoint only (start-after past the earlier
// versions), and a corrupt or dangling hint costs a full listing but gives
// the same snapshot as JSON replay.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/parquet/checkpoint_test_table.h"
#include "common/test_servers.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/forwarding_object_store.h"

namespace deltacommit {
namespace {

using checkpoint_test::ExpectSameSnapshot;
using checkpoint_test::GeneratedCommits;
using checkpoint_test::LaterCommit;
using checkpoint_test::WriteCommits;
using ::testing::ElementsAre;

// Records the start_after of each List.
class ListRecorder : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after) override {
    start_afters.emplace_back(start_after);
    return ForwardingObjectStore::List(prefix, start_after);
  }
  std::vector<std::string> start_afters;
};

TEST(LastCheckpointS3Test, LoadListsFromTheHintAndFallsBackWhenItIsCorruptOrDangling) {
  DC_REQUIRE_S3();
  testing::S3TestStore s3 = testing::NewS3TestStore("last-checkpoint");
  ListRecorder store(*s3.store);
  ObjectStoreLogStore log(store, "s3-conditional");
  auto parquet = DuckDbParquetHandler::Create();
  ASSERT_TRUE(parquet.ok()) << parquet.status().ToString();
  WriteCommits(store, GeneratedCommits(), 0);  // versions 0..4
  auto at4 = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(at4.ok()) << at4.status().ToString();
  FakeClock clock(1700000010000);
  ASSERT_TRUE(WriteCheckpoint(store, **parquet, **at4, clock).ok());
  WriteCommits(store, {LaterCommit()}, 5);
  auto from_json = LoadSnapshot(log, SnapshotRequest{});
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  const SnapshotRequest request{std::nullopt, parquet->get(), &store};

  store.start_afters.clear();
  auto hinted = LoadSnapshot(log, request);
  ASSERT_TRUE(hinted.ok()) << hinted.status().ToString();
  ExpectSameSnapshot(**hinted, **from_json);
  EXPECT_THAT(store.start_afters, ElementsAre(LogListStartAfter(4)));

  for (const char* hint : {"{\"version\":4,", R"({"version":5,"size":3})"}) {
    SCOPED_TRACE(hint);
    ASSERT_TRUE(store.Put(LastCheckpointPath(), hint).ok());
    store.start_afters.clear();
    auto fallback = LoadSnapshot(log, request);
    ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
    ExpectSameSnapshot(**fallback, **from_json);
    EXPECT_EQ(store.start_afters.back(), "") << "the whole log is listed last";
  }
}

}  // namespace
}  // namespace deltacommit
