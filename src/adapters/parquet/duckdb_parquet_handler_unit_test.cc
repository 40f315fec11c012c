// DuckDbParquetHandler on an in-memory ObjectStore (standing in for a
// remote one): errors, v2 JSON checkpoints with sidecars, sidecar paths,
// temp file cleanup and concurrent use. Parquet files are written by DuckDB.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/testing/memory_object_store.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;

constexpr char kCheckpoint[] =
    "_delta_log/00000000000000000005.checkpoint.parquet";

// A fresh directory, removed with its contents at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (fs::temp_directory_path() / "deltacommit-parquet-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp";
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The bytes of a Parquet file holding the rows of `select`, written by DuckDB
// with `options` besides the format (e.g. "ROW_GROUP_SIZE 1000").
std::string ParquetBytes(const std::string& select, const std::string& options = "") {
  ScratchDir dir;
  const std::string file = (dir.path() / "f.parquet").string();
  duckdb_database db = nullptr;
  duckdb_connection connection = nullptr;
  EXPECT_EQ(duckdb_open(nullptr, &db), DuckDBSuccess);
  EXPECT_EQ(duckdb_connect(db, &connection), DuckDBSuccess);
  const std::string sql =
      "COPY (" + select + ") TO '" + file + "' (FORMAT parquet" +
      (options.empty() ? "" : ", " + options) + ")";
  duckdb_result result;
  const bool ok =
      duckdb_query(connection, sql.c_str(), &result) == DuckDBSuccess;
  EXPECT_TRUE(ok) << duckdb_result_error(&result);
  duckdb_destroy_result(&result);
  duckdb_disconnect(&connection);
  duckdb_close(&db);
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

constexpr char kCheckpointRows[] =
    "SELECT * FROM (VALUES "
    "({'minReaderVersion': 1, 'minWriterVersion': 2}, NULL), "
    "(NULL, {'path': 'a.parquet', 'partitionValues': "
    "MAP {}::MAP(VARCHAR, VARCHAR), 'size': 3::BIGINT, "
    "'modificationTime': 4::BIGINT, 'dataChange': false})) "
    "AS t(protocol, add)";

// A v2 checkpoint in JSON, and its line naming a sidecar file.
constexpr char kV2Checkpoint[] =
    "_delta_log/00000000000000000002.checkpoint."
    "6374b053-df23-479b-b2cf-c9c550132b49.json";

std::string SidecarLine(const std::string& path) {
  return "{\"sidecar\":{\"path\":\"" + path + "\",\"sizeInBytes\":1,\"modificationTime\":2}}";
}

std::unique_ptr<DuckDbParquetHandler> NewHandler() {
  auto handler = DuckDbParquetHandler::Create();
  EXPECT_TRUE(handler.ok()) << handler.status().ToString();
  return handler.ok() ? std::move(handler).value() : nullptr;
}

TEST(DuckDbParquetHandlerTest, ReadsParquetFromTheObjectStore) {
  MemoryObjectStore store;
  ASSERT_TRUE(store.Put(kCheckpoint, ParquetBytes(kCheckpointRows)).ok());
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {kCheckpoint});
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  EXPECT_EQ(*lines,
            (std::vector<std::string>{
                R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})",
                R"({"add":{"path":"a.parquet","partitionValues":{},"size":3,)"
                R"("modificationTime":4,"dataChange":false}})"}));
}

TEST(DuckDbParquetHandlerTest, MissingFileIsNotFound) {
  MemoryObjectStore store;
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {kCheckpoint});
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kNotFound)
      << lines.status().ToString();
}

TEST(DuckDbParquetHandlerTest, NonParquetFileIsDataLossNamingTheKey) {
  MemoryObjectStore store;
  ASSERT_TRUE(store.Put(kCheckpoint, "{\"add\":{}}\n").ok());
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {kCheckpoint});
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(lines.status().message().find(kCheckpoint), std::string::npos)
      << lines.status().ToString();
  EXPECT_NE(lines.status().message().find("not a Parquet file"),
            std::string::npos)
      << lines.status().ToString();
}

TEST(DuckDbParquetHandlerTest, CorruptParquetIsDataLossNamingTheKey) {
  MemoryObjectStore store;
  std::string bytes = ParquetBytes(kCheckpointRows);
  bytes.replace(4, 40, std::string(40, '\xff'));  // keeps the magic bytes
  ASSERT_TRUE(store.Put(kCheckpoint, bytes).ok());
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {kCheckpoint});
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kDataLoss)
      << lines.status().ToString();
  EXPECT_NE(lines.status().message().find(kCheckpoint), std::string::npos)
      << lines.status().ToString();
}

// Rows are streamed from DuckDB as they are decoded, so a file that breaks
// part way through may have given batches before DuckDB finds the damage: the
// read must still fail, not end early as if the file ended there.
TEST(DuckDbParquetHandlerTest, DamageAfterTheFirstRowsIsDataLoss) {
  MemoryObjectStore store;
  std::string bytes = ParquetBytes(
      "SELECT {'path': 'f' || range || '.parquet', 'partitionValues': "
      "MAP {}::MAP(VARCHAR, VARCHAR), 'size': range, 'modificationTime': 4::BIGINT, "
      "'dataChange': true} AS add FROM range(100000)",
      "ROW_GROUP_SIZE 10000");
  // In the last row group, before the footer. Whether DuckDB finds it
  // before or after the first rows are handed over depends on how its
  // threads run ahead (here, on 2 cores, after), so only the outcome is
  // asserted: either way the read fails.
  bytes.replace(bytes.size() * 9 / 10, 4000, std::string(4000, '\x5a'));
  ASSERT_TRUE(store.Put(kCheckpoint, bytes).ok());
  auto handler = NewHandler();
  size_t applied = 0;
  Status status = handler->ReadCheckpointInBatches(
      store, {kCheckpoint}, [&applied](std::vector<Action>& actions) {
        applied += actions.size();
        return OkStatus();
      });
  EXPECT_LT(applied, 100000u);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status.ToString();
  EXPECT_NE(status.message().find(kCheckpoint), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("DuckDB cannot read it"), std::string::npos)
      << status.ToString();
}

// One handler reads files of different schemas in turn, a broken one among
// them, with the connection and query it keeps between reads.
TEST(DuckDbParquetHandlerTest, ReadsFilesOfAnySchemaInTurn) {
  MemoryObjectStore store;
  const std::string removes = "_delta_log/00000000000000000007.checkpoint.parquet";
  const std::string broken = "_delta_log/00000000000000000009.checkpoint.parquet";
  ASSERT_TRUE(store.Put(kCheckpoint, ParquetBytes(kCheckpointRows)).ok());
  ASSERT_TRUE(store
                  .Put(removes, ParquetBytes("SELECT {'path': 'b', 'deletionTimestamp': "
                                             "9::BIGINT, 'dataChange': true} AS remove"))
                  .ok());
  std::string damaged = ParquetBytes(kCheckpointRows);
  damaged.replace(4, 40, std::string(40, '\xff'));
  ASSERT_TRUE(store.Put(broken, damaged).ok());
  auto handler = NewHandler();
  const std::string add =
      R"({"add":{"path":"a.parquet","partitionValues":{},"size":3,)"
      R"("modificationTime":4,"dataChange":false}})";
  const std::string remove = R"({"remove":{"path":"b","deletionTimestamp":9,"dataChange":true}})";
  for (int round = 0; round < 2; ++round) {
    auto first = handler->ReadCheckpointActions(store, {kCheckpoint});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(first->size(), 2u);
    EXPECT_EQ(first->back(), add);
    auto second = handler->ReadCheckpointActions(store, {removes});
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    EXPECT_EQ(*second, std::vector<std::string>{remove});
    auto third = handler->ReadCheckpointActions(store, {broken});
    EXPECT_EQ(third.status().code(), StatusCode::kDataLoss) << third.status().ToString();
    EXPECT_NE(third.status().message().find(broken), std::string::npos)
        << third.status().ToString();
  }
}

TEST(DuckDbParquetHandlerTest, V2JsonCheckpointReadsItsSidecars) {
  MemoryObjectStore store;
  const std::string checkpoint = kV2Checkpoint;
  const std::string json = "{\"checkpointMetadata\":{\"version\":2}}\r\n" +
                           SidecarLine("side%20car.parquet") +
                           "\n\n{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}";
  ASSERT_TRUE(store.Put(checkpoint, json).ok());
  ASSERT_TRUE(store
                  .Put("_delta_log/_sidecars/side car.parquet",
                       ParquetBytes("SELECT {'path': 'b', 'deletionTimestamp': "
                                    "9::BIGINT, 'dataChange': true} AS remove"))
                  .ok());
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {checkpoint});
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ((*lines)[0], "{\"checkpointMetadata\":{\"version\":2}}");
  EXPECT_EQ((*lines)[2],
            "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}");
  EXPECT_EQ(
      (*lines)[3],
      R"({"remove":{"path":"b","deletionTimestamp":9,"dataChange":true}})");
}

// A sidecar holds only adds and removes: one that names a further sidecar
// is read as it is, and what it names is not fetched (here it is absent).
TEST(DuckDbParquetHandlerTest, ASidecarNamedInASidecarIsNotRead) {
  MemoryObjectStore store;
  const std::string checkpoint = kV2Checkpoint;
  ASSERT_TRUE(store.Put(checkpoint, SidecarLine("a.parquet") + "\n").ok());
  ASSERT_TRUE(store
                  .Put("_delta_log/_sidecars/a.parquet",
                       ParquetBytes("SELECT {'path': 'gone.parquet', 'sizeInBytes': 1::BIGINT, "
                                    "'modificationTime': 2::BIGINT} AS sidecar"))
                  .ok());
  auto handler = NewHandler();
  std::vector<Action> applied;
  Status status = handler->ReadCheckpointInBatches(store, {checkpoint},
                                                   [&applied](std::vector<Action>& actions) {
                                                     for (Action& a : actions) {
                                                       applied.push_back(std::move(a));
                                                     }
                                                     return OkStatus();
                                                   });
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(std::get<Sidecar>(applied[0]).path, "a.parquet");
  EXPECT_EQ(std::get<Sidecar>(applied[1]).path, "gone.parquet");
}

TEST(DuckDbParquetHandlerTest, MissingSidecarIsNotFound) {
  MemoryObjectStore store;
  const std::string checkpoint = kV2Checkpoint;
  ASSERT_TRUE(store.Put(checkpoint, SidecarLine("gone.parquet") + "\n").ok());
  auto handler = NewHandler();
  auto lines = handler->ReadCheckpointActions(store, {checkpoint});
  ASSERT_FALSE(lines.ok());
  EXPECT_EQ(lines.status().code(), StatusCode::kNotFound);
}

TEST(SidecarKeyTest, MapsPathsIntoTheSidecarDirectory) {
  using parquet_internal::SidecarKey;
  EXPECT_EQ(*SidecarKey("a.parquet"), "_delta_log/_sidecars/a.parquet");
  EXPECT_EQ(*SidecarKey("a%3Ab.parquet"), "_delta_log/_sidecars/a:b.parquet");
  EXPECT_EQ(*SidecarKey("s3://bucket/t/_delta_log/_sidecars/a.parquet"),
            "_delta_log/_sidecars/a.parquet");
  EXPECT_EQ(*SidecarKey("file:///data/t/_delta_log/_sidecars/a.parquet"),
            "_delta_log/_sidecars/a.parquet");
  for (const char* bad : {"", "x/a.parquet", "a%2Fb.parquet", "a%zz", "a%2",
                          "s3://bucket/elsewhere/a.parquet", ".."}) {
    auto key = SidecarKey(bad);
    EXPECT_FALSE(key.ok()) << bad << " -> " << *key;
    if (!key.ok()) {
      EXPECT_EQ(key.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(DuckDbParquetHandlerTest, RemovesItsTempFiles) {
  ScratchDir tmp;
  const char* old = std::getenv("TMPDIR");
  const std::optional<std::string> saved =
      old != nullptr ? std::optional<std::string>(old) : std::nullopt;
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  MemoryObjectStore store;
  ASSERT_TRUE(store.Put(kCheckpoint, ParquetBytes(kCheckpointRows)).ok());
  auto handler = NewHandler();
  EXPECT_TRUE(handler->ReadCheckpointActions(store, {kCheckpoint}).ok());
  EXPECT_FALSE(handler->ReadCheckpointActions(store, {"missing"}).ok());
  if (saved) {
    ::setenv("TMPDIR", saved->c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(DuckDbParquetHandlerTest, ConcurrentReadsAgree) {
  MemoryObjectStore store;
  ASSERT_TRUE(store.Put(kCheckpoint, ParquetBytes(kCheckpointRows)).ok());
  auto handler = NewHandler();
  auto expected = handler->ReadCheckpointActions(store, {kCheckpoint});
  ASSERT_TRUE(expected.ok());
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (size_t t = 0; t < same.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        auto lines = handler->ReadCheckpointActions(store, {kCheckpoint});
        if (lines.ok() && *lines == *expected) ++same[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int count : same) EXPECT_EQ(count, 10);
}

}  // namespace
}  // namespace deltacommit
