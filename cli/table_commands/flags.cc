#include "table_commands/flags.h"

#include <cstdlib>
#include <string_view>

#include "deltacommit/metering.h"

namespace deltacommit::cli {

void AddTableOptions(CLI::App* command, TableFlags* o) {
  command->add_option("--log-store", o->log_store,
                      "Commit mode: local (local tables), s3-conditional (default for s3://), "
                      "s3-dynamodb, service, coordinated (through the commit service), "
                      "unity-catalog (uc:// tables, the default there)");
  command->add_option("--endpoint-url", o->endpoint_url,
                      "S3 endpoint (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, profile, AWS)");
  command->add_option("--region", o->region, "AWS region (else AWS_REGION, AWS_DEFAULT_REGION)");
  command->add_option("--profile", o->profile, "AWS profile (else AWS_PROFILE, default)");
  command->add_option("--storage-option", o->storage_options,
                      "delta-rs storage option KEY=VALUE (repeatable)");
  command->add_flag("--create-dynamodb-table", o->create_dynamodb_table,
                    "s3-dynamodb: create the DynamoDB table if it is missing (storage option "
                    "deltacommit.dynamodb.autoCreate=true)");
  command->add_option("--service-url", o->service_url,
                      "service/coordinated: the commit service, http(s)://host:port (else "
                      "DELTACOMMIT_SERVICE_URL)");
  command->add_option("--service-token", o->service_token,
                      "service/coordinated: bearer token (else "
                      "DELTACOMMIT_SERVICE_TOKEN, which "
                      "keeps it out of the process list)");
  command->add_option("--service-endpoint", o->service_endpoint,
                      "service/coordinated: an S3 endpoint name on the service's allowlist");
  command->add_option("--catalog-url", o->catalog_url,
                      "uc://catalog.schema.table: the catalog (Unity Catalog's Delta REST API, "
                      "e.g. deltacommit serve), http(s)://host:port (else "
                      "DELTACOMMIT_CATALOG_URL)");
  command->add_option("--catalog-token", o->catalog_token,
                      "uc:// tables: the catalog's bearer token (else DELTACOMMIT_CATALOG_TOKEN, "
                      "which keeps it out of the process list)");
  command->add_flag("--catalog-send-credentials", o->catalog_send_credentials,
                    "uc:// tables: send the catalog this writer's own temporary S3 credentials, "
                    "for a catalog that passes them through instead of vending its own (else "
                    "DELTACOMMIT_CATALOG_SEND_CREDENTIALS=true)");
}

namespace {

StatusOr<std::map<std::string, std::string>> SplitStorageOptions(const TableFlags& o) {
  std::map<std::string, std::string> out;
  for (const std::string& kv : o.storage_options) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("--storage-option \"" + kv + "\": expected KEY=VALUE");
    }
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

}  // namespace

StatusOr<std::map<std::string, std::string>> ParseStorageOptions(const TableFlags& o) {
  DC_ASSIGN_OR_RETURN(auto split, SplitStorageOptions(o));
  return CheckStorageOptions(split);
}

CallMeter* CliMeter() {
  static CallMeter* const meter = [] {
    const char* env = std::getenv("DELTACOMMIT_METER");
    return env != nullptr && std::string_view(env) == "1" ? new CallMeter() : nullptr;
  }();
  return meter;
}

StatusOr<TableOptions> ToTableOptions(const TableFlags& o) {
  TableOptions options;
  if (!o.log_store.empty()) {
    options.mode = ParseCommitMode(o.log_store);
    if (!options.mode) {
      return InvalidArgumentError("--log-store \"" + o.log_store +
                                  "\": not a commit mode (local, s3-conditional, s3-dynamodb, "
                                  "service, coordinated, unity-catalog)");
    }
  }
  options.endpoint_url = o.endpoint_url;
  options.region = o.region;
  options.profile = o.profile;
  DC_ASSIGN_OR_RETURN(options.storage_options, SplitStorageOptions(o));
  options.create_dynamodb_table = o.create_dynamodb_table;
  options.service_url = o.service_url;
  options.service_token = o.service_token;
  options.service_endpoint = o.service_endpoint;
  options.catalog_url = o.catalog_url;
  options.catalog_token = o.catalog_token;
  options.catalog_send_credentials = o.catalog_send_credentials;
  options.meter = CliMeter();
  options.skip_setup = o.skip_setup;
  return options;
}

StatusOr<Table> OpenCliTable(const std::string& table, const TableFlags& flags) {
  DC_ASSIGN_OR_RETURN(TableOptions options, ToTableOptions(flags));
  return OpenTable(table, std::move(options));
}

}  // namespace deltacommit::cli
