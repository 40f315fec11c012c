// The fixture of the s3-dynamodb fault tests on the real servers (Ceph RGW +
// dynalite): a fresh Delta table per scenario, writers that are separate
// S3DynamoDbLogStore + Transaction instances (as separate processes would
// be), two ways to reach DynamoDB (through a FaultInjectingHttpClient, and
// clean, for "another process"), and the invariants every scenario ends
// with.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/test_servers.h"
#include "deltacommit/aws/testing/fault_http_client.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "deltacommit/step_hooks.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/transaction.h"

namespace deltacommit::testing {

// One writer process: its own view of the log (with its step hooks) and a
// transaction, on the snapshot it loaded, that appends `path` under app
// txn (app, 1) so that a restarted writer can tell whether it landed.
struct Writer {
  std::unique_ptr<S3DynamoDbLogStore> log;
  std::unique_ptr<Transaction> txn;
};

// A commit a writer was told succeeded: `path` must be at `version`.
struct Acknowledged {
  Version version = -1;
  std::string path;
};

class S3DynamoDbFaultTest : public ::testing::Test {
 protected:
  void SetUp() override;

  // A new table (new S3 prefix, so a new tablePath) at version 0.
  void NewTable();

  // The log as a writer sees it, reaching DynamoDB through `table`.
  std::unique_ptr<S3DynamoDbLogStore> Log(CoordinationTable& table, StepHooks* hooks = nullptr);
  StatusOr<Writer> StartWriter(CoordinationTable& table, StepHooks* hooks, const std::string& app,
                               const std::string& path);
  StatusOr<CommitOutcome> Append(CoordinationTable& table, StepHooks* hooks, const std::string& app,
                                 const std::string& path);
  // Whether app txn `app` is in the latest snapshot (read without faults).
  bool Landed(const std::string& app);
  // The entry of `version` read without faults (nullopt when absent).
  std::optional<ExternalCommitEntry> Entry(Version version);

  // The invariants of every scenario: versions contiguous from 0 and every
  // commit parses (CheckLog, ReadCommit: no torn N.json); each version
  // written once: N.json holds exactly the temp object its entry decided;
  // every entry complete with an expireTime, none beyond the log; each of
  // `paths` added exactly once, and nothing else; every acknowledged commit
  // at its version.
  void ExpectInvariants(const std::vector<std::string>& paths,
                        const std::vector<Acknowledged>& acknowledged);

  // What the DynamoDB client was told to sleep between attempts.
  RecordingSleeper ddb_sleeper_;
  RecordingSleeper txn_sleeper_;
  aws::RetryPolicy retry_;
  std::unique_ptr<aws::HttpClient> ddb_curl_;
  std::unique_ptr<aws::CredentialsProvider> ddb_credentials_;
  // Requests of `faulty_` pass through here; `clean_` sends straight.
  std::unique_ptr<aws::testing::FaultInjectingHttpClient> ddb_http_;
  std::unique_ptr<dynamodb::DynamoDbClient> faulty_client_;
  std::unique_ptr<dynamodb::DynamoDbClient> clean_client_;
  std::unique_ptr<dynamodb::DynamoDbCoordinationTable> faulty_;
  std::unique_ptr<dynamodb::DynamoDbCoordinationTable> clean_;
  std::string ddb_table_;
  S3TestStore s3_;
  std::string table_uri_;  // s3a://bucket/prefix: Spark's spelling, the tablePath
};

// Conditional PutItem of an entry: the commit point (step 3).
aws::testing::HttpMatch CommitPointPut();
// PutItem marking an entry complete (step 5 and recovery).
aws::testing::HttpMatch MarkCompletePut();

}  // namespace deltacommit::testing
