// Catalog-managed tables in our own client: OpenTable("uc://main.sales.
// orders") against a real `deltacommit serve` speaking Unity Catalog's
// Delta REST API. The table is created as Delta's clients create it
// (staging table, version 0, create); then the library reads it through
// the catalog, commits staged commits that the catalog ratifies, publishes
// them in order, merges commits the catalog holds but nobody has published,
// and refuses to write such a table around its catalog.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/cli_runner.h"
#include "delta_rest_fixture.h"
#include "deltacommit/action_json.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/logstore/catalog_log_store.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/table.h"
#include "deltacommit/testing/fault_catalog_client.h"
#include "deltacommit/testing/recording_step_hooks.h"
#include "deltacommit/unity_client/delta_rest_catalog_client.h"

namespace deltacommit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kName[] = "uc://main.sales.orders";

class CatalogTableTest : public ServeDeltaRestTest {
 protected:
  TableOptions Options(const std::string& token = kToken) {
    TableOptions options;
    options.catalog_url = "http://127.0.0.1:" + std::to_string(serve_->port());
    options.catalog_token = token;
    options.on_warning = [this](const std::string& w) { warnings_.push_back(w); };
    return options;
  }

  Table Open(const std::string& token = kToken) {
    StatusOr<Table> table = OpenTable(kName, Options(token));
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  static AddFile File(const std::string& name) {
    AddFile add;
    add.path = name + ".parquet";
    add.size = 10;
    add.modification_time = 1;
    add.data_change = true;
    return add;
  }

  json Load() {
    http::testing::RawResponse loaded = Call("GET", kTable, nullptr);
    EXPECT_EQ(loaded.status, 200) << loaded.body;
    return Body(loaded);
  }

  std::string Log(Version v) {
    return ReadFile(path_ / "_delta_log" / (FormatVersion(v) + ".json"));
  }

  std::vector<std::string> warnings_;
};

TEST_F(CatalogTableTest, CommitsAreRatifiedByTheCatalogAndPublishedInOrder) {
  CreateManagedTable();
  Table table = Open();
  EXPECT_EQ(table.mode(), CommitMode::kUnityCatalog);
  EXPECT_EQ(table.uri(), path_.string());
  auto first = table.Snapshot();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->version(), 0);
  EXPECT_TRUE(IsCatalogManaged((*first)->protocol()));
  for (int v = 1; v <= 3; ++v) {
    StatusOr<CommitOutcome> outcome = table.Commit({File("part-" + std::to_string(v))});
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    EXPECT_EQ(outcome->result, CommitResult::kCommitted);
    EXPECT_EQ(outcome->version, v);
  }
  // The catalog ratified each one, and our client published each as <v>.json
  // (the service's publisher may have been first: the bytes are the same).
  EXPECT_EQ(Load()["latest-table-version"], 3);
  ActionParser parser;
  for (Version v = 1; v <= 3; ++v) {
    ASSERT_TRUE(Published(v)) << v;
    StatusOr<std::vector<Action>> actions = parser.ParseCommit(Log(v));
    ASSERT_TRUE(actions.ok()) << actions.status().ToString();
    const auto* info = std::get_if<CommitInfo>(&actions->front());
    ASSERT_NE(info, nullptr) << "version " << v << " starts with its commitInfo";
    EXPECT_TRUE(info->in_commit_timestamp.has_value()) << v;
    EXPECT_TRUE(info->txn_id.has_value()) << "catalog-managed commits carry a txnId";
  }
  auto latest = table.Snapshot();
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ((*latest)->version(), 3);
  EXPECT_EQ((*latest)->active_files().size(), 3u);
  StatusOr<LogCheckReport> check = Open().Check();
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->sound()) << check->problems.front();
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
}

TEST_F(CatalogTableTest, ReadsMergeRatifiedCommitsNobodyHasPublished) {
  CreateManagedTable();
  // A directory where 1.json would go: nobody can publish version 1, so it
  // stays in the catalog, and only a reader through the catalog sees it.
  fs::create_directories(path_ / "_delta_log" / (FormatVersion(1) + ".json"));
  ASSERT_EQ(
      Call("POST", kTable, Update(json::array({AddCommit(PutStaged(1, "theirs.parquet"))}))).status,
      200);
  Table table = Open();
  auto snapshot = table.Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), 1);
  // Our commit lands as 2 on top of it; it cannot be published before 1.
  StatusOr<CommitOutcome> ours = table.Commit({File("ours")});
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->version, 2);
  EXPECT_FALSE(fs::exists(path_ / "_delta_log" / (FormatVersion(2) + ".json")));
  // The commit stands; that it is not published yet is a warning, not an
  // error.
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_THAT(warnings_[0], HasSubstr("version 2 of unity-catalog main.sales.orders"));
  EXPECT_THAT(warnings_[0], HasSubstr("is committed (the catalog ratified it), but publishing"));
  EXPECT_THAT(warnings_[0], HasSubstr("filesystem readers will once"));
  auto merged = Open().Snapshot();
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)->version(), 2);
  EXPECT_EQ((*merged)->active_files().size(), 2u);

  // Around the catalog the table looks like version 0, and the reader is
  // told so.
  TableOptions filesystem;
  filesystem.on_warning = [this](const std::string& w) { warnings_.push_back(w); };
  StatusOr<Table> around = OpenTable(path_.string(), filesystem);
  ASSERT_TRUE(around.ok());
  auto stale = around->Snapshot();
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_EQ((*stale)->version(), 0);
  ASSERT_FALSE(warnings_.empty());
  EXPECT_THAT(warnings_.back(), HasSubstr("is a catalog-managed table"));

  // Once 1 can be published, the next commit publishes 1, 2 and itself, in
  // order.
  fs::remove(path_ / "_delta_log" / (FormatVersion(1) + ".json"));
  StatusOr<CommitOutcome> next = table.Commit({File("next")});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->version, 3);
  for (Version v = 1; v <= 3; ++v) EXPECT_TRUE(Published(v)) << v;
  EXPECT_THAT(Log(1), HasSubstr("theirs.parquet"));
  EXPECT_THAT(Log(2), HasSubstr("ours.parquet"));
}

// A <v>.json written around the catalog between the ratification of v and
// its publishing: the commit stands, and the writer is warned to check.
TEST_F(CatalogTableTest, AFileWrittenAroundTheCatalogIsAWarningToCheck) {
  CreateManagedTable();
  auto http = aws::NewCurlHttpClient();
  auto client = unity_client::DeltaRestCatalogClient::Create(
      {"http://127.0.0.1:" + std::to_string(serve_->port()), kToken, {}}, *http, RealSleeper());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  PosixObjectStore store(path_.string());
  RecordingStepHooks hooks;
  hooks.SetCallback([&](std::string_view step) {
    if (step == "catalog/after-ratify") {
      WriteFile(path_ / "_delta_log" / (FormatVersion(1) + ".json"),
                R"({"commitInfo":{"operation":"AROUND"}})" "\n");
    }
    return OkStatus();
  });
  CatalogLogStore log(store, **client, {"main", "sales", "orders"}, table_id_, &hooks);
  log.OnWarning([this](const std::string& w) { warnings_.push_back(w); });
  StatusOr<std::shared_ptr<const Snapshot>> read = LoadSnapshot(log, {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  TransactionOptions options;
  options.table_uri = "file://" + path_.string();
  Transaction txn(log, *read, options, SystemClock(), RealSleeper());
  txn.AddAction(File("ours"));
  StatusOr<CommitOutcome> ours = txn.Commit();
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  EXPECT_EQ(ours->version, 1);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_THAT(warnings_[0], HasSubstr("differs from the commit the catalog ratified as version 1"));
  EXPECT_THAT(warnings_[0], HasSubstr("run deltacommit check"));
}

TEST_F(CatalogTableTest, ConcurrentWritersThroughTheCatalogEachLandOnce) {
  CreateManagedTable();
  constexpr int kWriters = 3;
  constexpr int kCommits = 4;
  std::vector<std::thread> writers;
  std::vector<std::string> errors(kWriters);
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      StatusOr<Table> table = OpenTable(kName, Options());
      if (!table.ok()) {
        errors[static_cast<size_t>(w)] = table.status().ToString();
        return;
      }
      for (int i = 0; i < kCommits; ++i) {
        StatusOr<CommitOutcome> outcome =
            table->Commit({File("w" + std::to_string(w) + "-" + std::to_string(i))});
        if (!outcome.ok() || outcome->result != CommitResult::kCommitted) {
          errors[static_cast<size_t>(w)] =
              outcome.ok() ? "not committed" : outcome.status().ToString();
          return;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  auto snapshot = Open().Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->version(), kWriters * kCommits);
  EXPECT_EQ((*snapshot)->active_files().size(), static_cast<size_t>(kWriters * kCommits));
  EXPECT_EQ(Load()["latest-table-version"], kWriters * kCommits);
  for (Version v = 1; v <= kWriters * kCommits; ++v) EXPECT_TRUE(Published(v)) << v;
}

TEST_F(CatalogTableTest, WritesAroundTheCatalogAndBadNamesAreRefusedClearly) {
  CreateManagedTable();
  StatusOr<Table> around = OpenTable(path_.string());
  ASSERT_TRUE(around.ok());
  StatusOr<CommitOutcome> refused = around->Commit({File("around")});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("open the table by its catalog name, uc://"));
  EXPECT_FALSE(fs::exists(path_ / "_delta_log" / (FormatVersion(1) + ".json")));

  // An unknown name opens (to be created), and every read says it is not
  // there.
  StatusOr<Table> unknown = OpenTable("uc://main.sales.nope", Options());
  ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
  auto missing = unknown->Snapshot();
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("main.sales.nope"));
  StatusOr<Table> short_name = OpenTable("uc://main.sales", Options());
  EXPECT_EQ(short_name.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(short_name.status().message(), HasSubstr("has 2 parts, not 3"));
  StatusOr<Table> traversal = OpenTable("uc://main.sales.%2E%2E", Options());
  EXPECT_EQ(traversal.status().code(), StatusCode::kInvalidArgument);
  TableOptions no_url = Options();
  no_url.catalog_url.clear();
  EXPECT_THAT(OpenTable(kName, no_url).status().message(), HasSubstr("--catalog-url is required"));
  StatusOr<Table> wrong_token = OpenTable(kName, Options("not-a-token-of-this-service-0000"));
  EXPECT_EQ(wrong_token.status().code(), StatusCode::kUnauthenticated);
  TableOptions other_mode = Options();
  other_mode.mode = CommitMode::kS3Conditional;
  EXPECT_THAT(OpenTable(kName, other_mode).status().message(),
              HasSubstr("a uc:// table commits through its catalog"));
  EXPECT_THAT(OpenTable(path_.string(), Options()).status().message(),
              HasSubstr("--catalog-url: only for tables opened by their catalog name"));

  // A token that may only read reads, and its commit is refused by the
  // catalog; nothing is ratified.
  Table reader = Open(kReaderToken);
  auto read = reader.Snapshot();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  StatusOr<CommitOutcome> denied = reader.Commit({File("reader")});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Load()["latest-table-version"], 0);
}

TEST_F(CatalogTableTest, CreateMakesACatalogManagedTableThroughTheCatalog) {
  Table table = Open();  // a name the catalog does not know yet
  auto before = table.Snapshot();
  EXPECT_EQ(before.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(before.status().message(), HasSubstr("create the table first"));
  Metadata m;
  m.id = NewUuid();
  m.schema_string =
      R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
  m.configuration = {{"delta.checkpointInterval", "2"}};
  StatusOr<CommitOutcome> created = table.Create(m);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(created->result, CommitResult::kCommitted);
  EXPECT_EQ(created->version, 0);

  // Registered as the catalog's staging answer asked: its id, its location,
  // the required features and properties, and our own property kept.
  const json loaded = Load();
  const json& metadata = loaded["metadata"];
  EXPECT_EQ(metadata["table-type"], "MANAGED");
  table_id_ = metadata["table-uuid"];
  EXPECT_EQ(metadata["properties"]["io.unitycatalog.tableId"], table_id_);
  EXPECT_EQ(metadata["properties"]["delta.checkpointInterval"], "2");
  EXPECT_EQ(metadata["properties"]["delta.feature.catalogManaged"], "supported");
  path_ = std::string(metadata["location"]).substr(std::string("file://").size());
  EXPECT_EQ(table.uri(), path_.string());
  ASSERT_TRUE(fs::exists(path_ / "_delta_log" / (FormatVersion(0) + ".json")));

  // The same handle commits to it; a checkpoint is written at version 2,
  // once 2 is published.
  for (Version v = 1; v <= 2; ++v) {
    StatusOr<CommitOutcome> outcome = table.Commit({File("part-" + std::to_string(v))});
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    EXPECT_EQ(outcome->version, v);
  }
  EXPECT_TRUE(fs::exists(path_ / "_delta_log" / (FormatVersion(2) + ".checkpoint.parquet")));
  auto reopened = Open().Snapshot();
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->version(), 2);
  EXPECT_TRUE(IsCatalogManaged((*reopened)->protocol()));
  EXPECT_EQ((*reopened)->metadata().configuration.at("io.unitycatalog.tableId"), table_id_);

  StatusOr<CommitOutcome> again = Open().Create(m);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  StatusOr<Table> other = OpenTable("uc://main.sales.other", Options());
  ASSERT_TRUE(other.ok());
  Metadata clash = m;
  clash.configuration["delta.enableInCommitTimestamps"] = "false";
  StatusOr<CommitOutcome> refused = other->Create(clash);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("delta.enableInCommitTimestamps"));
}

// The CLI on the same table: create, commit and snapshot by name, the
// token from DELTACOMMIT_CATALOG_TOKEN (kept out of the process list).
TEST_F(CatalogTableTest, TheCliCreatesCommitsAndReadsByName) {
  const std::string url = "http://127.0.0.1:" + std::to_string(serve_->port());
  ASSERT_EQ(setenv("DELTACOMMIT_CATALOG_TOKEN", kToken, 1), 0);
  const std::string name = "uc://main.sales.cli_events";
  CliResult created = RunCli({"create", name, "--catalog-url", url, "--schema", "id:long"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  CliResult committed = RunCli({"commit", name, "--catalog-url", url, "--actions", "-"},
                               AddLine("part-1.parquet") + "\n");
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
  CliResult snapshot = RunCli({"snapshot", name, "--catalog-url", url, "--json"});
  ASSERT_EQ(snapshot.exit_code, 0) << snapshot.err;
  const json shown = json::parse(snapshot.out, nullptr, false);
  EXPECT_EQ(shown.value("version", -1), 1) << snapshot.out;
  // Without a URL the CLI says which option is missing.
  CliResult no_url = RunCli({"snapshot", name});
  EXPECT_NE(no_url.exit_code, 0);
  EXPECT_THAT(no_url.err, HasSubstr("--catalog-url is required"));
  unsetenv("DELTACOMMIT_CATALOG_TOKEN");
}

// append and delete on a catalog-managed table with column mapping and
// deletion vectors: data files and the DV file land in the table's
// location, each commit is ratified by the catalog, and query reads the
// rows left.
TEST_F(CatalogTableTest, TheCliAppendsAndDeletesWithDeletionVectorsThroughTheCatalog) {
  const std::string url = "http://127.0.0.1:" + std::to_string(serve_->port());
  ASSERT_EQ(setenv("DELTACOMMIT_CATALOG_TOKEN", kToken, 1), 0);
  const std::string name = "uc://main.sales.dv_events";
  auto cli = [&](std::vector<std::string> args, const std::string& input = {}) {
    args.insert(args.end(), {"--catalog-url", url});
    return RunCli(args, input);
  };
  CliResult created = cli({"create", name, "--schema", "id:long,p:string", "--partition-by", "p",
                           "--property", "delta.enableDeletionVectors=true", "--property",
                           "delta.columnMapping.mode=name"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const fs::path csv = fs::temp_directory_path() / ("dc-uc-rows-" + NewUuid() + ".csv");
  std::ofstream(csv) << "id,p\n1,a\n2,a\n3,a\n4,b\n";
  CliResult appended = cli({"append", name, csv.string(), "--quiet"});
  fs::remove(csv);
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  CliResult marked = cli({"delete", name, "--where", "id = 2", "--json"});
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  EXPECT_EQ(json::parse(marked.out)["files_with_deletion_vectors"], 1) << marked.out;
  CliResult removed = cli({"delete", name, "--where", "p = 'b'", "--json"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(json::parse(removed.out)["files_removed"], 1) << removed.out;
  CliResult rows = cli({"query", name, "SELECT string_agg(id::VARCHAR, ',' ORDER BY id) AS ids FROM t",
                        "--csv"});
  EXPECT_EQ(rows.out, "ids\n\"1,3\"\n") << rows.err;
  CliResult snapshot = cli({"snapshot", name, "--json"});
  ASSERT_EQ(snapshot.exit_code, 0) << snapshot.err;
  EXPECT_EQ(json::parse(snapshot.out)["version"], 3) << snapshot.out;
  unsetenv("DELTACOMMIT_CATALOG_TOKEN");
}

// The catalog log store over the real client, with faults between them:
// a commit whose reply is lost after the catalog ratified it is found again
// by the transaction (once, not twice); one that never reached the catalog
// is retried at the same version; a refused one leaves no staged file.
TEST_F(CatalogTableTest, LostRepliesAndRefusalsOfTheCatalogLeaveEachCommitOnce) {
  CreateManagedTable();
  auto http = aws::NewCurlHttpClient();
  auto client = unity_client::DeltaRestCatalogClient::Create(
      {"http://127.0.0.1:" + std::to_string(serve_->port()), kToken, {}}, *http, RealSleeper());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  FaultInjectingCatalogClient faulty(**client);
  PosixObjectStore store(path_.string());
  const CatalogTableName name{"main", "sales", "orders"};
  CatalogLogStore log(store, faulty, name, table_id_);
  auto commit = [&](const std::string& file) -> StatusOr<CommitOutcome> {
    DC_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> read, LoadSnapshot(log, {}));
    TransactionOptions options;
    options.table_uri = "file://" + path_.string();
    Transaction txn(log, read, options, SystemClock(), RealSleeper());
    txn.AddAction(File(file));
    return txn.Commit();
  };

  faulty.DropReplyOnNthCall(CatalogClientOp::kCommit, 1);
  StatusOr<CommitOutcome> lost = commit("lost-reply");
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_EQ(lost->result, CommitResult::kCommitted);
  EXPECT_EQ(lost->version, 1);
  // Never sent: a plain failure (nothing committed, the staged file gone);
  // the caller's retry lands.
  faulty.FailNthCall(CatalogClientOp::kCommit, 1, UnavailableError("catalog unreachable"));
  StatusOr<CommitOutcome> unsent = commit("never-sent");
  EXPECT_EQ(unsent.status().code(), StatusCode::kUnavailable) << unsent.status().ToString();
  EXPECT_EQ(Load()["latest-table-version"], 1);
  StatusOr<CommitOutcome> retried = commit("retried");
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->version, 2);

  const json loaded = Load();
  EXPECT_EQ(loaded["latest-table-version"], 2);
  auto snapshot = LoadSnapshot(log, {});
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ((*snapshot)->active_files().size(), 2u) << "each commit once";
  EXPECT_TRUE(Published(2));

  // A commit the catalog refuses (another table id: dropped and made
  // again) fails, and its staged file is removed again.
  CatalogLogStore stale(store, faulty, name, "00000000-0000-0000-0000-000000000000");
  Status refused = stale.Write(3, "{\"commitInfo\":{\"timestamp\":1}}\n");
  EXPECT_FALSE(refused.ok());
  // Staged files left: the lost reply's (ratified, kept) and the retried
  // commit's; not the unsent one's nor the refused one's.
  std::vector<std::string> staged;
  for (const auto& entry : fs::directory_iterator(path_ / "_delta_log" / "_staged_commits")) {
    staged.push_back(entry.path().filename().string().substr(0, 20));
  }
  std::sort(staged.begin(), staged.end());
  EXPECT_EQ(staged, (std::vector<std::string>{FormatVersion(1), FormatVersion(2)}));
  EXPECT_EQ(Load()["latest-table-version"], 2);
}

}  // namespace
}  // namespace deltacommit::testing
