// The library's front door: open a Delta table by URI and read, commit,
// append, checkpoint and check it (docs/library.md).
//
//   deltacommit::TableOptions options;   // mode, endpoints, storage options
//   auto table = deltacommit::OpenTable("s3://bucket/events", options);
//   auto outcome = table->Commit(actions, {});
//
// OpenTable builds the real adapters for the URI (a local path or file://,
// s3:// s3a:// s3n://: S3 with SigV4 and the AWS credential chain, DynamoDB,
// the commit service's client, DuckDB for Parquet) and the log store of the
// commit mode, exactly as the `deltacommit` CLI does: the CLI is a user of
// this header.
//
// A Table keeps the latest snapshot it has read. Update() brings it up to
// date incrementally: it lists the log only after the version it holds and
// replays only the new commits, so a long-lived writer never reads a commit
// twice. Conflicts are values (CommitOutcome); errors are a Status naming the
// table, the version and the cause.
//
// Thread-safety: a Table is a handle to shared state; copies share it. It is
// safe to use from several threads at once and to keep for the life of a
// process. Snapshots are immutable; a Transaction is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/checkpoint.h"
#include "deltacommit/clock.h"
#include "deltacommit/commit_mode.h"
#include "deltacommit/conflict.h"
#include "deltacommit/log_check.h"
#include "deltacommit/memory_columns.h"
#include "deltacommit/query_result.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"
#include "deltacommit/transaction.h"

namespace deltacommit {

class CallMeter;
struct TableAdapters;

struct HttpTimeouts {
  std::chrono::milliseconds connect{3000};
  std::chrono::milliseconds request{30000};
};

// How to open a table. Every field is optional; errors name an option by
// the CLI's spelling of it (`--log-store` is `mode`, `--storage-option` is
// `storage_options`, ...), as docs/configuration.md lists them.
struct TableOptions {
  // Unset: `local` for a local table; for s3:// what delta-rs's options ask
  // (aws_s3_locking_provider=dynamodb, AWS_S3_LOCKING_PROVIDER), else
  // s3-conditional.
  std::optional<CommitMode> mode;
  // S3: endpoint (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile,
  // AWS), region (else AWS_REGION, AWS_DEFAULT_REGION), profile (else
  // AWS_PROFILE, default). Refused for local tables.
  std::string endpoint_url;
  std::string region;
  std::string profile;
  // delta-rs storage options and Delta Spark's keys (io.delta.storage.
  // S3DynamoDBLogStore.ddb.tableName, ...); keys are case-insensitive.
  // Keys under "deltacommit." are ours and must be known.
  std::map<std::string, std::string> storage_options;
  // s3-dynamodb: create the DynamoDB table when it is missing (also the
  // storage option deltacommit.dynamodb.autoCreate=true).
  bool create_dynamodb_table = false;
  // service / coordinated: the commit service (else DELTACOMMIT_SERVICE_URL,
  // DELTACOMMIT_SERVICE_TOKEN) and an S3 endpoint name on its allowlist.
  std::string service_url;
  std::string service_token;
  std::string service_endpoint;
  // uc://catalog.schema.table: the catalog that manages the table, Unity
  // Catalog's Delta REST API at "http(s)://host:port" (else
  // DELTACOMMIT_CATALOG_URL), and its bearer token (else
  // DELTACOMMIT_CATALOG_TOKEN). Refused for other tables.
  std::string catalog_url;
  std::string catalog_token;
  // Send the catalog the writer's own temporary S3 credentials (from the
  // credential chain, turned temporary by STS GetSessionToken when they
  // are long-term keys), for a catalog that passes them through instead
  // of vending its own (`serve` with vend_credentials = "pass_through").
  // Also when DELTACOMMIT_CATALOG_SEND_CREDENTIALS is "true". Never sent
  // otherwise.
  bool catalog_send_credentials = false;
  // Timeouts of every HTTP call (S3, STS, DynamoDB, the commit service).
  HttpTimeouts http;
  // Time and backoff; null: the system clock and real sleeps. REQUIRES:
  // when set, they outlive the Table.
  Clock* clock = nullptr;
  Sleeper* sleeper = nullptr;
  // When set, counts every remote call of the table's ports by kind
  // (metering.h). REQUIRES: outlives the Table.
  CallMeter* meter = nullptr;
  // Warnings that do not fail a call (an automatic checkpoint that could
  // not be written, a coordinated table read around its coordinator, a
  // DynamoDB table created). Null: printed to stderr as "warning: ...".
  std::function<void(const std::string&)> on_warning;
  // Write a checkpoint after a commit whose version is a multiple of
  // delta.checkpointInterval (default 10), as Delta writers do.
  bool auto_checkpoint = true;
  // Make no remote call while opening (no DynamoDB auto-create): for
  // checking a table rather than setting it up (`deltacommit doctor`).
  bool skip_setup = false;
};

// What a commit reads and how it is written (Table::Commit).
struct CommitOptions {
  TransactionOptions transaction;  // operation, isolation level, attempts
  // The version the actions were computed from; unset: the table's latest.
  std::optional<Version> read_version;
  // Idempotency: the txn action (appId, version); a retry after a lost
  // reply or a crash is recognised (kAlreadyCommitted).
  std::optional<std::pair<std::string, int64_t>> app_transaction;
  // What the actions depend on, for conflict detection. Removed files are
  // always counted as read.
  bool read_whole_table = false;
  std::vector<PartitionPredicate> read_predicates;
};

// Rows to append (Table::Append): a local file, or columns in memory.
struct AppendInput {
  std::string path;    // CSV, JSON lines or Parquet
  std::string format;  // "csv", "json", "parquet"; "" from the name, else the
                       // first bytes
  std::string label;   // how messages name it; "" for the path
  // Set (path empty): the rows are these columns (memory_columns.h), not a
  // file; they are matched to the table's schema as a file's would be.
  std::vector<MemoryColumn> columns;
};

// What Table::Append is doing, for progress displays.
struct AppendEvent {
  enum class Kind {
    kConverting,  // input `input` starts converting
    kProgress,    // converting: `step`, `percent` done (-1: unknown)
    kUploading,   // uploading data file `file` of `files`
    kWritten,     // input `input` became `files` data files of `rows` rows
  };
  Kind kind = Kind::kConverting;
  size_t input = 0;  // index into the inputs
  std::string step;
  double percent = -1;
  int64_t file = 0;
  int64_t files = 0;
  int64_t rows = 0;
};

struct AppendOptions {
  TransactionOptions transaction;  // max_attempts, ...; operation WRITE (Append)
  std::optional<std::pair<std::string, int64_t>> app_transaction;
  // Memory DuckDB may use converting; beyond it, it spills to a private
  // temporary directory (removed afterwards), never the working directory.
  std::string memory_limit = "1GB";
  std::function<void(const AppendEvent&)> on_event;  // may be empty
};

struct AppendResult {
  CommitOutcome outcome;      // kConflict: the data files were removed again
  std::vector<AddFile> adds;  // the data files committed
  int64_t rows = 0;
};

// How Table::Delete commits.
struct DeleteOptions {
  TransactionOptions transaction;  // max_attempts, isolation; operation DELETE
  std::optional<std::pair<std::string, int64_t>> app_transaction;
  // Memory DuckDB may use matching and rewriting rows; beyond it, it spills
  // to a private temporary directory, never the working directory.
  std::string memory_limit = "1GB";
};

struct DeleteResult {
  // Unset when the condition matched no row: nothing was committed.
  std::optional<CommitOutcome> outcome;
  int64_t rows_deleted = 0;
  // Data files fetched to match rows: none when the condition reads only
  // partition columns (decided from the log's partition values).
  int64_t files_read = 0;
  int64_t files_removed = 0;    // every row deleted: the file is removed
  int64_t files_marked = 0;     // given a deletion vector (the file stays)
  int64_t files_rewritten = 0;  // rewritten without the deleted rows
  std::vector<AddFile> adds;    // the new adds (new DVs, rewritten files)
  std::vector<RemoveFile> removes;
  // Change data files (delta.enableChangeDataFeed): every row deleted, with
  // _change_type "delete", under _change_data/; none when only whole files
  // were removed (their removes say it all).
  std::vector<AddCdcFile> change_files;
};

// What Table::Query reads and how it answers.
struct QueryOptions {
  std::optional<Version> version;  // unset: the latest (time travel otherwise)
  bool json_rows = false;          // one cell per row: the row as a JSON object
  // Set: the rows go to this local file (QueryResult::rows_written).
  std::optional<QueryOutputFile> output;
  // Memory DuckDB may use (e.g. "1GB"; empty: DuckDB's default, 80% of
  // RAM); beyond it, it spills to a private temporary directory (removed
  // afterwards), never the working directory.
  std::string memory_limit;
};

// One commit of the log (Table::History).
struct HistoryEntry {
  Version version = -1;
  std::optional<CommitInfo> commit_info;
  int64_t num_adds = 0;
  int64_t num_removes = 0;
};

// What a new table is made of (NewTableMetadata, then Table::Create).
struct NewTable {
  std::string schema;  // Delta's schema JSON, or the compact "id:long,name:string"
  std::vector<std::string> partition_columns;
  StringMap configuration;  // table properties (delta.*, delta.feature.X=supported)
  std::optional<std::string> name;
  std::optional<std::string> description;
};

// The metaData of a new table: a fresh id, the schema checked and written
// as Spark writes it (SchemaStringFromArgument), the partition columns
// checked against it (ValidatePartitionColumns), created at
// `created_time_ms`. kInvalidArgument naming what is wrong.
StatusOr<Metadata> NewTableMetadata(NewTable spec, int64_t created_time_ms);

class Table {
 public:
  // The table's URI: an absolute path for a local table (no file://), else
  // s3://bucket/prefix.
  const std::string& uri() const;
  CommitMode mode() const;
  bool is_local() const;

  // Creates the table: version 0 holds `metadata` and the protocol it needs
  // (ProtocolForNewTable; delta.feature.X=supported properties become
  // protocol features, as Spark records them). A table created through a
  // coordinator (coordinated mode) names it. kAlreadyExists when the table
  // already has a log; kConflict in the outcome when another writer created
  // it at the same moment.
  StatusOr<CommitOutcome> Create(Metadata metadata);

  // The latest snapshot: Update(), then what the table holds.
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> Snapshot();
  // The snapshot at `version` (time travel); does not change the one held.
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> SnapshotAt(Version version);
  // Brings the held snapshot up to date: the first call loads the table
  // (the newest checkpoint and the commits after it); later calls list only
  // after the held version and replay only the new commits.
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> Update();

  // A transaction reading the latest snapshot (after Update()). Commit it
  // with Commit(Transaction&) so that the table learns of it and writes the
  // checkpoint when one is due.
  // `read` (from this table) instead of the latest: time travel, or a
  // snapshot the caller already holds.
  StatusOr<Transaction> NewTransaction(TransactionOptions options = {},
                                       std::shared_ptr<const deltacommit::Snapshot> read = nullptr);
  StatusOr<CommitOutcome> Commit(Transaction& transaction);
  // Commits `actions` (commitInfo is generated) as one transaction, read
  // from the latest snapshot (Update()). A blind append (only adds with
  // dataChange, no read predicates) in a mode whose service assigns
  // versions (service, coordinated) reads the snapshot held instead: the
  // service puts it on its latest version and checks it against every
  // commit since (txn versions, protocol and metadata changes), so the log
  // need not be listed; the commit is then one call to the service. When
  // that ends in a conflict (the protocol or metadata changed since the
  // held version), the append is tried once more on the latest snapshot,
  // as it would have been had it listed first.
  StatusOr<CommitOutcome> Commit(std::vector<Action> actions, CommitOptions options = {});

  // Converts `inputs` to Parquet data files matching the table's schema
  // (partitioned as the table is, with statistics), writes them into the
  // table and commits them as one blind append: never a conflict with other
  // appends. Memory stays bounded whatever the inputs' size. Data files of
  // an append that is not committed are removed (kept only when the
  // outcome is unknown: the commit may reference them). kInvalidArgument
  // when the inputs hold no rows.
  StatusOr<AppendResult> Append(const std::vector<AppendInput>& inputs, AppendOptions options = {});

  // Deletes the rows for which `condition` (an SQL boolean expression in
  // DuckDB's dialect over the columns of the view `t`, as after WHERE) is
  // true, as one transaction: a file whose every row matches is removed
  // (decided from the log alone when the condition reads only partition
  // columns and calls no volatile function such as random());
  // other files with matches get a deletion vector where the table enables
  // them (DeletionVectorsWritable: a DV file of the protocol's format, then
  // remove + add of the file with the new DV, numRecords kept, stats no
  // longer tight), and are rewritten without those rows otherwise. The
  // commit reads the whole table: a concurrent change to data the delete
  // read (not a blind append, under WriteSerializable) is a conflict in
  // the outcome, and the files and DVs written are removed again.
  // A table recording change data (delta.enableChangeDataFeed) gets change
  // data files of the rows deleted when a file loses only some of them.
  // kFailedPrecondition for an append-only table.
  StatusOr<DeleteResult> Delete(const std::string& condition, DeleteOptions options = {});

  // Runs `sql` (DuckDB's dialect) over the snapshot's active files, seen as
  // a view named `t` (partition values from the log, cast to the columns'
  // types). Remote data files are fetched into a private temporary
  // directory, removed afterwards. kUnimplemented for tables whose data
  // this build cannot read (variant), naming why.
  StatusOr<QueryResult> Query(const std::string& sql, QueryOptions options = {});

  // Writes a checkpoint of the latest version (or of `version`), then
  // `_last_checkpoint`. kFailedPrecondition for a version of a coordinated
  // table not yet published as <v>.json.
  StatusOr<CheckpointInfo> Checkpoint(std::optional<Version> version = std::nullopt,
                                      CheckpointOptions options = {});
  // The commits of the latest snapshot, newest first, at most `limit` (0:
  // all still in the log; commits cleaned up end the history).
  StatusOr<std::vector<HistoryEntry>> History(int64_t limit = 0);
  // Validates the log (log_check.h): every defect is a problem in the
  // report; errors only when the log cannot be listed.
  StatusOr<LogCheckReport> Check();

  // The adapters and log store (deltacommit/table/table_adapters.h, in src/table; not
  // installed): for the CLI's diagnostics, not part of the stable API.
  TableAdapters& adapters() const;

 private:
  struct State;
  explicit Table(std::shared_ptr<State> state) : state_(std::move(state)) {}
  Clock& clock() const;
  // Commit(actions, options) on `read`.
  StatusOr<CommitOutcome> CommitOn(std::shared_ptr<const deltacommit::Snapshot> read,
                                   std::vector<Action> actions, CommitOptions options);
  friend StatusOr<Table> OpenTable(std::string_view uri, TableOptions options);
  std::shared_ptr<State> state_;
};

// Opens the table at `uri`: a local path, file://, s3://, s3a:// or s3n://,
// or a catalog-managed table by its name in its catalog,
// uc://catalog.schema.table (catalog_url, catalog_token). Reads nothing
// from the table yet (the first Snapshot() or Update() does); a uc:// table
// is resolved by the catalog here (its id and location).
// kInvalidArgument for unknown schemes, modes that do not fit the table,
// and malformed options, naming them. s3-dynamodb with auto-create (and not
// skip_setup) creates a missing DynamoDB table here.
StatusOr<Table> OpenTable(std::string_view uri, TableOptions options = {});

}  // namespace deltacommit
