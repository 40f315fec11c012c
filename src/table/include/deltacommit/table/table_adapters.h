// The adapters and log store of an opened table: OpenTable (table.h) builds
// them for the table's URI and commit mode; a Table owns them. Internal: the
// CLI's diagnostics (`doctor`, `dynamodb`, `bench`) read them through
// Table::adapters().
//
// Thread-safety: safe to use from several threads (the adapters are).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/aws/sts_client.h"
#include "deltacommit/catalog_client.h"
#include "deltacommit/commit_mode.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/log_store.h"
#include "deltacommit/metering.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/s3/s3_object_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"
#include "deltacommit/table.h"
#include "deltacommit/table/dynamodb_settings.h"

namespace deltacommit {

// `options` with its keys lower-cased (Spark's keys are matched
// case-insensitively). kInvalidArgument for an unknown key of ours
// ("deltacommit.*": a misspelt one would silently do nothing).
StatusOr<std::map<std::string, std::string>> CheckStorageOptions(
    const std::map<std::string, std::string>& options);

struct TableAdapters {
  std::string uri;  // normalised: absolute path, or s3://bucket/prefix
  CommitMode mode = CommitMode::kLocal;
  bool is_local() const { return !uri.starts_with("s3://"); }
  CallMeter* meter = nullptr;  // TableOptions::meter: the caller's
  // Declared before the store so they outlive it.
  std::unique_ptr<aws::HttpClient> http;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  std::unique_ptr<ObjectStore> store;
  // s3-dynamodb only: DynamoDB's own credentials, client and table.
  std::unique_ptr<aws::CredentialsProvider> dynamodb_credentials;
  std::unique_ptr<dynamodb::DynamoDbClient> dynamodb;
  std::unique_ptr<CoordinationTable> coordination;                // may wrap the DynamoDB table
  dynamodb::DynamoDbCoordinationTable* dynamodb_table = nullptr;  // the one inside
  DynamoDbSettings dynamodb_settings;  // as resolved, auto_create included
  std::string dynamodb_table_path;     // the tablePath key of this table's entries
  // unity-catalog with catalog_send_credentials: the writer's own chain;
  // its temporary session (`service_credentials`, with `sts`) is what the
  // catalog is sent.
  std::unique_ptr<aws::CredentialsProvider> own_credentials;
  // service and coordinated only: STS and the temporary credentials sent
  // to the service (declared before `service`, which uses them).
  // None for a local table: the service writes it as its own user.
  std::unique_ptr<aws::StsClient> sts;
  std::unique_ptr<aws::CredentialsProvider> service_credentials;
  std::unique_ptr<CommitServiceClient> service;
  std::string service_table;  // the table URI the service knows (file:///...
                              // when local)
  // unity-catalog only (uc://): the catalog, the table's name in it, and
  // the credentials it vends for the table's location.
  std::unique_ptr<CatalogClient> catalog;
  std::optional<CatalogTableName> catalog_name;
  TableOptions catalog_options;  // as opened: a staging table's store is built with them
  std::function<void(const std::string&)> catalog_warn;  // the log stores' OnWarning
  std::unique_ptr<LogStore> log;
  std::unique_ptr<ParquetHandler> parquet;  // checkpoints; DuckDB opened on first use

  // `port` wrapped in a metering wrapper when `meter` is set, else as is.
  std::unique_ptr<ObjectStore> Metered(std::unique_ptr<ObjectStore> port);
  std::unique_ptr<CoordinationTable> Metered(std::unique_ptr<CoordinationTable> port);
  std::unique_ptr<CommitServiceClient> Metered(std::unique_ptr<CommitServiceClient> port);
  std::unique_ptr<CatalogClient> Metered(std::unique_ptr<CatalogClient> port);

  // Log files and checkpoint parts fetched at once: each read from S3 is a
  // round trip of its own, and 16 in flight overlap them without crowding
  // one client's connection pool; locally threads cost more than they save.
  int ConcurrentReads() const { return is_local() ? 1 : 16; }

  // A snapshot request that reads checkpoints through `parquet`.
  SnapshotRequest Request(std::optional<Version> version = std::nullopt) const;

  // The table URI as actions may name files under it ("file:///..." for a
  // local table).
  std::string ActionUri() const { return is_local() ? "file://" + uri : uri; }

  // A warning when `s` is a coordinated table read around its coordinator:
  // the listing then holds only published commits, so the snapshot may be
  // behind the table (a read, so not refused). nullopt otherwise.
  std::optional<std::string> ReadAroundCoordinatorWarning(const Snapshot& s) const;
};

// The HTTP timeouts of `options`.
aws::HttpOptions HttpOptionsOf(const TableOptions& options);

// The S3 endpoint and region of `options` (as S3ConfigOf resolves them).
StatusOr<aws::AwsServiceConfig> S3ServiceOf(const TableOptions& options);

// The S3 store's config for `table` (s3://, s3a://, s3n://): bucket, prefix,
// and the endpoint and region from the options, the environment and the
// profile (never guessed from the bucket).
StatusOr<S3StoreConfig> S3ConfigOf(std::string_view table, const TableOptions& options);

// TABLE is a local path, a file:// URI, s3:// (s3a://, s3n://), or
// uc://catalog.schema.table (catalog_access.h).
// kInvalidArgument for unknown schemes, modes that do not fit the table, or
// malformed options, naming them. s3-dynamodb with auto-create on (and not
// skip_setup) creates a missing DynamoDB table here, telling `warn` what it
// did; its errors are EnsureDeltaLogTable's.
StatusOr<std::unique_ptr<TableAdapters>> OpenTableAdapters(
    std::string_view table, const TableOptions& options,
    const std::function<void(const std::string&)>& warn);

}  // namespace deltacommit
