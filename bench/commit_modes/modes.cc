#include "commit_modes/modes.h"

#include <algorithm>
#include <cstdlib>

#include "cli_runner.h"
#include "common/test_servers.h"
#include "deltacommit/log_path.h"
#include "service/config/auth.h"
#include "service_load/serve_setup.h"

namespace deltacommit::bench {
namespace {

constexpr const char* kAllModes[] = {"local", "s3-conditional", "s3-dynamodb",
                                     "service", "coordinated"};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

bool Wanted(const std::vector<std::string>& wanted, const std::string& mode) {
  return wanted.empty() ||
         std::find(wanted.begin(), wanted.end(), mode) != wanted.end();
}

Status StartService(const std::string& prefix, ModeSetup& setup,
                    std::string& token) {
  token = "bench-" + NewUuid();
  const ServeSettings settings{.workers = 4,
                               .max_connections = 512,
                               .log_level = "warn",
                               .state_path = "state.db",
                               .table_prefix = prefix,
                               .token_sha256 = service::HashToken(token),
                               .extra = {}};
  DC_ASSIGN_OR_RETURN(
      setup.serve, testing::ServeProcess::Start(ServeConfig(settings), "warn"));
  return OkStatus();
}

}  // namespace

StatusOr<ModeSetup> SetUpModes(const std::vector<std::string>& wanted,
                               const std::string& run_id,
                               const std::string& local_dir) {
  ModeSetup setup;
  if (Wanted(wanted, "local"))
    setup.targets.push_back({"local", local_dir, {}});
  const auto s3_down = testing::S3Unavailable();
  const std::string s3_root = "s3://" + Env("DELTACOMMIT_TEST_BUCKET") +
                              "/bench/commit-modes-" + run_id;
  std::string token;  // the service's, for both modes that use it
  for (const char* mode : kAllModes) {
    const std::string m = mode;
    if (m == "local" || !Wanted(wanted, m)) continue;
    if (s3_down) {
      setup.skipped.push_back(m + ": " + *s3_down);
      continue;
    }
    if (m == "s3-conditional") {
      setup.targets.push_back({m, s3_root, {"--log-store", m}});
    } else if (m == "s3-dynamodb") {
      if (auto ddb_down = testing::DynamoDbUnavailable()) {
        setup.skipped.push_back(m + ": " + *ddb_down);
        continue;
      }
      const std::string ddb_table = "dl_bench_" + run_id.substr(0, 8);
      testing::CliResult r = testing::RunCli(
          {"dynamodb", "create-table", "--table-name", ddb_table});
      if (r.exit_code != 0) {
        return UnavailableError("deltacommit dynamodb create-table " +
                                ddb_table + ": " + r.err);
      }
      setup.targets.push_back(
          {m,
           s3_root,
           {"--log-store", m, "--storage-option",
            "io.delta.storage.S3DynamoDBLogStore.ddb.tableName=" + ddb_table}});
    } else {
      if (setup.serve == nullptr)
        DC_RETURN_IF_ERROR(StartService(s3_root, setup, token));
      setup.targets.push_back(
          {m,
           s3_root,
           {"--log-store", m, "--service-url", setup.serve->Url(""),
            "--service-token", token}});
    }
  }
  return setup;
}

StatusOr<std::string> CreateTable(const ModeTarget& target,
                                  const std::string& name) {
  const std::string uri = target.table_root + "/" + name;
  std::vector<std::string> args = {"create", uri, "--schema", "id:long"};
  args.insert(args.end(), target.options.begin(), target.options.end());
  testing::CliResult r = testing::RunCli(args);
  if (r.exit_code != 0) {
    return UnavailableError("deltacommit create " + uri + " (" + target.mode +
                            "): " + r.err);
  }
  return uri;
}

}  // namespace deltacommit::bench
