// Opening a table named on the command line: builds the real adapters for
// its URI (only the CLI and the service build adapters) and chooses the log
// store (commit mode).
//
// Thread-safety: an OpenTable is safe to use from several threads (its
// adapters are).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/aws/credentials.h"
#include "adapters/aws/http.h"
#include "adapters/aws/sts_client.h"
#include "adapters/dynamodb/dynamodb_client.h"
#include "adapters/dynamodb/dynamodb_coordination_table.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/log_store.h"
#include "deltacommit/metering.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"
#include "dynamodb_settings.h"

namespace deltacommit::cli {

// Options every table command takes.
struct TableOptions {
  std::string log_store;  // "", "local", "s3-conditional", "s3-dynamodb", "service", "coordinated"
  std::string endpoint_url;  // S3 endpoint override
  std::string region;
  std::string profile;
  std::vector<std::string> storage_options;  // delta-rs style KEY=VALUE
  bool create_dynamodb_table = false;  // --create-dynamodb-table: s3-dynamodb auto-create
  // service / coordinated: the commit service (else DELTACOMMIT_SERVICE_URL,
  // DELTACOMMIT_SERVICE_TOKEN) and an endpoint name on its allowlist.
  std::string service_url;
  std::string service_token;
  std::string service_endpoint;
  // Not an option: open without any remote call (no auto-create), for
  // `doctor`, which checks the table rather than sets it up.
  bool no_setup = false;
};

void AddTableOptions(CLI::App* command, TableOptions* options);

// --storage-option KEY=VALUE pairs, keys lower-cased (Spark's keys are
// matched case-insensitively). kInvalidArgument for a malformed pair.
StatusOr<std::map<std::string, std::string>> ParseStorageOptions(const TableOptions& options);

struct OpenTable {
  std::string uri;  // normalised: absolute path, or s3://bucket/prefix
  std::string mode;  // the log store chosen: "local", "s3-conditional", ...
  bool is_local() const { return !uri.starts_with("s3://"); }
  // DELTACOMMIT_METER=1 only: counts the remote calls of the ports below
  // (benchmarks). Declared first so that it outlives the wrappers.
  std::unique_ptr<CallMeter> meter;
  // Declared before the store so they outlive it.
  std::unique_ptr<aws::HttpClient> http;
  std::unique_ptr<aws::CredentialsProvider> credentials;
  std::unique_ptr<ObjectStore> store;
  // s3-dynamodb only: DynamoDB's own credentials, client and table.
  std::unique_ptr<aws::CredentialsProvider> dynamodb_credentials;
  std::unique_ptr<dynamodb::DynamoDbClient> dynamodb;
  std::unique_ptr<CoordinationTable> coordination;  // may wrap the DynamoDB table
  dynamodb::DynamoDbCoordinationTable* dynamodb_table = nullptr;  // the one inside
  DynamoDbSettings dynamodb_settings;  // as resolved, auto_create included
  std::string dynamodb_table_path;     // the tablePath key of this table's entries
  // service and coordinated only: STS and the temporary credentials sent
  // to the service (declared before `service`, which uses them).
  // None for a local table: the service writes it as its own user.
  std::unique_ptr<aws::StsClient> sts;
  std::unique_ptr<aws::CredentialsProvider> service_credentials;
  std::unique_ptr<CommitServiceClient> service;
  std::string service_table;  // the table URI the service knows (file:///... when local)
  std::unique_ptr<LogStore> log;
  std::unique_ptr<ParquetHandler> parquet;  // checkpoints; DuckDB opened on first use

  // `port` wrapped in a metering wrapper when `meter` is set, else as is.
  std::unique_ptr<ObjectStore> Metered(std::unique_ptr<ObjectStore> port);
  std::unique_ptr<CoordinationTable> Metered(std::unique_ptr<CoordinationTable> port);
  std::unique_ptr<CommitServiceClient> Metered(std::unique_ptr<CommitServiceClient> port);

  // A snapshot request that reads checkpoints through `parquet`.
  SnapshotRequest Request(std::optional<Version> version = std::nullopt) const;

  // Warns on stderr when `s` is a coordinated table read around its
  // coordinator: the listing then holds only published commits, so the
  // snapshot may be behind the table (a read, so not refused).
  void WarnIfReadAroundCoordinator(const Snapshot& s) const;
};

// TABLE is a local path, a file:// URI, or s3:// (s3a://, s3n://).
// kInvalidArgument for unknown schemes, log stores that do not fit the
// table, or malformed options, naming them. s3-dynamodb with auto-create on
// (and not no_setup) creates a missing DynamoDB table here, printing what it
// did to stderr; its errors are EnsureDeltaLogTable's.
StatusOr<OpenTable> OpenTableUri(const std::string& table, const TableOptions& options);

}  // namespace deltacommit::cli
