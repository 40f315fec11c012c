// `deltacommit dynamodb status` and `repair` on the real servers (Ceph RGW +
// dynalite): a healthy table; a commit left by a dead writer (temp object +
// incomplete entry) reported, repaired, then healthy; an incomplete entry
// whose temp object is gone reported as data loss and left alone; versions
// written around the lock; and the errors for tables that cannot be looked at.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "s3_dynamodb_fixture.h"

namespace deltacommit::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kNeedsRepair = 4;  // cli/shared/output.h kExitUnsound

class DynamoDbCliTest : public S3DynamoDbCliTest {
 protected:
  // `dynamodb <command> TABLE --json`, parsed; its exit code in `*exit_code`.
  nlohmann::json JsonOf(const std::string& command, int* exit_code) const {
    CliResult r = Cli({"dynamodb", command, table_uri_, "--json"});
    *exit_code = r.exit_code;
    auto json = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << command << " printed no JSON: " << r.out << r.err;
    return json;
  }

  void Create() {
    CliResult r = Cli({"create", table_uri_, "--schema", "id:long"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void Commit(const std::string& file) {
    CliResult r = Cli({"commit", table_uri_, "--actions", "-"}, AddLine(file));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // What a writer that died right after the commit point leaves: its temp
  // object (unless `with_temp` is false: it was lost since) and its entry,
  // incomplete.
  std::string LeaveDeadWritersCommit(Version version, bool with_temp) {
    const std::string temp = ".tmp/" + CommitFileName(version) + ".dead-" + NewUuid();
    if (with_temp) {
      EXPECT_TRUE(s3_.store->Put(std::string(kLogDir) + temp, AddLine("orphan")).ok());
    }
    EXPECT_TRUE(coordination_
                    ->PutIfAbsent({table_uri_, CommitFileName(version), temp, false, std::nullopt})
                    .ok());
    return temp;
  }
};

TEST_F(DynamoDbCliTest, HealthyTableIsOkAndRepairHasNothingToDo) {
  Create();
  Commit("a");
  Commit("b");
  int rc = -1;
  nlohmann::json status = JsonOf("status", &rc);
  EXPECT_EQ(rc, 0) << status.dump();
  EXPECT_EQ(status["tablePath"], table_uri_);
  EXPECT_EQ(status["dynamodb"]["table"], ddb_table_);
  EXPECT_EQ(status["dynamodb"]["status"], "ACTIVE");
  EXPECT_EQ(status["dynamodb"]["billingMode"], "PAY_PER_REQUEST");
  EXPECT_EQ(status["dynamodb"]["endpoint"], std::getenv("AWS_ENDPOINT_URL_DYNAMODB"));
  EXPECT_EQ(status["entries"], 3);
  EXPECT_EQ(status["latestCommit"], 2);
  EXPECT_EQ(status["latestEntry"]["fileName"], CommitFileName(2));
  EXPECT_EQ(status["latestEntry"]["complete"], true);
  EXPECT_EQ(status["logVsEntries"], "agree");
  EXPECT_TRUE(status["incompleteEntries"].empty());
  EXPECT_TRUE(status["problems"].empty());
  EXPECT_EQ(status["healthy"], true);
  // dynalite has no time to live: said loudly, but no reason to fail.
  if (status["dynamodb"]["timeToLive"]["status"] != "ENABLED") {
    ASSERT_EQ(status["warnings"].size(), 1u) << status.dump();
    EXPECT_THAT(status["warnings"][0].get<std::string>(),
                HasSubstr("complete entries never expire"));
  }

  CliResult text = Cli({"dynamodb", "status", table_uri_});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("tablePath " + table_uri_ + ": 3 entries, latest " +
                                  CommitFileName(2) + " (complete)"));
  EXPECT_THAT(text.out, HasSubstr("OK: healthy"));

  nlohmann::json repair = JsonOf("repair", &rc);
  EXPECT_EQ(rc, 0) << repair.dump();
  EXPECT_TRUE(repair["entries"].empty());
}

TEST_F(DynamoDbCliTest, DeadWritersCommitIsReportedThenRepaired) {
  Create();
  const std::string temp = LeaveDeadWritersCommit(1, /*with_temp=*/true);

  int rc = -1;
  nlohmann::json status = JsonOf("status", &rc);
  EXPECT_EQ(rc, kNeedsRepair) << status.dump();
  EXPECT_EQ(status["healthy"], false);
  EXPECT_EQ(status["logVsEntries"], "entries-ahead");
  EXPECT_EQ(status["latestCommit"], 0);
  ASSERT_EQ(status["incompleteEntries"].size(), 1u) << status.dump();
  const nlohmann::json& entry = status["incompleteEntries"][0];
  EXPECT_EQ(entry["fileName"], CommitFileName(1));
  EXPECT_EQ(entry["tempPath"], temp);
  EXPECT_EQ(entry["tempObjectExists"], true);
  EXPECT_EQ(entry["commitFileExists"], false);
  EXPECT_EQ(entry["recoverable"], true);
  ASSERT_EQ(status["problems"].size(), 1u);
  EXPECT_THAT(status["problems"][0].get<std::string>(), HasSubstr("awaiting recovery"));
  CliResult text = Cli({"dynamodb", "status", table_uri_});
  EXPECT_EQ(text.exit_code, kNeedsRepair);
  EXPECT_THAT(text.out, HasSubstr("NEEDS REPAIR: 1 problem(s)"));
  EXPECT_THAT(text.out, HasSubstr("deltacommit dynamodb repair " + table_uri_));
  EXPECT_FALSE(s3_.store->Head(CommitPath(1)).ok());  // status changed nothing

  nlohmann::json repair = JsonOf("repair", &rc);
  EXPECT_EQ(rc, 0) << repair.dump();
  ASSERT_EQ(repair["entries"].size(), 1u) << repair.dump();
  EXPECT_EQ(repair["entries"][0]["fileName"], CommitFileName(1));
  EXPECT_EQ(repair["entries"][0]["outcome"], "copied");
  EXPECT_EQ(s3_.store->Get(CommitPath(1)).value(), AddLine("orphan"));
  auto completed = coordination_->Get(table_uri_, CommitFileName(1));
  ASSERT_TRUE(completed.ok() && completed->has_value()) << completed.status().ToString();
  EXPECT_TRUE((*completed)->complete);
  EXPECT_TRUE((*completed)->expire_time.has_value());

  status = JsonOf("status", &rc);
  EXPECT_EQ(rc, 0) << status.dump();
  EXPECT_EQ(status["logVsEntries"], "agree");
  EXPECT_EQ(status["latestCommit"], 1);
  // Again: nothing left to do.
  repair = JsonOf("repair", &rc);
  EXPECT_EQ(rc, 0) << repair.dump();
  EXPECT_TRUE(repair["entries"].empty());
}

// Died after copying, before marking complete: only the mark is missing.
TEST_F(DynamoDbCliTest, EntryWhoseCommitFileIsThereIsOnlyMarkedComplete) {
  Create();
  const std::string temp = LeaveDeadWritersCommit(1, /*with_temp=*/true);
  ASSERT_TRUE(s3_.store->Put(CommitPath(1), AddLine("orphan")).ok());
  int rc = -1;
  nlohmann::json status = JsonOf("status", &rc);
  EXPECT_EQ(rc, kNeedsRepair) << status.dump();
  EXPECT_EQ(status["logVsEntries"], "agree");
  ASSERT_EQ(status["incompleteEntries"].size(), 1u);
  EXPECT_EQ(status["incompleteEntries"][0]["commitFileExists"], true);

  CliResult repair = Cli({"dynamodb", "repair", table_uri_});
  EXPECT_EQ(repair.exit_code, 0) << repair.out << repair.err;
  EXPECT_THAT(repair.out, HasSubstr(CommitFileName(1) + ": already-present"));
  EXPECT_THAT(repair.out, HasSubstr("1 recovered, 0 unrecoverable, 0 failed"));
  EXPECT_EQ(Cli({"dynamodb", "status", table_uri_}).exit_code, 0);
}

TEST_F(DynamoDbCliTest, EntryWithoutTempObjectOrCommitFileIsDataLossLeftAlone) {
  Create();
  const std::string temp = LeaveDeadWritersCommit(1, /*with_temp=*/false);
  int rc = -1;
  nlohmann::json status = JsonOf("status", &rc);
  EXPECT_EQ(rc, kNeedsRepair) << status.dump();
  ASSERT_EQ(status["incompleteEntries"].size(), 1u);
  EXPECT_EQ(status["incompleteEntries"][0]["recoverable"], false);
  ASSERT_EQ(status["problems"].size(), 1u);
  EXPECT_THAT(status["problems"][0].get<std::string>(), HasSubstr("(data loss)"));
  EXPECT_THAT(status["problems"][0].get<std::string>(), HasSubstr("aws dynamodb delete-item"));

  CliResult repair = Cli({"dynamodb", "repair", table_uri_});
  EXPECT_EQ(repair.exit_code, kNeedsRepair) << repair.out << repair.err;
  EXPECT_THAT(repair.out, HasSubstr(CommitFileName(1) + ": unrecoverable: DATA LOSS: its temp "
                                                        "object " + temp));
  EXPECT_THAT(repair.out, HasSubstr("0 recovered, 1 unrecoverable, 0 failed"));
  // Nothing invented: no commit file, the entry as it was.
  EXPECT_TRUE(s3_.store->Head(CommitPath(1)).status().IsNotFound());
  auto entry = coordination_->Get(table_uri_, CommitFileName(1));
  ASSERT_TRUE(entry.ok() && entry->has_value()) << entry.status().ToString();
  EXPECT_FALSE((*entry)->complete);
  CliResult status_text = Cli({"dynamodb", "status", table_uri_});
  EXPECT_EQ(status_text.exit_code, kNeedsRepair);
  EXPECT_THAT(status_text.out, ::testing::Not(HasSubstr("run `deltacommit dynamodb repair")));

  // As status says: the table is blocked until the entry is removed...
  EXPECT_NE(Cli({"snapshot", table_uri_}).exit_code, 0);
  ASSERT_TRUE(client_
                  ->DeleteItem({ddb_table_,
                                {{"tablePath", dynamodb::AttributeValue::String(table_uri_)},
                                 {"fileName", dynamodb::AttributeValue::String(CommitFileName(1))}},
                                {}})
                  .ok());
  // ... and then version 1 is free again.
  EXPECT_EQ(Cli({"dynamodb", "status", table_uri_}).exit_code, 0);
  CliResult next = Cli({"commit", table_uri_, "--actions", "-", "--json"}, AddLine("next"));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_THAT(next.out, HasSubstr("\"version\":1"));
}

// A writer without s3-dynamodb (here: s3-conditional) commits around the
// lock: a warning, not a repair.
TEST_F(DynamoDbCliTest, LogAheadOfTheEntriesIsAWarning) {
  Create();
  CliResult bypass = RunCli({"commit", table_uri_, "--actions", "-", "--log-store",
                             "s3-conditional"},
                            AddLine("around-the-lock"));
  ASSERT_EQ(bypass.exit_code, 0) << bypass.err;
  int rc = -1;
  nlohmann::json status = JsonOf("status", &rc);
  EXPECT_EQ(rc, 0) << status.dump();
  EXPECT_EQ(status["logVsEntries"], "log-ahead");
  EXPECT_EQ(status["latestCommit"], 1);
  EXPECT_EQ(status["latestEntry"]["fileName"], CommitFileName(0));
  EXPECT_THAT(status["warnings"].dump(),
              HasSubstr("version 1 has no entry: written without s3-dynamodb"));
}

TEST_F(DynamoDbCliTest, TablesThatCannotBeLookedAtAreClearErrors) {
  CliResult local = RunCli({"dynamodb", "status", "/tmp/not-s3"});
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_THAT(local.err, HasSubstr("not an S3 URI"));

  CliResult other_mode =
      RunCli({"dynamodb", "repair", table_uri_, "--log-store", "s3-conditional"});
  EXPECT_EQ(other_mode.exit_code, 2);
  EXPECT_THAT(other_mode.err, HasSubstr("--log-store \"s3-conditional\""));

  CliResult missing = RunCli({"dynamodb", "status", table_uri_, "--storage-option",
                              "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=no_such_table"});
  EXPECT_EQ(missing.exit_code, 5);
  EXPECT_THAT(missing.err, HasSubstr("deltacommit dynamodb create-table"));
}

}  // namespace
}  // namespace deltacommit::testing
