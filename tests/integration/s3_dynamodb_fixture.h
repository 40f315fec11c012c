// A fixture for suites that drive the CLI in the s3-dynamodb mode on the
// real servers (Ceph RGW + dynalite): a fresh table prefix, spelt as Delta
// Spark spells it (s3a://), and a fresh DynamoDB table made by the CLI's
// create-table, with a client and coordination table to look behind it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/cli_runner.h"
#include "common/dynamodb_test_client.h"
#include "common/test_servers.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {

class S3DynamoDbCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DC_REQUIRE_S3();
    DC_REQUIRE_DYNAMODB();
    s3_ = NewS3TestStore("s3ddb-cli");
    table_uri_ = "s3a" + s3_.uri.substr(2);  // the tablePath key of every entry
    ddb_table_ = "dl_" + NewUuid().substr(0, 8);
    client_ = ddb_.emplace().client.get();
    coordination_ = std::make_unique<dynamodb::DynamoDbCoordinationTable>(*client_, ddb_table_);
    CliResult r = RunCli({"dynamodb", "create-table", "--table-name", ddb_table_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // The options that put a command on this fixture's DynamoDB table.
  std::vector<std::string> Options() const {
    return {"--log-store", "s3-dynamodb", "--storage-option",
            "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + ddb_table_};
  }

  // `args` + Options().
  CliResult Cli(std::vector<std::string> args, const std::string& input = {}) const {
    const std::vector<std::string> options = Options();
    args.insert(args.end(), options.begin(), options.end());
    return RunCli(args, input);
  }

  S3TestStore s3_;
  std::string table_uri_;
  std::string ddb_table_;
  std::optional<testing::DynamoDbTestClient> ddb_;  // after DC_REQUIRE_DYNAMODB
  dynamodb::DynamoDbClient* client_ = nullptr;
  std::unique_ptr<dynamodb::DynamoDbCoordinationTable> coordination_;
};

}  // namespace deltacommit::testing
