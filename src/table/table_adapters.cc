#include "table_access.h"

#include <array>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>

#include "adapters/aws/aws_config.h"
#include "adapters/dynamodb/dynamodb_coordination_table.h"
#include "adapters/parquet/duckdb_parquet_handler.h"
#include "adapters/posix/posix_object_store.h"
#include "adapters/s3/s3_conditional_log_store.h"
#include "adapters/s3/s3_object_store.h"
#include "deltacommit/commit_coordinator.h"
#include "dynamodb_lock_table.h"
#include "dynamodb_settings.h"
#include "logstore/object_store_log_store.h"
#include "logstore/s3_dynamodb_log_store.h"
#include "service_access.h"

namespace deltacommit::cli {
namespace {

// Opens DuckDB only when a snapshot really needs a checkpoint, so commands
// on tables without one do not pay for it.
class LazyParquetHandler : public ParquetHandler {
 public:
  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->ReadCheckpointActions(store, keys);
  }

  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<std::string>& action_lines) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->WriteCheckpoint(store, key, action_lines);
  }

 private:
  Status Open() {
    std::lock_guard<std::mutex> lock(mu_);
    if (handler_ == nullptr) {
      DC_ASSIGN_OR_RETURN(handler_, DuckDbParquetHandler::Create());
    }
    return OkStatus();
  }

  std::mutex mu_;
  std::unique_ptr<DuckDbParquetHandler> handler_;  // set once, under mu_
};

// Metering is opt-in so that normal use pays nothing for it.
std::unique_ptr<CallMeter> NewMeterIfRequested() {
  const char* env = std::getenv("DELTACOMMIT_METER");
  if (env == nullptr || std::string_view(env) != "1") return nullptr;
  return std::make_unique<CallMeter>();
}

bool IsS3Uri(const std::string& t) {
  return t.starts_with("s3://") || t.starts_with("s3a://") || t.starts_with("s3n://");
}

}  // namespace

namespace {

// Our own keys (lower-cased). Other namespaces belong to Spark, delta-rs or
// AWS and may carry keys this build does not read; a misspelt key of ours
// would silently do nothing, so it is refused.
constexpr std::string_view kOwnPrefix = "deltacommit.";
constexpr std::array<std::string_view, 4> kOwnKeys = {
    "deltacommit.dynamodb.autocreate", "deltacommit.service.assignversions",
    "deltacommit.sts.durationseconds", "deltacommit.sts.endpointurl"};

Status CheckOwnKey(const std::string& key) {
  if (!key.starts_with(kOwnPrefix)) return OkStatus();
  for (std::string_view known : kOwnKeys) {
    if (key == known) return OkStatus();
  }
  return InvalidArgumentError("--storage-option \"" + key +
                              "\": unknown deltacommit option (known: "
                              "deltacommit.dynamodb.autoCreate, deltacommit.service.assignVersions, "
                              "deltacommit.sts.durationSeconds, deltacommit.sts.endpointUrl)");
}

}  // namespace

StatusOr<std::map<std::string, std::string>> ParseStorageOptions(const TableOptions& o) {
  std::map<std::string, std::string> out;
  for (const std::string& kv : o.storage_options) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("--storage-option \"" + kv + "\": expected KEY=VALUE");
    }
    std::string key = kv.substr(0, eq);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    DC_RETURN_IF_ERROR(CheckOwnKey(key));
    out[key] = kv.substr(eq + 1);
  }
  return out;
}

namespace {

// The commit mode for an S3 table: --log-store, else delta-rs's options and
// environment, else s3-conditional.
StatusOr<std::string> S3Mode(const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(auto storage, ParseStorageOptions(o));
  std::string mode = o.log_store;
  const char* locking = std::getenv("AWS_S3_LOCKING_PROVIDER");
  if (mode.empty() && storage.count("aws_s3_locking_provider")) {
    mode = storage["aws_s3_locking_provider"] == "dynamodb" ? "s3-dynamodb" : "";
  }
  if (mode.empty() && locking != nullptr && std::string(locking) == "dynamodb") mode = "s3-dynamodb";
  // delta-rs's name for conditional PUTs: aws_conditional_put=etag.
  std::string conditional = storage.count("aws_conditional_put") ? storage["aws_conditional_put"] : "";
  if (const char* env = std::getenv("AWS_CONDITIONAL_PUT"); conditional.empty() && env != nullptr) {
    conditional = env;
  }
  if (!conditional.empty() && conditional != "etag") {
    return InvalidArgumentError("aws_conditional_put=\"" + conditional +
                                "\": only \"etag\" (PUT If-None-Match) is supported");
  }
  if (mode.empty()) mode = "s3-conditional";  // the default, and what etag asks for
  if (mode == "s3-conditional" || mode == "s3-dynamodb" || mode == "service" ||
      mode == "coordinated") {
    return mode;
  }
  return InvalidArgumentError("--log-store \"" + mode + "\": not a commit mode for s3:// tables "
                              "(s3-conditional, s3-dynamodb, service, coordinated)");
}

// The s3-dynamodb log store: entries keyed by the table URI as given (the
// scheme other writers use, e.g. s3a://), in DynamoDB with its own settings.
Status AttachDynamoDb(const std::string& table, const TableOptions& o, OpenTable& open) {
  DC_ASSIGN_OR_RETURN(auto storage, ParseStorageOptions(o));
  DC_ASSIGN_OR_RETURN(DynamoDbSettings settings, ResolveDynamoDbSettings(storage));
  settings.auto_create = settings.auto_create || o.create_dynamodb_table;
  aws::CredentialsOptions creds;
  if (!o.profile.empty()) creds.profile = o.profile;
  creds.explicit_credentials = settings.credentials;
  open.dynamodb_credentials = aws::DefaultCredentialsChain(creds);
  open.dynamodb = std::make_unique<dynamodb::DynamoDbClient>(
      dynamodb::DynamoDbClientConfig{settings.service, {}}, *open.http,
      *open.dynamodb_credentials);
  auto coordination =
      std::make_unique<dynamodb::DynamoDbCoordinationTable>(*open.dynamodb, settings.table_name);
  open.dynamodb_table = coordination.get();
  if (settings.auto_create) {
    open.coordination = open.Metered(std::move(coordination));
  } else {
    open.coordination = open.Metered(std::make_unique<MissingTableHint>(std::move(coordination)));
  }
  std::string table_path = table;
  while (!table_path.empty() && table_path.back() == '/') table_path.pop_back();
  open.log = std::make_unique<S3DynamoDbLogStore>(
      *open.store, *open.coordination, S3DynamoDbOptions{table_path, settings.ttl_seconds});
  open.dynamodb_table_path = table_path;
  open.dynamodb_settings = std::move(settings);
  if (open.dynamodb_settings.auto_create && !o.no_setup) {
    DC_ASSIGN_OR_RETURN(EnsureTableResult ensured,
                        EnsureDeltaLogTable(*open.dynamodb, open.dynamodb_settings));
    if (ensured.created) {
      std::cerr << "created " << open.coordination->Describe() << " for s3-dynamodb commits\n";
    }
    for (const std::string& w : ensured.warnings) std::cerr << "warning: " << w << "\n";
  }
  return OkStatus();
}

StatusOr<OpenTable> OpenS3(const std::string& table, const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(aws::S3Location location, aws::ParseS3Uri(table));
  aws::AwsConfigOverrides overrides;
  if (!o.endpoint_url.empty()) overrides.endpoint_url = o.endpoint_url;
  if (!o.region.empty()) overrides.region = o.region;
  if (!o.profile.empty()) overrides.profile = o.profile;
  DC_ASSIGN_OR_RETURN(aws::AwsServiceConfig service, aws::ResolveServiceConfig("s3", overrides));
  OpenTable open;
  open.meter = NewMeterIfRequested();
  DC_ASSIGN_OR_RETURN(open.mode, S3Mode(o));
  S3StoreConfig config;
  config.bucket = location.bucket;
  config.key_prefix = location.key_prefix;
  config.service = service;
  aws::CredentialsOptions creds;
  if (!o.profile.empty()) creds.profile = o.profile;
  open.http = aws::NewCurlHttpClient();
  open.credentials = aws::DefaultCredentialsChain(creds);
  auto s3_store = std::make_unique<S3ObjectStore>(config, *open.http, *open.credentials);
  open.uri = s3_store->Describe();
  std::unique_ptr<ObjectStore> s3 = open.Metered(std::move(s3_store));
  if (o.create_dynamodb_table && open.mode != "s3-dynamodb") {
    return InvalidArgumentError("--create-dynamodb-table: only for --log-store s3-dynamodb "
                                "(this table commits with " + open.mode + ")");
  }
  if (open.mode == "service" || open.mode == "coordinated") {
    open.store = std::move(s3);
    DC_RETURN_IF_ERROR(AttachCommitService(o, service, open));
    return open;
  }
  DC_RETURN_IF_ERROR(CheckNoServiceOptions(o, open.mode));
  if (open.mode == "s3-dynamodb") {
    open.store = std::move(s3);
    DC_RETURN_IF_ERROR(AttachDynamoDb(table, o, open));
    return open;
  }
  open.log = std::make_unique<S3ConditionalLogStore>(*s3, service.endpoint_url, location.bucket);
  open.store = std::move(s3);
  return open;
}

// The S3 options mean nothing to a local table: refused rather than ignored,
// so that a table path given where an s3:// URI was meant is noticed.
Status CheckNoS3Options(const TableOptions& o) {
  const std::pair<const char*, bool> given[] = {{"--storage-option", !o.storage_options.empty()},
                                                {"--endpoint-url", !o.endpoint_url.empty()},
                                                {"--region", !o.region.empty()},
                                                {"--profile", !o.profile.empty()}};
  for (const auto& [option, set] : given) {
    if (set) {
      return InvalidArgumentError(std::string(option) +
                                  ": only for s3:// tables (this is a local table)");
    }
  }
  return OkStatus();
}

// A local table commits with the local log store, or through a commit
// service that serves it (its [local] roots).
StatusOr<std::string> LocalMode(const TableOptions& o) {
  const std::string mode = o.log_store.empty() ? "local" : o.log_store;
  if (mode != "local" && mode != "service" && mode != "coordinated") {
    return InvalidArgumentError("--log-store \"" + o.log_store +
                                "\": a local table commits with the local log store, or "
                                "through a commit service (service, coordinated)");
  }
  if (o.create_dynamodb_table) {
    return InvalidArgumentError("--create-dynamodb-table: only for --log-store s3-dynamodb "
                                "(this is a local table)");
  }
  if (mode == "local") DC_RETURN_IF_ERROR(CheckNoServiceOptions(o, "local"));
  DC_RETURN_IF_ERROR(CheckNoS3Options(o));
  return mode;
}

StatusOr<OpenTable> OpenLocal(const std::string& table, const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(const std::string mode, LocalMode(o));
  std::string path = table.starts_with("file://") ? table.substr(7) : table;
  if (path.empty()) return InvalidArgumentError("table: empty path");
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return InvalidArgumentError("table \"" + table + "\": " + ec.message());
  OpenTable open;
  open.uri = absolute.lexically_normal().string();
  while (open.uri.size() > 1 && open.uri.back() == '/') open.uri.pop_back();
  open.mode = mode;
  open.meter = NewMeterIfRequested();
  open.store = open.Metered(std::make_unique<PosixObjectStore>(open.uri));
  if (mode != "local") {
    DC_RETURN_IF_ERROR(AttachLocalCommitService(o, open));
    return open;
  }
  open.log = std::make_unique<ObjectStoreLogStore>(*open.store, "local");
  return open;
}

StatusOr<OpenTable> OpenTableUnchecked(const std::string& table, const TableOptions& options);

}  // namespace

std::unique_ptr<ObjectStore> OpenTable::Metered(std::unique_ptr<ObjectStore> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringObjectStore>(std::move(port), *meter);
}

std::unique_ptr<CoordinationTable> OpenTable::Metered(std::unique_ptr<CoordinationTable> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringCoordinationTable>(std::move(port), *meter);
}

std::unique_ptr<CommitServiceClient> OpenTable::Metered(
    std::unique_ptr<CommitServiceClient> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringCommitServiceClient>(std::move(port), *meter);
}

SnapshotRequest OpenTable::Request(std::optional<Version> version) const {
  SnapshotRequest request;
  request.version = version;
  request.parquet = parquet.get();
  request.checkpoint_store = store.get();
  return request;
}

void OpenTable::WarnIfReadAroundCoordinator(const Snapshot& s) const {
  const std::string coordinator = CommitCoordinatorOf(s.metadata());
  if (coordinator.empty() || coordinator == log->CommitCoordinator()) return;
  std::cerr << "warning: " << uri << " is a coordinated table (commit coordinator \""
            << coordinator << "\"); read through --log-store " << mode
            << ", it shows only published commits and may be behind";
  if (coordinator == kDeltacommitCoordinator) {
    std::cerr << ": use --log-store coordinated for its latest version";
  }
  std::cerr << "\n";
}

void AddTableOptions(CLI::App* command, TableOptions* o) {
  command->add_option("--log-store", o->log_store,
                      "Commit mode: local (local tables), s3-conditional (default for s3://), "
                      "s3-dynamodb, service, coordinated (through the commit service)");
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
                      "service/coordinated: bearer token (else DELTACOMMIT_SERVICE_TOKEN, which "
                      "keeps it out of the process list)");
  command->add_option("--service-endpoint", o->service_endpoint,
                      "service/coordinated: an S3 endpoint name on the service's allowlist");
}

StatusOr<OpenTable> OpenTableUri(const std::string& table, const TableOptions& options) {
  StatusOr<OpenTable> open = OpenTableUnchecked(table, options);
  if (open.ok()) open->parquet = std::make_unique<LazyParquetHandler>();
  return open;
}

namespace {

// The table's store and log store, by URI scheme.
StatusOr<OpenTable> OpenTableUnchecked(const std::string& table, const TableOptions& options) {
  if (IsS3Uri(table)) return OpenS3(table, options);
  if (auto colon = table.find("://"); colon != std::string::npos && !table.starts_with("file://")) {
    return InvalidArgumentError("table \"" + table + "\": scheme \"" + table.substr(0, colon) +
                                "\" is not supported (local paths, file://, s3://, s3a://, s3n://)");
  }
  return OpenLocal(table, options);
}

}  // namespace
}  // namespace deltacommit::cli
