// The front door on real local tables (PosixObjectStore, DuckDB for
// checkpoints): opening, creating, committing, conflicts as values,
// idempotent retries, history, checks, checkpoints, and the warm table that
// reads only what is new (counted through the metering wrappers).
#include "deltacommit/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/metering.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "deltacommit-table-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    path_ = (root_ / "events").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  static Metadata EventsMetadata() {
    Metadata m;
    m.id = "00000000-0000-0000-0000-00000000000e";
    m.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
        R"({"name":"day","type":"string","nullable":true,"metadata":{}}]})";
    m.partition_columns = {"day"};
    m.created_time = 1;
    return m;
  }

  static AddFile File(const std::string& name, const std::string& day = "1") {
    AddFile add;
    add.path = "day=" + day + "/" + name + ".parquet";
    add.partition_values = {{"day", day}};
    add.size = 10;
    add.modification_time = 1;
    add.data_change = true;
    return add;
  }

  // A table opened and created with `options`.
  Table Created(TableOptions options = {}) {
    StatusOr<Table> table = OpenTable(path_, std::move(options));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    StatusOr<CommitOutcome> created = table->Create(EventsMetadata());
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_EQ(created->version, 0);
    return std::move(table).value();
  }

  StatusOr<Table> Open(TableOptions options = {}) { return OpenTable(path_, std::move(options)); }

  fs::path root_;
  std::string path_;
};

TEST_F(TableTest, OpensALocalTableByPathOrFileUri) {
  Created();
  for (const std::string& uri : {path_, "file://" + path_, path_ + "/"}) {
    StatusOr<Table> table = OpenTable(uri);
    ASSERT_TRUE(table.ok()) << uri << ": " << table.status().ToString();
    EXPECT_EQ(table->uri(), path_);
    EXPECT_EQ(table->mode(), CommitMode::kLocal);
    EXPECT_TRUE(table->is_local());
    auto snapshot = table->Snapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_EQ((*snapshot)->version(), 0);
    EXPECT_EQ((*snapshot)->metadata().partition_columns, std::vector<std::string>{"day"});
  }
}

TEST_F(TableTest, RefusesWhatDoesNotFitTheTableNamingIt) {
  EXPECT_THAT(OpenTable("gs://bucket/t").status().message(),
              HasSubstr("scheme \"gs\" is not supported"));
  TableOptions s3_only;
  s3_only.endpoint_url = "http://127.0.0.1:1";
  EXPECT_THAT(OpenTable(path_, s3_only).status().message(),
              HasSubstr("--endpoint-url: only for s3:// tables"));
  TableOptions dynamodb;
  dynamodb.mode = CommitMode::kS3DynamoDb;
  EXPECT_THAT(OpenTable(path_, dynamodb).status().message(),
              HasSubstr("a local table commits with the local log store"));
  TableOptions local_on_s3;
  local_on_s3.mode = CommitMode::kLocal;
  EXPECT_THAT(OpenTable("s3://bucket/t", local_on_s3).status().message(),
              HasSubstr("not a commit mode for s3:// tables"));
  TableOptions misspelt;
  misspelt.storage_options = {{"deltacommit.dynamodb.autoCreat", "true"}};
  EXPECT_THAT(OpenTable("s3://bucket/t", misspelt).status().message(),
              HasSubstr("unknown deltacommit option"));
}

TEST_F(TableTest, ReadingATableThatIsNotThereIsNotFound) {
  StatusOr<Table> table = Open();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->Snapshot().status().code(), StatusCode::kNotFound);
}

TEST_F(TableTest, CreatingTwiceIsRefusedAndLeavesVersionZero) {
  Table table = Created();
  StatusOr<CommitOutcome> again = table.Create(EventsMetadata());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("already has a _delta_log"));
  EXPECT_FALSE(fs::exists(root_ / "events" / "_delta_log" / "00000000000000000001.json"));
}

TEST_F(TableTest, CommitsAndReadsItsOwnCommitBack) {
  Table table = Created();
  StatusOr<CommitOutcome> outcome = table.Commit({File("a")});
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(outcome->result, CommitResult::kCommitted);
  EXPECT_EQ(outcome->version, 1);
  auto snapshot = table.Snapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->version(), 1);
  EXPECT_EQ((*snapshot)->active_files().size(), 1u);
}

TEST_F(TableTest, AConflictIsAValueNamingTheWinner) {
  Table first = Created();
  ASSERT_TRUE(first.Commit({File("a")}).ok());
  StatusOr<Table> second = Open();
  ASSERT_TRUE(second.ok());
  // Both read version 1 and remove the same file: the second loses.
  auto read = second->Snapshot();
  ASSERT_TRUE(read.ok());
  RemoveFile remove;
  remove.path = File("a").path;
  remove.deletion_timestamp = 2;
  remove.data_change = true;
  ASSERT_TRUE(first.Commit({remove}).ok());
  CommitOptions at_one;
  at_one.read_version = 1;
  StatusOr<CommitOutcome> lost = second->Commit({remove}, at_one);
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_EQ(lost->result, CommitResult::kConflict);
  ASSERT_TRUE(lost->conflict.has_value());
  EXPECT_EQ(lost->conflict->winning_version, 2);
}

TEST_F(TableTest, ARetriedAppTransactionIsRecognised) {
  Table table = Created();
  CommitOptions options;
  options.app_transaction = {{"ingest", 7}};
  ASSERT_EQ(table.Commit({File("a")}, options)->result, CommitResult::kCommitted);
  StatusOr<CommitOutcome> retry = table.Commit({File("a")}, options);
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->result, CommitResult::kAlreadyCommitted);
  EXPECT_EQ(table.Snapshot().value()->version(), 1);
}

TEST_F(TableTest, AReadPredicateOnANonPartitionColumnIsRefused) {
  Table table = Created();
  CommitOptions options;
  options.read_predicates = {{PartitionFilter{"id", {std::string("1")}}}};
  StatusOr<CommitOutcome> outcome = table.Commit({File("a")}, options);
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(outcome.status().message(), HasSubstr("read predicate: \"id\" is not a partition column"));
}

TEST_F(TableTest, RefusedPathsLeaveTheTableUnchanged) {
  Table table = Created();
  AddFile escape = File("a");
  escape.path = "%2E%2E/escape.parquet";
  StatusOr<CommitOutcome> outcome = table.Commit({escape});
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(outcome.status().message(), HasSubstr("table " + path_));
  EXPECT_EQ(table.Snapshot().value()->version(), 0);
}

TEST_F(TableTest, HistoryIsNewestFirstAndLimited) {
  Table table = Created();
  ASSERT_TRUE(table.Commit({File("a")}).ok());
  ASSERT_TRUE(table.Commit({File("b")}).ok());
  StatusOr<std::vector<HistoryEntry>> all = table.History();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].version, 2);
  EXPECT_EQ((*all)[0].num_adds, 1);
  ASSERT_TRUE((*all)[2].commit_info.has_value());
  EXPECT_EQ((*all)[2].commit_info->operation, "CREATE TABLE");
  EXPECT_EQ(table.History(1)->size(), 1u);
}

TEST_F(TableTest, CheckAndTimeTravel) {
  Table table = Created();
  ASSERT_TRUE(table.Commit({File("a")}).ok());
  StatusOr<LogCheckReport> report = table.Check();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->sound());
  EXPECT_EQ(report->latest_version, 1);
  auto zero = table.SnapshotAt(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE((*zero)->active_files().empty());
  EXPECT_EQ(table.SnapshotAt(5).status().code(), StatusCode::kNotFound);
}

TEST_F(TableTest, WritesACheckpointWhenOneIsDue) {
  Table table = Created();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(table.Commit({File("f" + std::to_string(i))}).ok());
  EXPECT_TRUE(fs::exists(root_ / "events" / ClassicCheckpointPath(10)));
  EXPECT_TRUE(fs::exists(root_ / "events" / LastCheckpointPath()));
  StatusOr<Table> reopened = Open();
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->Snapshot().value()->active_files().size(), 10u);
}

TEST_F(TableTest, AnExplicitCheckpointOfTheLatestVersion) {
  TableOptions options;
  options.auto_checkpoint = false;
  Table table = Created(options);
  ASSERT_TRUE(table.Commit({File("a")}).ok());
  StatusOr<CheckpointInfo> info = table.Checkpoint();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->version, 1);
  EXPECT_EQ(info->num_of_add_files, 1);
}

// A warm table doing 100 commits in a row: per commit one listing (is there
// anything new?) and no read — its own commit is applied as written, and
// nothing already read is read again.
TEST_F(TableTest, AWarmTableReadsOnlyWhatIsNewPerCommit) {
  CallMeter meter;
  TableOptions options;
  options.meter = &meter;
  options.auto_checkpoint = false;  // a checkpoint's own calls are not the point here
  Table table = Created(options);
  ASSERT_TRUE(table.Snapshot().ok());
  for (int i = 0; i < 100; ++i) {
    const int64_t gets = meter.Count(CallKind::kS3Get);
    const int64_t lists = meter.Count(CallKind::kS3List);
    StatusOr<CommitOutcome> outcome = table.Commit({File("f" + std::to_string(i))});
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    ASSERT_EQ(outcome->version, i + 1);
    EXPECT_EQ(meter.Count(CallKind::kS3Get) - gets, 0) << "commit " << i;
    EXPECT_EQ(meter.Count(CallKind::kS3List) - lists, 1) << "commit " << i;
  }
  EXPECT_EQ(table.Snapshot().value()->active_files().size(), 100u);
}

TEST_F(TableTest, UpdateReadsExactlyTheCommitsOfOtherWriters) {
  CallMeter meter;
  TableOptions options;
  options.meter = &meter;
  Table reader = Created(options);
  ASSERT_EQ(reader.Snapshot().value()->version(), 0);
  StatusOr<Table> writer = Open();
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer->Commit({File("w" + std::to_string(i))}).ok());
  const int64_t gets = meter.Count(CallKind::kS3Get);
  const int64_t lists = meter.Count(CallKind::kS3List);
  auto updated = reader.Update();
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ((*updated)->version(), 3);
  EXPECT_EQ((*updated)->active_files().size(), 3u);
  EXPECT_EQ(meter.Count(CallKind::kS3Get) - gets, 3);
  EXPECT_EQ(meter.Count(CallKind::kS3List) - lists, 1);
  // Nothing new: one listing, no read.
  ASSERT_TRUE(reader.Update().ok());
  EXPECT_EQ(meter.Count(CallKind::kS3Get) - gets, 3);
}

// Data files under the table (everything outside _delta_log/).
int64_t DataFiles(const fs::path& table) {
  int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(table)) {
    if (e.is_regular_file() && e.path().string().find("_delta_log") == std::string::npos) ++n;
  }
  return n;
}

TEST_F(TableTest, AppendsCsvRowsAsOneBlindAppendPartitionedAsTheTable) {
  Table table = Created();
  const std::string csv = (root_ / "rows.csv").string();
  { std::ofstream(csv) << "id,day\n1,a\n2,b\n3,a\n"; }
  std::vector<AppendEvent::Kind> events;
  AppendOptions options;
  options.on_event = [&events](const AppendEvent& e) { events.push_back(e.kind); };
  StatusOr<AppendResult> result = table.Append({{csv, "", "", {}}}, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->outcome.result, CommitResult::kCommitted);
  EXPECT_EQ(result->outcome.version, 1);
  EXPECT_EQ(result->rows, 3);
  EXPECT_EQ(result->adds.size(), 2u);  // day=a and day=b
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front(), AppendEvent::Kind::kConverting);
  EXPECT_EQ(events.back(), AppendEvent::Kind::kWritten);
  auto snapshot = table.Snapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->active_files().size(), 2u);
  EXPECT_EQ(DataFiles(root_ / "events"), 2);
}

TEST_F(TableTest, AnAppendOfNoRowsIsRefusedAndLeavesNoFile) {
  Table table = Created();
  const std::string csv = (root_ / "empty.csv").string();
  { std::ofstream(csv) << "id,day\n"; }
  StatusOr<AppendResult> result = table.Append({{csv, "", "", {}}});
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("hold no rows"));
  EXPECT_EQ(DataFiles(root_ / "events"), 0);
  EXPECT_EQ(table.Snapshot().value()->version(), 0);
}

TEST_F(TableTest, ARetriedAppendIsRecognisedAndItsNewFilesRemoved) {
  Table table = Created();
  const std::string csv = (root_ / "rows.csv").string();
  { std::ofstream(csv) << "id,day\n1,a\n"; }
  AppendOptions options;
  options.app_transaction = {{"loader", 1}};
  ASSERT_EQ(table.Append({{csv, "", "", {}}}, options)->outcome.result, CommitResult::kCommitted);
  StatusOr<AppendResult> retry = table.Append({{csv, "", "", {}}}, options);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(retry->outcome.result, CommitResult::kAlreadyCommitted);
  EXPECT_EQ(DataFiles(root_ / "events"), 1);
  EXPECT_EQ(table.Snapshot().value()->version(), 1);
}

// Columns in memory (a DataFrame's, say) append as a file's rows would:
// matched by name, cast to the schema (here text into a long), nulls kept.
TEST_F(TableTest, ColumnsInMemoryAppendAsAFilesRowsWould) {
  Table table = Created();
  MemoryColumn id;
  id.name = "id";
  id.kind = MemoryColumn::Kind::kString;
  id.strings = {"7", "", "9"};
  id.nulls = {0, 1, 0};
  MemoryColumn day;
  day.name = "day";
  day.kind = MemoryColumn::Kind::kString;
  day.strings = {"a", "b", "a"};
  StatusOr<AppendResult> result = table.Append({{"", "", "", {id, day}}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->rows, 3);
  auto rows = table.Query("SELECT id, day FROM t ORDER BY day, id NULLS FIRST");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->rows.size(), 3u);
  EXPECT_EQ(rows->rows[0][0], "7");
  EXPECT_EQ(rows->rows[1][0], "9");
  EXPECT_EQ(rows->rows[2][0], std::nullopt);  // day b's id was NULL
  // Columns of different lengths: refused, naming them; nothing committed.
  day.strings.pop_back();
  StatusOr<AppendResult> uneven = table.Append({{"", "", "", {id, day}}});
  EXPECT_EQ(uneven.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(uneven.status().message(), HasSubstr("column \"day\" holds 2 rows"));
  EXPECT_EQ(table.Snapshot().value()->version(), 1);
}

TEST_F(TableTest, AnInputThatDoesNotMatchTheSchemaCommitsNothing) {
  Table table = Created();
  const std::string csv = (root_ / "bad.csv").string();
  { std::ofstream(csv) << "id,day\nnot-a-number,a\n"; }
  StatusOr<AppendResult> result = table.Append({{csv, "", "bad rows", {}}});
  EXPECT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("nothing was committed"));
  EXPECT_EQ(DataFiles(root_ / "events"), 0);
  EXPECT_EQ(table.Snapshot().value()->version(), 0);
}

TEST_F(TableTest, OneTableIsSharedByThreadsThatAllCommit) {
  Table table = Created();
  constexpr int kThreads = 4;
  constexpr int kCommits = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&table, &failures, t] {
      Table mine = table;  // copies share the table
      for (int i = 0; i < kCommits; ++i) {
        StatusOr<CommitOutcome> outcome =
            mine.Commit({File("t" + std::to_string(t) + "-" + std::to_string(i))});
        if (!outcome.ok() || outcome->result != CommitResult::kCommitted) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto snapshot = table.Snapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ((*snapshot)->version(), kThreads * kCommits);
  EXPECT_EQ((*snapshot)->active_files().size(), static_cast<size_t>(kThreads * kCommits));
}

}  // namespace
}  // namespace deltacommit
