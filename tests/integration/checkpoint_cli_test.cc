// `deltacommit checkpoint` and automatic checkpoints through the real CLI,
// on a local table and on S3 (Ceph RGW): the checkpoint file and
// _last_checkpoint appear, later reads use them, an existing checkpoint is
// never replaced, and a failing automatic checkpoint never fails the commit.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/cli_runner.h"
#include "common/test_servers.h"
#include "contract/temp_dir.h"
#include "deltacommit/log_path.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;
using testing::AddLine;
using testing::CliResult;
using testing::RunCli;

void Commit(const std::string& table, int n) {
  CliResult r = RunCli({"commit", table, "--actions", "-"}, AddLine("f" + std::to_string(n) + ".parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

nlohmann::json SnapshotJson(const std::string& table) {
  CliResult r = RunCli({"snapshot", table, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

class CheckpointCliTest : public ::testing::Test {
 protected:
  std::string Log(const std::string& key) const { return dir_.path() + "/" + key; }
  TempDir dir_;
  std::string table_ = dir_.path();
};

// Whether the CLI run with `args` loaded DuckDB's library (the dynamic
// loader's own account of the files it opened, LD_DEBUG=files).
bool LoadsDuckDb(const std::vector<std::string>& args, const std::string& stdin_data = {}) {
  setenv("LD_DEBUG", "files", 1);
  CliResult r = RunCli(args, stdin_data);
  unsetenv("LD_DEBUG");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("file="), std::string::npos) << "the loader reported nothing";
  return r.err.find("libduckdb.so") != std::string::npos;
}

// DuckDB is loaded on first use (src/adapters/parquet/duckdb_api.h): the
// commands that never read or write Parquet do not pay for it.
TEST_F(CheckpointCliTest, OnlyCommandsThatTouchParquetLoadDuckDb) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long"}).exit_code, 0);
  EXPECT_FALSE(LoadsDuckDb({"--version"}));
  EXPECT_FALSE(LoadsDuckDb({"commit", table_, "--actions", "-"}, AddLine("f1.parquet")));
  EXPECT_FALSE(LoadsDuckDb({"snapshot", table_}));
  EXPECT_FALSE(LoadsDuckDb({"history", table_}));
  EXPECT_TRUE(LoadsDuckDb({"checkpoint", table_}));
  EXPECT_TRUE(LoadsDuckDb({"snapshot", table_})) << "it reads the checkpoint";
}

// On a machine without DuckDB (here: a copy of the CLI in which every
// mention of DuckDB's folder, its RUNPATH and the loader's last resort,
// names a folder that does not exist), the commands that need Parquet fail
// with a clear error, and the others work.
TEST_F(CheckpointCliTest, WithoutDuckDbOnlyTheCommandsThatNeedItFailAndSayWhy) {
  const std::string folder = DC_DUCKDB_LIBRARY_DIR;
  std::string binary = testing::Slurp(testing::CliPath());
  const std::string elsewhere = std::string(folder.size(), 'x').replace(0, 1, "/");
  int mentions = 0;
  for (size_t at = binary.find(folder); at != std::string::npos; at = binary.find(folder, at)) {
    binary.replace(at, folder.size(), elsewhere);
    ++mentions;
  }
  ASSERT_GE(mentions, 2) << "the CLI names " << folder << " in its RUNPATH and its loader";
  const std::string cli = dir_.path() + "/deltacommit-without-duckdb";
  {
    std::ofstream out(cli, std::ios::binary);
    out << binary;
  }
  fs::permissions(cli, fs::perms::owner_all);
  const std::string table = dir_.path() + "/t";
  ASSERT_EQ(testing::RunProgram(cli, {"create", table, "--schema", "id:long"}).exit_code, 0);
  CliResult query = testing::RunProgram(cli, {"query", table, "select count(*) from t"});
  EXPECT_EQ(query.exit_code, 1);
  EXPECT_NE(query.err.find("DuckDB's library libduckdb.so (needed to read and write Parquet) "
                           "cannot be loaded"),
            std::string::npos)
      << query.err;
  CliResult commit =
      testing::RunProgram(cli, {"commit", table, "--actions", "-"}, AddLine("a.parquet"));
  EXPECT_EQ(commit.exit_code, 0) << commit.err;
  CliResult checkpoint = testing::RunProgram(cli, {"checkpoint", table});
  EXPECT_EQ(checkpoint.exit_code, 1);
  EXPECT_NE(checkpoint.err.find("libduckdb.so"), std::string::npos) << checkpoint.err;
  EXPECT_FALSE(fs::exists(table + "/" + ClassicCheckpointPath(1)));
  CliResult snapshot = testing::RunProgram(cli, {"snapshot", table, "--json"});
  EXPECT_EQ(snapshot.exit_code, 0) << snapshot.err;
  EXPECT_EQ(nlohmann::json::parse(snapshot.out, nullptr, false)["numFiles"], 1);
}

TEST_F(CheckpointCliTest, EveryTenthCommitWritesACheckpointThatLaterReadsUse) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long"}).exit_code, 0);
  for (int i = 1; i <= 11; ++i) Commit(table_, i);
  EXPECT_TRUE(fs::exists(Log(ClassicCheckpointPath(10))));
  for (Version v : {1, 5, 9, 11}) EXPECT_FALSE(fs::exists(Log(ClassicCheckpointPath(v)))) << v;
  auto last = nlohmann::json::parse(testing::Slurp(Log(LastCheckpointPath())));
  EXPECT_EQ(last["version"], 10);
  EXPECT_EQ(last["numOfAddFiles"], 10);
  EXPECT_EQ(last["size"], 12);  // protocol, metaData, 10 adds
  EXPECT_EQ(last["sizeInBytes"], fs::file_size(Log(ClassicCheckpointPath(10))));
  // Only the checkpoint still knows versions 0..9.
  for (Version v = 0; v < 10; ++v) fs::remove(Log(CommitPath(v)));
  auto snapshot = SnapshotJson(table_);
  EXPECT_EQ(snapshot["version"], 11);
  EXPECT_EQ(snapshot["numFiles"], 11);
}

TEST_F(CheckpointCliTest, IntervalComesFromTheTableProperty) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long", "--property",
                    "delta.checkpointInterval=2"}).exit_code, 0);
  for (int i = 1; i <= 3; ++i) Commit(table_, i);
  EXPECT_TRUE(fs::exists(Log(ClassicCheckpointPath(2))));
  EXPECT_FALSE(fs::exists(Log(ClassicCheckpointPath(1))));
  EXPECT_FALSE(fs::exists(Log(ClassicCheckpointPath(3))));
}

TEST_F(CheckpointCliTest, CheckpointCommandWritesOnceAndNeverReplaces) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long"}).exit_code, 0);
  for (int i = 1; i <= 3; ++i) Commit(table_, i);
  CliResult r = RunCli({"checkpoint", table_, "--version", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["path"], ClassicCheckpointPath(2));
  EXPECT_EQ(j["numOfAddFiles"], 2);
  const auto before = testing::Slurp(Log(ClassicCheckpointPath(2)));
  r = RunCli({"checkpoint", table_, "--version", "2"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("00000000000000000002.checkpoint.parquet already exists"),
            std::string::npos) << r.err;
  EXPECT_EQ(testing::Slurp(Log(ClassicCheckpointPath(2))), before);
  r = RunCli({"checkpoint", table_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("at version 3"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(testing::Slurp(Log(LastCheckpointPath())))["version"], 3);
}

TEST_F(CheckpointCliTest, AFailedAutomaticCheckpointDoesNotFailTheCommit) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long", "--property",
                    "delta.checkpointInterval=2"}).exit_code, 0);
  Commit(table_, 1);
  // A corrupt checkpoint at version 2: the commit of 2 reads version 1, but
  // the checkpoint after it must load version 2 through that file and fails.
  std::ofstream(Log(ClassicCheckpointPath(2))) << "not parquet";
  CliResult r = RunCli({"commit", table_, "--actions", "-", "--read-version", "1"},
                       AddLine("f2.parquet"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("committed version 2"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: version 2 is committed, but its automatic checkpoint failed"),
            std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(Log(CommitPath(2))));
}

TEST_F(CheckpointCliTest, PartSizeWritesAMultiPartCheckpointThatLaterReadsUse) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long"}).exit_code, 0);
  for (int i = 1; i <= 5; ++i) Commit(table_, i);
  CliResult bad = RunCli({"checkpoint", table_, "--part-size", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--part-size 0: must be at least 1"), std::string::npos) << bad.err;
  CliResult r = RunCli({"checkpoint", table_, "--part-size", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["parts"], 3);  // 5 adds in parts of 2
  EXPECT_EQ(j["path"], MultiPartCheckpointPath(5, 1, 3));
  for (int32_t i = 1; i <= 3; ++i) EXPECT_TRUE(fs::exists(Log(MultiPartCheckpointPath(5, i, 3))));
  EXPECT_FALSE(fs::exists(Log(ClassicCheckpointPath(5))));
  auto last = nlohmann::json::parse(testing::Slurp(Log(LastCheckpointPath())));
  EXPECT_EQ(last["parts"], 3);
  EXPECT_EQ(last["size"], 7);  // protocol, metaData, 5 adds
  for (Version v = 0; v <= 5; ++v) fs::remove(Log(CommitPath(v)));
  auto snapshot = SnapshotJson(table_);
  EXPECT_EQ(snapshot["version"], 5);
  EXPECT_EQ(snapshot["numFiles"], 5);
}

// A retention period that does not parse: no checkpoint (rather than one
// guessing which tombstones VACUUM still needs), and commits still succeed.
TEST_F(CheckpointCliTest, ABadRetentionPropertyRefusesTheCheckpointNotTheCommit) {
  ASSERT_EQ(RunCli({"create", table_, "--schema", "id:long", "--property",
                    "delta.deletedFileRetentionDuration=1 month", "--property",
                    "delta.checkpointInterval=1"}).exit_code, 0);
  CliResult commit = RunCli({"commit", table_, "--actions", "-"}, AddLine("f1.parquet"));
  EXPECT_EQ(commit.exit_code, 0) << commit.err;
  EXPECT_NE(commit.err.find("automatic checkpoint failed"), std::string::npos) << commit.err;
  CliResult r = RunCli({"checkpoint", table_});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("delta.deletedFileRetentionDuration: interval \"1 month\""),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Log(ClassicCheckpointPath(1))));
  EXPECT_FALSE(fs::exists(Log(LastCheckpointPath())));
}

TEST(CheckpointCliS3Test, CheckpointsOnS3AreWrittenAndRead) {
  DC_REQUIRE_S3();
  testing::S3TestStore s3 = testing::NewS3TestStore("checkpoint-cli");
  ASSERT_EQ(RunCli({"create", s3.uri, "--schema", "id:long", "--property",
                    "delta.checkpointInterval=2"}).exit_code, 0);
  for (int i = 1; i <= 3; ++i) Commit(s3.uri, i);
  EXPECT_TRUE(s3.store->Head(ClassicCheckpointPath(2)).ok());
  CliResult r = RunCli({"checkpoint", s3.uri});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto last = s3.store->Get(LastCheckpointPath());
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(nlohmann::json::parse(*last)["version"], 3);
  for (Version v = 0; v <= 3; ++v) ASSERT_TRUE(s3.store->Delete(CommitPath(v)).ok());
  auto snapshot = SnapshotJson(s3.uri);
  EXPECT_EQ(snapshot["version"], 3);
  EXPECT_EQ(snapshot["numFiles"], 3);
}

}  // namespace
}  // namespace deltacommit
