// SqliteStateStore beyond the StateStore contract (which
// tests/contract/state_store_contract_test.cc runs): opening files that are
// not usable, the schema, damaged rows, locks.
#include "service/state/sqlite_state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"
#include "service/state/sqlite_schema.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kTable[] = "s3://bucket/t";

CommitRecord Record(Version version) {
  return {kTable,
          version,
          StagedCommitPath(version, NewUuid()),
          std::string(64, 'c'),
          10,
          1,
          2,
          false,
          {}};
}

class SqliteStateStoreTest : public ::testing::Test {
 protected:
  Status OpenStatus(const std::string& path) {
    return SqliteStateStore::Open({path}).status();
  }
  std::unique_ptr<SqliteDb> RawDb(const std::string& path) {
    auto db = SqliteDb::Open(path, 1000);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(db).value() : nullptr;
  }

  TempDir dir_;
  const std::string path_ = dir_.path() + "/state.db";
};

TEST_F(SqliteStateStoreTest, MissingDirectoryIsNotFoundNamingIt) {
  const std::string path = dir_.path() + "/no/such/dir/state.db";
  Status s = OpenStatus(path);
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr(path), HasSubstr("directory " + dir_.path() +
                                               "/no/such/dir does not exist")));
}

TEST_F(SqliteStateStoreTest, UnwritableDirectoryIsPermissionDenied) {
  // sysfs refuses new files even to root, so this holds whoever runs it.
  if (!std::filesystem::is_directory("/sys/kernel"))
    GTEST_SKIP() << "no /sys/kernel";
  const std::string path = "/sys/kernel/deltacommit-state.db";
  Status s = OpenStatus(path);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  EXPECT_THAT(s.message(), AllOf(HasSubstr(path), HasSubstr("write access")));
}

TEST_F(SqliteStateStoreTest, FileThatIsNotADatabaseIsRefused) {
  std::ofstream(path_) << "{\"not\": \"a database\"}\n"
                       << std::string(4096, 'x');
  Status s = OpenStatus(path_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr(path_), HasSubstr("file is not a database"),
                    HasSubstr("choose another path")));
}

TEST_F(SqliteStateStoreTest, DirectoryAsTheFileIsRefused) {
  Status s = OpenStatus(dir_.path());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr(dir_.path()), HasSubstr("Is a directory")));
}

TEST_F(SqliteStateStoreTest, DatabaseOfAnotherApplicationIsRefused) {
  ASSERT_TRUE(RawDb(path_)->Exec("CREATE TABLE accounts (id INTEGER)").ok());
  Status s = OpenStatus(path_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(s.message(), AllOf(HasSubstr(path_),
                                 HasSubstr("not a deltacommit state store")));

  ASSERT_TRUE(RawDb(path_)->Exec("PRAGMA application_id = 7").ok());
  s = OpenStatus(path_);
  EXPECT_THAT(s.message(), HasSubstr("its application_id is 7"));
}

TEST_F(SqliteStateStoreTest, NewerSchemaIsRefused) {
  ASSERT_TRUE(OpenStatus(path_).ok());
  ASSERT_TRUE(RawDb(path_)->Exec("PRAGMA user_version = 5").ok());
  Status s = OpenStatus(path_);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_THAT(
      s.message(),
      HasSubstr("schema version 5, newer than this deltacommit knows (4)"));
}

// What schema versions 3 and 4 added: dropping them turns a new file into
// one of schema 2 (or 3).
constexpr char kDropVersionFourTable[] = "DROP TABLE uc_metastore; ";
constexpr char kDropVersionThreeTables[] =
    "DROP TABLE uc_metastore; DROP TABLE uc_catalogs; DROP TABLE uc_schemas; "
    "DROP TABLE uc_tables; DROP TABLE uc_staging_tables; ";

// A file of schema 3 (the catalog without its metastore id) keeps its
// catalog and gains the metastore table.
TEST_F(SqliteStateStoreTest, AVersionThreeFileIsMigrated) {
  { ASSERT_TRUE(SqliteStateStore::Open({path_}).ok()); }
  ASSERT_TRUE(RawDb(path_)
                  ->Exec((std::string(kDropVersionFourTable) +
                          "INSERT INTO uc_catalogs (name, entry) VALUES ('kept', '{}'); "
                          "PRAGMA user_version = 3")
                             .c_str())
                  .ok());
  auto store = SqliteStateStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(RawDb(path_)->QueryText("PRAGMA user_version").value(), "4");
  EXPECT_EQ(RawDb(path_)->QueryText("SELECT count(*) FROM uc_catalogs").value(), "1");
  EXPECT_EQ(RawDb(path_)->QueryText("SELECT count(*) FROM uc_metastore").value(), "0");
}

// A file of schema 2 (the release before the catalog) keeps its commits and
// application txns and gains the catalog's tables.
TEST_F(SqliteStateStoreTest, AVersionTwoFileIsMigrated) {
  {
    auto store = SqliteStateStore::Open({path_});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    CommitRecord zero = Record(0);
    zero.app_txns = {{"app", 3}};
    ASSERT_TRUE((*store)->Ratify(zero, nullptr).ok());
  }
  ASSERT_TRUE(RawDb(path_)->Exec((std::string(kDropVersionThreeTables) +
                                   "PRAGMA user_version = 2")
                                      .c_str())
                  .ok());
  auto store = SqliteStateStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(RawDb(path_)->QueryText("PRAGMA user_version").value(), "4");
  EXPECT_EQ(RawDb(path_)->QueryText("SELECT count(*) FROM uc_tables").value(), "0");
  EXPECT_EQ((*store)->LatestAppTxn(kTable, "app").value(), (AppliedTxn{3, 0}));
}

// A file written by the release before that (schema 1, no app_txns) keeps
// its commits and gains the table appends need.
TEST_F(SqliteStateStoreTest, AVersionOneFileIsMigrated) {
  {
    auto store = SqliteStateStore::Open({path_});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Ratify(Record(0), nullptr).ok());
  }
  ASSERT_TRUE(RawDb(path_)->Exec((std::string(kDropVersionThreeTables) +
                                   "DROP TABLE app_txns; PRAGMA user_version = 1")
                                      .c_str())
                  .ok());
  auto store = SqliteStateStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(RawDb(path_)->QueryText("PRAGMA user_version").value(), "4");
  auto latest = (*store)->Latest(kTable);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->version, 0);
  CommitRecord one = Record(1);
  one.app_txns = {{"app", 4}};
  ASSERT_TRUE((*store)->Ratify(one, nullptr).ok());
  EXPECT_EQ((*store)->LatestAppTxn(kTable, "app").value(), (AppliedTxn{4, 1}));
}

TEST_F(SqliteStateStoreTest, NewFileIsWalWithTheSchemaVersion) {
  ASSERT_TRUE(OpenStatus(path_).ok());
  std::unique_ptr<SqliteDb> db = RawDb(path_);
  EXPECT_EQ(db->QueryText("PRAGMA journal_mode").value(),
            "wal");  // persists in the file
  EXPECT_EQ(db->QueryText("PRAGMA user_version").value(),
            std::to_string(kSqliteSchemaVersion));
  EXPECT_EQ(db->QueryText("PRAGMA application_id").value(),
            std::to_string(kSqliteApplicationId));
  auto store = SqliteStateStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), "SQLite file " + path_);
}

TEST_F(SqliteStateStoreTest, DamagedRowIsDataLossNamingTheFile) {
  auto store = SqliteStateStore::Open({path_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Ratify(Record(0), nullptr).ok());
  ASSERT_TRUE(
      RawDb(path_)->Exec("UPDATE commits SET content_sha256 = 'oops'").ok());
  auto got = (*store)->Get(kTable, 0);
  EXPECT_EQ(got.status().code(), StatusCode::kDataLoss)
      << got.status().ToString();
  EXPECT_THAT(got.status().message(),
              AllOf(HasSubstr(path_), HasSubstr("content_sha256 'oops'")));
}

TEST_F(SqliteStateStoreTest, LockHeldPastTheBusyTimeoutIsUnavailable) {
  auto store = SqliteStateStore::Open({path_, /*busy_timeout_ms=*/50});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::unique_ptr<SqliteDb> other = RawDb(path_);
  ASSERT_TRUE(other->Exec("BEGIN IMMEDIATE").ok());  // another process writing
  Status s = (*store)->Ratify(Record(0), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr(path_), HasSubstr("database is locked")));
  ASSERT_TRUE(other->Exec("ROLLBACK").ok());
  EXPECT_TRUE((*store)->Ratify(Record(0), nullptr).ok());
}

TEST_F(SqliteStateStoreTest, ProcessesOpeningANewFileAtOnceAllSucceed) {
  constexpr int kOpeners = 8;
  std::vector<Status> results(kOpeners);
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back(
        [&, i] { results[static_cast<size_t>(i)] = OpenStatus(path_); });
  }
  for (std::thread& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace deltacommit::service
