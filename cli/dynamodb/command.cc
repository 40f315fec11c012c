// `deltacommit dynamodb`: the s3-dynamodb lock table. Here create-table
// (Delta Spark's schema, with TTL on expireTime where the server has it);
// status and repair in dynamodb/status.cc and dynamodb/repair.cc.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/table/dynamodb_settings.h"
#include "dynamodb/subcommands.h"
#include "shared/output.h"
#include "table_commands/flags.h"

namespace deltacommit::cli {
namespace {

struct CreateTableArgs {
  TableFlags table_flags;  // --storage-option carries Spark's ddb.* keys
  std::string table_name;
  bool no_ttl = false;
};

StatusOr<std::vector<std::string>> CreateTable(const CreateTableArgs& args) {
  DC_ASSIGN_OR_RETURN(auto storage, ParseStorageOptions(args.table_flags));
  DC_ASSIGN_OR_RETURN(DynamoDbSettings s, ResolveDynamoDbSettings(storage));
  if (!args.table_name.empty()) s.table_name = args.table_name;
  aws::CredentialsOptions creds;
  creds.explicit_credentials = s.credentials;
  if (!args.table_flags.profile.empty()) creds.profile = args.table_flags.profile;
  auto provider = aws::DefaultCredentialsChain(creds);
  auto http = aws::NewCurlHttpClient();
  dynamodb::DynamoDbClient client({s.service, {}}, *http, *provider);
  auto billing = s.provisioned ? dynamodb::DeltaLogTableBilling::Provisioned(s.rcu, s.wcu)
                               : dynamodb::DeltaLogTableBilling::PayPerRequest();
  return dynamodb::CreateDeltaLogTable(client, s.table_name, billing, !args.no_ttl);
}

int RunCreateTable(const CreateTableArgs& args) {
  auto warnings = CreateTable(args);
  if (!warnings.ok()) return ReportError(warnings.status());
  for (const std::string& w : *warnings) std::cerr << "warning: " << w << "\n";
  std::cout << "DynamoDB table ready for s3-dynamodb commits\n";
  return kExitOk;
}

}  // namespace

void RegisterDynamoDb(CLI::App& app, int* exit_code) {
  CLI::App* group = app.add_subcommand("dynamodb", "Manage the s3-dynamodb lock table");
  group->require_subcommand(1);
  auto args = std::make_shared<CreateTableArgs>();
  CLI::App* create = group->add_subcommand(
      "create-table",
      "Create the table (tablePath S HASH, fileName S RANGE) and enable TTL on expireTime");
  create->add_option("--table-name", args->table_name,
                     "Table name (else ddb.tableName, DELTA_DYNAMO_TABLE_NAME, delta_log)");
  create->add_flag("--no-ttl", args->no_ttl, "Do not enable TTL on expireTime");
  create->add_option("--storage-option", args->table_flags.storage_options,
                     "Delta Spark key (io.delta.storage.S3DynamoDBLogStore.ddb.region, "
                     "...provisionedThroughput.rcu) KEY=VALUE");
  create->add_option("--profile", args->table_flags.profile, "AWS profile");
  create->callback([args, exit_code] { *exit_code = RunCreateTable(*args); });
  RegisterDynamoDbStatus(*group, exit_code);
  RegisterDynamoDbRepair(*group, exit_code);
}

}  // namespace deltacommit::cli
