#include "deltacommit/table/table_adapters.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/logstore/s3_conditional_log_store.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "deltacommit/table/aws_storage_options.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/table/dynamodb_lock_table.h"
#include "deltacommit/table/dynamodb_settings.h"
#include "table/catalog_access.h"
#include "table/service_access.h"

namespace deltacommit {
namespace {

// Opens DuckDB only when a snapshot really needs a checkpoint, so commands
// on tables without one do not pay for it.
class LazyParquetHandler : public ParquetHandler {
 public:
  // `concurrent_reads`: a checkpoint's parts fetched at once.
  explicit LazyParquetHandler(int concurrent_reads) : concurrent_reads_(concurrent_reads) {}

  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->ReadCheckpointActions(store, keys);
  }

  StatusOr<std::vector<Action>> ReadCheckpoint(ObjectStore& store,
                                               const std::vector<std::string>& keys) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->ReadCheckpoint(store, keys);
  }

  Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                 const ActionBatch& apply) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->ReadCheckpointInBatches(store, keys, apply);
  }

  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<Action>& actions) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->WriteCheckpoint(store, key, actions);
  }

  StatusOr<int64_t> WriteCheckpointActions(ObjectStore& store, const std::string& key,
                                           const std::vector<std::string>& action_lines) override {
    DC_RETURN_IF_ERROR(Open());
    return handler_->WriteCheckpointActions(store, key, action_lines);
  }

 private:
  Status Open() {
    std::lock_guard<std::mutex> lock(mu_);
    if (handler_ == nullptr) {
      DC_ASSIGN_OR_RETURN(handler_, DuckDbParquetHandler::Create(concurrent_reads_));
    }
    return OkStatus();
  }

  const int concurrent_reads_;
  std::mutex mu_;
  std::unique_ptr<DuckDbParquetHandler> handler_;  // set once, under mu_
};

bool IsS3Uri(std::string_view t) {
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
  return InvalidArgumentError(
      "--storage-option \"" + key +
      "\": unknown deltacommit option (known: "
      "deltacommit.dynamodb.autoCreate, deltacommit.service.assignVersions, "
      "deltacommit.sts.durationSeconds, deltacommit.sts.endpointUrl)");
}

}  // namespace

StatusOr<std::map<std::string, std::string>> CheckStorageOptions(
    const std::map<std::string, std::string>& options) {
  std::map<std::string, std::string> out;
  for (const auto& [given, value] : options) {
    const std::string key = AsciiLower(given);
    if (key.empty()) return InvalidArgumentError("--storage-option \"=" + value + "\": empty key");
    DC_RETURN_IF_ERROR(CheckOwnKey(key));
    out[key] = value;
  }
  return out;
}

aws::HttpOptions HttpOptionsOf(const TableOptions& o) {
  aws::HttpOptions http;
  http.connect_timeout = o.http.connect;
  http.request_timeout = o.http.request;
  return http;
}

StatusOr<aws::AwsServiceConfig> S3ServiceOf(const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(auto storage, CheckStorageOptions(o.storage_options));
  DC_ASSIGN_OR_RETURN(AwsStorageOptions aws, ReadAwsStorageOptions(o, storage));
  return aws::ResolveServiceConfig("s3", aws.s3);
}

StatusOr<S3StoreConfig> S3ConfigOf(std::string_view table, const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(aws::S3Location location, aws::ParseS3Uri(std::string(table)));
  S3StoreConfig config;
  DC_ASSIGN_OR_RETURN(config.service, S3ServiceOf(o));
  config.bucket = location.bucket;
  config.key_prefix = location.key_prefix;
  return config;
}

namespace {

using Warn = std::function<void(const std::string&)>;

// The commit mode for an S3 table: TableOptions::mode, else delta-rs's
// options and environment, else s3-conditional.
StatusOr<CommitMode> S3Mode(const TableOptions& o,
                            const std::map<std::string, std::string>& storage) {
  std::optional<CommitMode> mode = o.mode;
  const char* locking = std::getenv("AWS_S3_LOCKING_PROVIDER");
  if (auto it = storage.find("aws_s3_locking_provider"); !mode && it != storage.end()) {
    if (it->second == "dynamodb") mode = CommitMode::kS3DynamoDb;
  }
  if (!mode && locking != nullptr && std::string_view(locking) == "dynamodb") {
    mode = CommitMode::kS3DynamoDb;
  }
  // delta-rs's name for conditional PUTs: aws_conditional_put=etag.
  std::string conditional;
  if (auto it = storage.find("aws_conditional_put"); it != storage.end()) conditional = it->second;
  if (const char* env = std::getenv("AWS_CONDITIONAL_PUT"); conditional.empty() && env != nullptr) {
    conditional = env;
  }
  if (!conditional.empty() && conditional != "etag") {
    return InvalidArgumentError("aws_conditional_put=\"" + conditional +
                                "\": only \"etag\" (PUT If-None-Match) is supported");
  }
  if (!mode) return CommitMode::kS3Conditional;  // the default, and what etag asks for
  if (*mode == CommitMode::kLocal) {
    return InvalidArgumentError(
        "--log-store \"local\": not a commit mode for s3:// tables "
        "(s3-conditional, s3-dynamodb, service, coordinated)");
  }
  return *mode;
}

// The s3-dynamodb log store: entries keyed by the table URI as given (the
// scheme other writers use, e.g. s3a://), in DynamoDB with its own settings.
Status AttachDynamoDb(std::string_view table, const TableOptions& o,
                      const std::map<std::string, std::string>& storage, const Warn& warn,
                      TableAdapters& open) {
  DC_ASSIGN_OR_RETURN(DynamoDbSettings settings, ResolveDynamoDbSettings(storage));
  settings.auto_create = settings.auto_create || o.create_dynamodb_table;
  DC_ASSIGN_OR_RETURN(AwsStorageOptions aws, ReadAwsStorageOptions(o, storage));
  aws::CredentialsOptions creds = ChainOptions(aws);
  // AWS_*_DYNAMODB win: DynamoDB's own credentials, as delta-rs reads them.
  if (settings.credentials) creds.explicit_credentials = settings.credentials;
  open.dynamodb_credentials = aws::DefaultCredentialsChain(creds);
  open.dynamodb = std::make_unique<dynamodb::DynamoDbClient>(
      dynamodb::DynamoDbClientConfig{settings.service, {}}, *open.http, *open.dynamodb_credentials);
  auto coordination =
      std::make_unique<dynamodb::DynamoDbCoordinationTable>(*open.dynamodb, settings.table_name);
  open.dynamodb_table = coordination.get();
  if (settings.auto_create) {
    open.coordination = open.Metered(std::move(coordination));
  } else {
    open.coordination = open.Metered(std::make_unique<MissingTableHint>(std::move(coordination)));
  }
  std::string table_path(table);
  while (!table_path.empty() && table_path.back() == '/') table_path.pop_back();
  open.log = std::make_unique<S3DynamoDbLogStore>(
      *open.store, *open.coordination, S3DynamoDbOptions{table_path, settings.ttl_seconds});
  open.dynamodb_table_path = table_path;
  open.dynamodb_settings = std::move(settings);
  if (open.dynamodb_settings.auto_create && !o.skip_setup) {
    DC_ASSIGN_OR_RETURN(EnsureTableResult ensured,
                        EnsureDeltaLogTable(*open.dynamodb, open.dynamodb_settings));
    if (ensured.created)
      warn("created " + open.coordination->Describe() + " for s3-dynamodb commits");
    for (const std::string& w : ensured.warnings) warn(w);
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<TableAdapters>> OpenS3(std::string_view table, const TableOptions& o,
                                                const Warn& warn) {
  DC_ASSIGN_OR_RETURN(auto storage, CheckStorageOptions(o.storage_options));
  DC_ASSIGN_OR_RETURN(S3StoreConfig config, S3ConfigOf(table, o));
  const aws::AwsServiceConfig& service = config.service;
  DC_ASSIGN_OR_RETURN(aws::S3Location location, aws::ParseS3Uri(std::string(table)));
  auto open = std::make_unique<TableAdapters>();
  open->meter = o.meter;
  DC_ASSIGN_OR_RETURN(open->mode, S3Mode(o, storage));
  const std::string mode_name(CommitModeName(open->mode));
  DC_ASSIGN_OR_RETURN(AwsStorageOptions aws, ReadAwsStorageOptions(o, storage));
  open->http = aws::NewCurlHttpClient(HttpOptionsOf(o));
  open->credentials = aws::DefaultCredentialsChain(ChainOptions(aws));
  auto s3_store = std::make_unique<S3ObjectStore>(config, *open->http, *open->credentials);
  open->uri = s3_store->Describe();
  std::unique_ptr<ObjectStore> s3 = open->Metered(std::move(s3_store));
  if (o.create_dynamodb_table && open->mode != CommitMode::kS3DynamoDb) {
    return InvalidArgumentError(
        "--create-dynamodb-table: only for --log-store s3-dynamodb "
        "(this table commits with " +
        mode_name + ")");
  }
  if (UsesCommitService(open->mode)) {
    open->store = std::move(s3);
    DC_RETURN_IF_ERROR(AttachCommitService(o, storage, service, *open));
    return open;
  }
  DC_RETURN_IF_ERROR(CheckNoServiceOptions(o, mode_name));
  if (open->mode == CommitMode::kS3DynamoDb) {
    open->store = std::move(s3);
    DC_RETURN_IF_ERROR(AttachDynamoDb(table, o, storage, warn, *open));
    return open;
  }
  open->log = std::make_unique<S3ConditionalLogStore>(*s3, service.endpoint_url, location.bucket);
  open->store = std::move(s3);
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
StatusOr<CommitMode> LocalMode(const TableOptions& o) {
  const CommitMode mode = o.mode.value_or(CommitMode::kLocal);
  if (mode != CommitMode::kLocal && !UsesCommitService(mode)) {
    return InvalidArgumentError("--log-store \"" + std::string(CommitModeName(mode)) +
                                "\": a local table commits with the local log store, or "
                                "through a commit service (service, coordinated)");
  }
  if (o.create_dynamodb_table) {
    return InvalidArgumentError(
        "--create-dynamodb-table: only for --log-store s3-dynamodb "
        "(this is a local table)");
  }
  if (mode == CommitMode::kLocal) DC_RETURN_IF_ERROR(CheckNoServiceOptions(o, "local"));
  DC_RETURN_IF_ERROR(CheckNoS3Options(o));
  return mode;
}

StatusOr<std::unique_ptr<TableAdapters>> OpenLocal(std::string_view table, const TableOptions& o) {
  DC_ASSIGN_OR_RETURN(const CommitMode mode, LocalMode(o));
  std::string path(table.starts_with("file://") ? table.substr(7) : table);
  if (path.empty()) return InvalidArgumentError("table: empty path");
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return InvalidArgumentError("table \"" + std::string(table) + "\": " + ec.message());
  auto open = std::make_unique<TableAdapters>();
  open->uri = absolute.lexically_normal().string();
  while (open->uri.size() > 1 && open->uri.back() == '/') open->uri.pop_back();
  open->mode = mode;
  open->meter = o.meter;
  open->store = open->Metered(std::make_unique<PosixObjectStore>(open->uri));
  if (mode != CommitMode::kLocal) {
    DC_RETURN_IF_ERROR(AttachLocalCommitService(o, HttpOptionsOf(o), *open));
    return open;
  }
  open->log = std::make_unique<ObjectStoreLogStore>(*open->store, "local");
  return open;
}

}  // namespace

std::unique_ptr<ObjectStore> TableAdapters::Metered(std::unique_ptr<ObjectStore> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringObjectStore>(std::move(port), *meter);
}

std::unique_ptr<CoordinationTable> TableAdapters::Metered(std::unique_ptr<CoordinationTable> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringCoordinationTable>(std::move(port), *meter);
}

std::unique_ptr<CatalogClient> TableAdapters::Metered(std::unique_ptr<CatalogClient> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringCatalogClient>(std::move(port), *meter);
}

std::unique_ptr<CommitServiceClient> TableAdapters::Metered(
    std::unique_ptr<CommitServiceClient> port) {
  if (meter == nullptr) return port;
  return std::make_unique<MeteringCommitServiceClient>(std::move(port), *meter);
}

SnapshotRequest TableAdapters::Request(std::optional<Version> version) const {
  SnapshotRequest request;
  request.version = version;
  request.parquet = parquet.get();
  request.checkpoint_store = store.get();
  request.concurrent_reads = ConcurrentReads();
  return request;
}

std::optional<std::string> TableAdapters::ReadAroundCoordinatorWarning(const Snapshot& s) const {
  if (IsCatalogManaged(s.protocol()) && log->ManagingCatalog().empty()) {
    return uri +
           " is a catalog-managed table (feature catalogManaged); read around its catalog, it "
           "shows only published commits and may be behind: open it by its catalog name, "
           "uc://<catalog>.<schema>.<table> with --catalog-url";
  }
  const std::string coordinator = CommitCoordinatorOf(s.metadata());
  if (coordinator.empty() || coordinator == log->CommitCoordinator()) return std::nullopt;
  std::string warning = uri + " is a coordinated table (commit coordinator \"" + coordinator +
                        "\"); read through --log-store " + std::string(CommitModeName(mode)) +
                        ", it shows only published commits and may be behind";
  if (coordinator == kDeltacommitCoordinator) {
    warning += ": use --log-store coordinated for its latest version";
  }
  return warning;
}

StatusOr<std::unique_ptr<TableAdapters>> OpenTableAdapters(std::string_view table,
                                                           const TableOptions& options,
                                                           const Warn& warn) {
  if (auto colon = table.find("://"); colon != std::string_view::npos && !IsS3Uri(table) &&
                                      !table.starts_with("file://") &&
                                      !table.starts_with("uc://")) {
    return InvalidArgumentError(
        "table \"" + std::string(table) + "\": scheme \"" + std::string(table.substr(0, colon)) +
        "\" is not supported (local paths, file://, s3://, s3a://, s3n://, uc://)");
  }
  if (!table.starts_with("uc://")) DC_RETURN_IF_ERROR(CheckNoCatalogOptions(options));
  StatusOr<std::unique_ptr<TableAdapters>> open = table.starts_with("uc://")
                                                      ? OpenCatalogTable(table, options, warn)
                                                  : IsS3Uri(table) ? OpenS3(table, options, warn)
                                                                   : OpenLocal(table, options);
  if (open.ok()) {
    (*open)->parquet = std::make_unique<LazyParquetHandler>((*open)->ConcurrentReads());
  }
  return open;
}

}  // namespace deltacommit
