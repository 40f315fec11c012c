#include "s3_dynamodb_fault_fixture.h"

#include <map>
#include <utility>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/log_check.h"
#include "deltacommit/log_path.h"
#include "deltacommit/schema.h"

namespace deltacommit::testing {

using aws::testing::HttpMatch;

HttpMatch CommitPointPut() {
  return HttpMatch::Operation("PutItem").WithBody("attribute_not_exists(fileName)");
}

HttpMatch MarkCompletePut() {
  return HttpMatch::Operation("PutItem").WithBody(R"("complete":{"S":"true"})");
}

void S3DynamoDbFaultTest::SetUp() {
  DC_REQUIRE_S3();
  DC_REQUIRE_DYNAMODB();
  aws::AwsConfigOverrides overrides;
  overrides.allow_http = true;
  auto service = aws::ResolveServiceConfig("dynamodb", overrides);
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  ddb_curl_ = aws::NewCurlHttpClient();
  ddb_credentials_ = aws::DefaultCredentialsChain({});
  ddb_http_ = std::make_unique<aws::testing::FaultInjectingHttpClient>(*ddb_curl_);
  const dynamodb::DynamoDbClientConfig config{*service, retry_};
  faulty_client_ = std::make_unique<dynamodb::DynamoDbClient>(config, *ddb_http_, *ddb_credentials_,
                                                              SystemClock(), ddb_sleeper_);
  clean_client_ = std::make_unique<dynamodb::DynamoDbClient>(config, *ddb_curl_, *ddb_credentials_);
  ddb_table_ = "dl_fault_" + NewUuid().substr(0, 8);
  auto created = dynamodb::CreateDeltaLogTable(
      *clean_client_, ddb_table_, dynamodb::DeltaLogTableBilling::PayPerRequest(), false);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  faulty_ = std::make_unique<dynamodb::DynamoDbCoordinationTable>(*faulty_client_, ddb_table_);
  clean_ = std::make_unique<dynamodb::DynamoDbCoordinationTable>(*clean_client_, ddb_table_);
  NewTable();
}

void S3DynamoDbFaultTest::NewTable() {
  s3_ = NewS3TestStore("s3ddb-fault");
  table_uri_ = "s3a" + s3_.uri.substr(2);
  auto log = Log(*clean_);
  Transaction create(*log, nullptr, {}, SystemClock(), txn_sleeper_);
  create.AddAction(Protocol{});
  Metadata m;
  m.id = NewUuid();
  m.schema_string = SchemaStringFromArgument("id:long").value();
  create.AddAction(m);
  auto created = create.Commit();
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(created->version, 0);
}

std::unique_ptr<S3DynamoDbLogStore> S3DynamoDbFaultTest::Log(CoordinationTable& table,
                                                             StepHooks* hooks) {
  return std::make_unique<S3DynamoDbLogStore>(
      *s3_.store, table, S3DynamoDbOptions{table_uri_, 86400}, SystemClock(), hooks);
}

StatusOr<Writer> S3DynamoDbFaultTest::StartWriter(CoordinationTable& table, StepHooks* hooks,
                                                  const std::string& app, const std::string& path) {
  Writer w;
  w.log = Log(table, hooks);
  DC_ASSIGN_OR_RETURN(auto snapshot, LoadSnapshot(*w.log, {}));
  w.txn = std::make_unique<Transaction>(*w.log, snapshot, TransactionOptions{}, SystemClock(),
                                        txn_sleeper_);
  AddFile add;
  add.path = path;
  add.size = 1;
  w.txn->AddAction(add);
  w.txn->SetAppTransaction(app, 1);
  return w;
}

StatusOr<CommitOutcome> S3DynamoDbFaultTest::Append(CoordinationTable& table, StepHooks* hooks,
                                                    const std::string& app,
                                                    const std::string& path) {
  DC_ASSIGN_OR_RETURN(Writer w, StartWriter(table, hooks, app, path));
  return w.txn->Commit();
}

bool S3DynamoDbFaultTest::Landed(const std::string& app) {
  auto log = Log(*clean_);
  auto snapshot = LoadSnapshot(*log, {});
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  return snapshot.ok() && (*snapshot)->AppVersion(app).has_value();
}

std::optional<ExternalCommitEntry> S3DynamoDbFaultTest::Entry(Version version) {
  auto entry = clean_->Get(table_uri_, CommitFileName(version));
  EXPECT_TRUE(entry.ok()) << entry.status().ToString();
  return entry.ok() ? *entry : std::nullopt;
}

void S3DynamoDbFaultTest::ExpectInvariants(const std::vector<std::string>& paths,
                                           const std::vector<Acknowledged>& acknowledged) {
  auto log = Log(*clean_);
  auto report = CheckLog(*log);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->sound()) << (report->problems.empty() ? "" : report->problems.front());
  EXPECT_EQ(report->first_version, 0);
  const int64_t now_seconds = SystemClock().NowMillis() / 1000;
  std::map<std::string, int> adds;
  std::map<Version, std::vector<std::string>> added_at;
  for (Version v = 0; v <= report->latest_version; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    auto actions = ReadCommit(*log, v);
    ASSERT_TRUE(actions.ok()) << actions.status().ToString();
    for (const Action& a : *actions) {
      if (auto* add = std::get_if<AddFile>(&a)) {
        adds[add->path]++;
        added_at[v].push_back(add->path);
      }
    }
    std::optional<ExternalCommitEntry> entry = Entry(v);
    ASSERT_TRUE(entry.has_value()) << "no entry in " << ddb_table_;
    EXPECT_TRUE(entry->complete);
    EXPECT_GT(entry->expire_time.value_or(0), now_seconds);
    auto decided = s3_.store->Get(std::string(kLogDir) + entry->temp_path);
    ASSERT_TRUE(decided.ok()) << decided.status().ToString();
    auto committed = s3_.store->Get(CommitPath(v));
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_EQ(*committed, *decided) << CommitPath(v) << " is not what its entry decided";
  }
  auto latest = clean_->GetLatest(table_uri_);
  ASSERT_TRUE(latest.ok() && latest->has_value()) << latest.status().ToString();
  EXPECT_EQ((*latest)->file_name, CommitFileName(report->latest_version));
  EXPECT_EQ(adds.size(), paths.size());
  for (const std::string& p : paths) EXPECT_EQ(adds[p], 1) << p;
  for (const Acknowledged& ack : acknowledged) {
    EXPECT_EQ(added_at[ack.version], std::vector<std::string>{ack.path})
        << ack.path << " was acknowledged at version " << ack.version;
  }
}

}  // namespace deltacommit::testing
