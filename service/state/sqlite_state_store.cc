#include "service/state/sqlite_state_store.h"

#include <algorithm>
#include <utility>

#include "service/state/sqlite_schema.h"

namespace deltacommit::service {

namespace {

enum Sql : size_t {
  kBegin,
  kBeginImmediate,
  kCommit,
  kRollback,
  kSelectTable,
  kSelectCommit,
  kListFrom,
  kInsertCommit,
  kInsertTable,
  kSetLatest,
  kSetPublishedThrough,
  kForgetBefore,
  kUpsertAppTxn,
  kSelectAppTxn,
  kSqlCount,
};

constexpr const char* kSqlText[kSqlCount] = {
    "BEGIN",
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "SELECT latest, published_through FROM tables WHERE table_uri = ?1",
    "SELECT version, staged_file, content_sha256, size, ratified_at_ms, "
    "commit_timestamp_ms "
    "FROM commits WHERE table_uri = ?1 AND version = ?2",
    "SELECT version, staged_file, content_sha256, size, ratified_at_ms, "
    "commit_timestamp_ms "
    "FROM commits WHERE table_uri = ?1 AND version >= ?2 ORDER BY version "
    "LIMIT ?3",
    "INSERT INTO commits (table_uri, version, staged_file, content_sha256, "
    "size, ratified_at_ms, "
    "commit_timestamp_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT INTO tables (table_uri, latest, published_through) VALUES (?1, ?2, "
    "?2 - 1)",
    "UPDATE tables SET latest = ?2 WHERE table_uri = ?1",
    "UPDATE tables SET published_through = ?2 WHERE table_uri = ?1 AND "
    "published_through < ?2",
    "DELETE FROM commits WHERE table_uri = ?1 AND version < ?2",
    // The last ratified txn of an app wins, as in log replay.
    "INSERT INTO app_txns (table_uri, app_id, txn_version, commit_version) "
    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (table_uri, app_id) DO UPDATE SET "
    "txn_version = excluded.txn_version, commit_version = excluded.commit_version",
    "SELECT txn_version, commit_version FROM app_txns WHERE table_uri = ?1 AND app_id = ?2",
};

}  // namespace

class SqliteStateStore::Statements {
 public:
  static StatusOr<std::unique_ptr<Statements>> Prepare(SqliteDb& db) {
    auto statements = std::make_unique<Statements>();
    for (const char* sql : kSqlText) {
      DC_ASSIGN_OR_RETURN(SqliteStatement statement, db.Prepare(sql));
      statements->all_.push_back(std::move(statement));
    }
    return statements;
  }
  SqliteStatement& operator[](Sql sql) { return all_[sql]; }

 private:
  std::vector<SqliteStatement> all_;
};

StatusOr<std::unique_ptr<SqliteStateStore>> SqliteStateStore::Open(
    const SqliteStateStoreOptions& options) {
  DC_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                      SqliteDb::Open(options.path, options.busy_timeout_ms));
  DC_RETURN_IF_ERROR(PrepareStateSchema(*db));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Statements> statements,
                      Statements::Prepare(*db));
  return std::unique_ptr<SqliteStateStore>(
      new SqliteStateStore(std::move(db), std::move(statements)));
}

SqliteStateStore::SqliteStateStore(std::unique_ptr<SqliteDb> db,
                                   std::unique_ptr<Statements> statements)
    : db_(std::move(db)), statements_(std::move(statements)) {}

// The statements are finalised before the connection is closed.
SqliteStateStore::~SqliteStateStore() { statements_.reset(); }

std::string SqliteStateStore::Describe() const {
  return "SQLite file " + db_->path();
}

Status SqliteStateStore::Commit(bool write) {
  Status status = (*statements_)[kCommit].Run();
  if (status.ok()) return status;
  (*statements_)[kRollback]
      .Run()
      .IgnoreError();  // SQLite may have rolled back already
  return SqliteCommitOutcome(std::move(status), write);
}

template <typename Body>
auto SqliteStateStore::InTransaction(bool write, Body body)
    -> decltype(body()) {
  DC_RETURN_IF_ERROR((*statements_)[write ? kBeginImmediate : kBegin].Run());
  auto result = body();
  if (!result.ok()) {
    (*statements_)[kRollback].Run().IgnoreError();
    return result;
  }
  DC_RETURN_IF_ERROR(Commit(write));
  return result;
}

StatusOr<std::optional<SqliteStateStore::TableState>>
SqliteStateStore::ReadTableState(const std::string& table) {
  SqliteStatement& select = (*statements_)[kSelectTable];
  ResetOnExit reset(select);
  select.Bind(1, table);
  DC_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<TableState>();
  return std::optional<TableState>(
      TableState{select.ColumnInt64(0), select.ColumnInt64(1)});
}

namespace {

// A record this code did not write (edited by hand, damaged) is reported,
// never published.
StatusOr<CommitRecord> RecordFromRow(const SqliteStatement& row,
                                     const std::string& table,
                                     Version published_through,
                                     const std::string& path) {
  CommitRecord record{table,
                      row.ColumnInt64(0),
                      row.ColumnText(1),
                      row.ColumnText(2),
                      row.ColumnInt64(3),
                      row.ColumnInt64(4),
                      row.ColumnInt64(5),
                      false,
                      {}};
  record.published = record.version <= published_through;
  Status valid = ValidateCommitRecord(record);
  if (!valid.ok())
    return DataLossError("SQLite file " + path + ": stored " + valid.message());
  return record;
}

}  // namespace

StatusOr<std::optional<CommitRecord>> SqliteStateStore::ReadRecord(
    const std::string& table, Version version, const TableState& state) {
  SqliteStatement& select = (*statements_)[kSelectCommit];
  ResetOnExit reset(select);
  select.Bind(1, table);
  select.Bind(2, version);
  DC_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<CommitRecord>();
  DC_ASSIGN_OR_RETURN(
      CommitRecord record,
      RecordFromRow(select, table, state.published_through, db_->path()));
  return std::optional<CommitRecord>(std::move(record));
}

StatusOr<std::vector<CommitRecord>> SqliteStateStore::ReadRecords(
    const std::string& table, Version start, int64_t limit,
    const TableState& state) {
  SqliteStatement& select = (*statements_)[kListFrom];
  ResetOnExit reset(select);
  select.Bind(1, table);
  select.Bind(2, start);
  select.Bind(3, limit);
  std::vector<CommitRecord> records;
  while (true) {
    DC_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return records;
    DC_ASSIGN_OR_RETURN(
        CommitRecord record,
        RecordFromRow(select, table, state.published_through, db_->path()));
    records.push_back(std::move(record));
  }
}

Status SqliteStateStore::InsertRecord(const CommitRecord& record) {
  SqliteStatement& insert = (*statements_)[kInsertCommit];
  insert.Bind(1, record.table);
  insert.Bind(2, record.version);
  insert.Bind(3, record.staged_file);
  insert.Bind(4, record.content_sha256);
  insert.Bind(5, record.size);
  insert.Bind(6, record.ratified_at_ms);
  insert.Bind(7, record.commit_timestamp_ms);
  return insert.Run();
}

// Inside BEGIN IMMEDIATE: no other connection writes between the check of
// latest and the insert.
Status SqliteStateStore::RatifyInTransaction(const CommitRecord& record,
                                             RatifyConflict* conflict) {
  DC_ASSIGN_OR_RETURN(std::optional<TableState> state,
                      ReadTableState(record.table));
  if (state && record.version <= state->latest) {
    DC_ASSIGN_OR_RETURN(std::optional<CommitRecord> existing,
                        ReadRecord(record.table, record.version, *state));
    return VersionTaken(record, state->latest, std::move(existing), conflict);
  }
  if (state && record.version != state->latest + 1) {
    return NotNextVersion(record, state->latest, conflict);
  }
  DC_RETURN_IF_ERROR(InsertRecord(record));
  for (const AppTxn& txn : record.app_txns) {
    SqliteStatement& upsert = (*statements_)[kUpsertAppTxn];
    upsert.Bind(1, record.table);
    upsert.Bind(2, txn.app_id);
    upsert.Bind(3, txn.txn_version);
    upsert.Bind(4, record.version);
    DC_RETURN_IF_ERROR(upsert.Run());
  }
  SqliteStatement& update = (*statements_)[state ? kSetLatest : kInsertTable];
  update.Bind(1, record.table);
  update.Bind(2, record.version);
  return update.Run();
}

Status SqliteStateStore::Ratify(const CommitRecord& record,
                                RatifyConflict* conflict) {
  DC_RETURN_IF_ERROR(ValidateCommitRecord(record));
  std::lock_guard lock(mu_);
  return InTransaction(true,
                       [&] { return RatifyInTransaction(record, conflict); });
}

StatusOr<std::optional<CommitRecord>> SqliteStateStore::Get(
    const std::string& table, Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::optional<CommitRecord>> {
    DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
    if (!state) return std::optional<CommitRecord>();
    return ReadRecord(table, version, *state);
  });
}

StatusOr<std::optional<CommitRecord>> SqliteStateStore::Latest(
    const std::string& table) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::optional<CommitRecord>> {
    DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
    if (!state) return std::optional<CommitRecord>();
    DC_ASSIGN_OR_RETURN(std::optional<CommitRecord> record,
                        ReadRecord(table, state->latest, *state));
    if (!record) {
      return DataLossError(Describe() + ": the record of " + table +
                           "'s latest version " +
                           std::to_string(state->latest) + " is missing");
    }
    return record;
  });
}

StatusOr<std::vector<CommitRecord>> SqliteStateStore::ListFrom(
    const std::string& table, Version start, int64_t limit) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, start));
  DC_RETURN_IF_ERROR(CheckStateLimit(limit));
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::vector<CommitRecord>> {
    DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
    if (!state) return std::vector<CommitRecord>();
    return ReadRecords(table, start, limit, *state);
  });
}

StatusOr<std::vector<CommitRecord>> SqliteStateStore::Unpublished(
    const std::string& table, int64_t limit) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  DC_RETURN_IF_ERROR(CheckStateLimit(limit));
  std::lock_guard lock(mu_);
  return InTransaction(false, [&]() -> StatusOr<std::vector<CommitRecord>> {
    DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
    if (!state) return std::vector<CommitRecord>();
    return ReadRecords(table, state->published_through + 1, limit, *state);
  });
}

Status SqliteStateStore::MarkInTransaction(const std::string& table,
                                           Version version) {
  DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
  if (!state) {
    return FailedPreconditionError(
        "cannot mark version " + std::to_string(version) + " of " + table +
        " published: the table has no ratified commits");
  }
  if (version > state->latest) {
    return FailedPreconditionError(
        "cannot mark version " + std::to_string(version) + " of " + table +
        " published: the latest ratified version is " +
        std::to_string(state->latest));
  }
  SqliteStatement& update = (*statements_)[kSetPublishedThrough];
  update.Bind(1, table);
  update.Bind(2, version);
  return update.Run();  // changes nothing when already at or above `version`
}

Status SqliteStateStore::MarkPublishedThrough(const std::string& table,
                                              Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&] { return MarkInTransaction(table, version); });
}

StatusOr<int64_t> SqliteStateStore::ForgetPublishedBefore(
    const std::string& table, Version version) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, version));
  std::lock_guard lock(mu_);
  return InTransaction(true, [&]() -> StatusOr<int64_t> {
    DC_ASSIGN_OR_RETURN(std::optional<TableState> state, ReadTableState(table));
    if (!state) return int64_t{0};
    // Only published records, and never the latest one.
    const Version bound =
        std::min({version, state->published_through + 1, state->latest});
    SqliteStatement& forget = (*statements_)[kForgetBefore];
    forget.Bind(1, table);
    forget.Bind(2, bound);
    DC_RETURN_IF_ERROR(forget.Run());
    return db_->Changes();
  });
}

StatusOr<std::optional<AppliedTxn>> SqliteStateStore::LatestAppTxn(
    const std::string& table, std::string_view app_id) {
  DC_RETURN_IF_ERROR(CheckStateArguments(table, 0));
  std::lock_guard lock(mu_);
  SqliteStatement& select = (*statements_)[kSelectAppTxn];
  ResetOnExit reset(select);
  select.Bind(1, table);
  select.Bind(2, app_id);
  DC_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<AppliedTxn>();
  return std::optional<AppliedTxn>(AppliedTxn{select.ColumnInt64(0), select.ColumnInt64(1)});
}

}  // namespace deltacommit::service
