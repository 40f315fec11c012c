// SqliteDb and SqliteStatement: a thin RAII layer over one sqlite3
// connection, whose errors are Statuses naming the database file.
//
// Error codes (from the SQLite result code and, for opens, errno):
//   kNotFound           the file or its directory does not exist
//   kPermissionDenied   the file or directory is not writable (SQLITE_PERM,
//                       SQLITE_READONLY, EACCES, EROFS)
//   kFailedPrecondition the file is not a SQLite database (SQLITE_NOTADB)
//   kDataLoss           the database is damaged (SQLITE_CORRUPT)
//   kResourceExhausted  the disk is full, or out of memory
//   kUnavailable        locked longer than the busy timeout; I/O errors
//   kInternal           anything else (misuse)
//
// Thread-safety: none; one thread at a time per SqliteDb (the connection is
// opened with SQLITE_OPEN_NOMUTEX: the owner serialises).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "deltacommit/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace deltacommit::service {

class SqliteDb;

// A prepared statement; reusable: Reset() before binding again.
class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, sqlite3_stmt* statement)
      : db_(&db), statement_(statement) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  SqliteStatement(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // 1-based parameter index. A bind error is kept and returned by Step().
  void Bind(int index, int64_t value);
  void Bind(int index, std::string_view value);
  // True when a row is ready, false when the statement is done.
  StatusOr<bool> Step();
  // Steps a statement that returns no rows, then resets it.
  Status Run();
  // 0-based column index of the current row.
  int64_t ColumnInt64(int index) const;
  std::string ColumnText(int index) const;
  // Resets and clears the bindings; the statement is reused.
  void Reset();

 private:
  SqliteDb* db_;
  sqlite3_stmt* statement_;
  int bind_error_ = 0;
};

// Resets a statement when it goes out of scope: a read left mid-result
// would keep its transaction (and an old snapshot) open.
class ResetOnExit {
 public:
  explicit ResetOnExit(SqliteStatement& statement) : statement_(statement) {}
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;
  ~ResetOnExit() { statement_.Reset(); }

 private:
  SqliteStatement& statement_;
};

// What a COMMIT that answered `status` means for the caller: an I/O error
// while committing a write may leave the transaction's frames in the WAL, to
// be recovered at the next open, so the write's outcome is unknown
// (kUnknownOutcome, "read back"); any other status is itself.
Status SqliteCommitOutcome(Status status, bool write);

class SqliteDb {
 public:
  // Opens (creating if absent) the database file at `path` for reading and
  // writing, with `busy_timeout_ms` to wait for other connections' locks.
  static StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                  int busy_timeout_ms);
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  // Runs `sql` (one or more statements without rows).
  Status Exec(const char* sql);
  StatusOr<SqliteStatement> Prepare(const char* sql);
  // The single value of a one-row, one-column query (e.g. a PRAGMA).
  StatusOr<std::string> QueryText(const char* sql);
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t Changes() const;

  // The Status for result code `rc` of this connection, while `doing`
  // (e.g. "ratify version 7 of s3://b/t").
  Status Error(int rc, std::string_view doing) const;
  const std::string& path() const { return path_; }
  int busy_timeout_ms() const { return busy_timeout_ms_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status OpenError(int rc, int sys_errno) const;

  sqlite3* db_;
  std::string path_;
  int busy_timeout_ms_ = 0;
};

}  // namespace deltacommit::service
