#include "service/state/sqlite_db.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace deltacommit::service {
namespace {

StatusCode CodeForOpenErrno(int sys_errno) {
  switch (sys_errno) {
    case ENOENT:
      return StatusCode::kNotFound;
    case EACCES:
    case EPERM:
    case EROFS:
      return StatusCode::kPermissionDenied;
    case EISDIR:
    case ENOTDIR:
      return StatusCode::kFailedPrecondition;
    default:
      return StatusCode::kUnavailable;
  }
}

StatusCode CodeFor(int rc, int sys_errno) {
  switch (rc & 0xff) {
    case SQLITE_CANTOPEN:
      return CodeForOpenErrno(sys_errno);
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return StatusCode::kPermissionDenied;
    case SQLITE_NOTADB:
      return StatusCode::kFailedPrecondition;
    case SQLITE_CORRUPT:
      return StatusCode::kDataLoss;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      return StatusCode::kResourceExhausted;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
      return StatusCode::kUnavailable;
    default:
      return StatusCode::kInternal;
  }
}

// What an operator can do about `code`.
const char* HintFor(StatusCode code) {
  switch (code) {
    case StatusCode::kNotFound:
      return "; create the directory or choose another path";
    case StatusCode::kPermissionDenied:
      return "; the service needs write access to the file and to its "
             "directory (SQLite "
             "creates <file>-wal and <file>-shm beside it)";
    case StatusCode::kFailedPrecondition:
      return "; it is not a deltacommit state store: choose another path";
    case StatusCode::kDataLoss:
      return "; the file is damaged: restore it from a backup";
    case StatusCode::kUnavailable:
      return "; another process may hold the database locked, or the disk "
             "failed";
    default:
      return "";
  }
}

// SQLite says only "unable to open database file" for a missing directory.
Status CheckDirectory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) return OkStatus();  // the working directory
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(dir, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return NotFoundError("SQLite file " + path + ": directory " + dir.string() +
                         " does not exist; create it or choose another path");
  }
  if (!ec && status.type() != std::filesystem::file_type::directory) {
    return FailedPreconditionError("SQLite file " + path + ": " + dir.string() +
                                   " is not a directory");
  }
  return OkStatus();  // other problems are SQLite's to report
}

}  // namespace

// Refused a new file in an existing directory, SQLite retries read-only and
// reports that attempt's ENOENT, which would read as "no directory".
Status SqliteDb::OpenError(int rc, int sys_errno) const {
  std::error_code ec;
  if ((rc & 0xff) == SQLITE_CANTOPEN && sys_errno == ENOENT &&
      !std::filesystem::exists(path_, ec)) {
    std::string dir = std::filesystem::path(path_).parent_path().string();
    return PermissionDeniedError(
        "SQLite file " + path_ + ": cannot create it in directory " +
        (dir.empty() ? "." : dir) + HintFor(StatusCode::kPermissionDenied));
  }
  return Error(rc, "opening");
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      statement_(other.statement_),
      bind_error_(other.bind_error_) {
  other.statement_ = nullptr;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

void SqliteStatement::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(statement_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

void SqliteStatement::Bind(int index, std::string_view value) {
  int rc = sqlite3_bind_text64(statement_, index, value.data(), value.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

StatusOr<bool> SqliteStatement::Step() {
  if (bind_error_ != 0) return db_->Error(bind_error_, "binding a parameter");
  int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sqlite3_sql(statement_));
}

Status SqliteStatement::Run() {
  StatusOr<bool> row = Step();
  Reset();
  return row.ok() ? OkStatus() : row.status();
}

int64_t SqliteStatement::ColumnInt64(int index) const {
  return sqlite3_column_int64(statement_, index);
}

std::string SqliteStatement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(statement_, index);
  if (text == nullptr) return "";
  return std::string(
      reinterpret_cast<const char*>(text),
      static_cast<size_t>(sqlite3_column_bytes(statement_, index)));
}

void SqliteStatement::Reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
  bind_error_ = 0;
}

StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                   int busy_timeout_ms) {
  DC_RETURN_IF_ERROR(CheckDirectory(path));
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &raw,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  // SQLite returns a handle even when opening fails; it must be closed.
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path));
  if (rc != SQLITE_OK) return db->OpenError(rc, sqlite3_system_errno(raw));
  sqlite3_extended_result_codes(raw, 1);
  // A write-protected file is opened read-only without an error.
  if (sqlite3_db_readonly(raw, "main") == 1) {
    return PermissionDeniedError("SQLite file " + path + ": opened read-only" +
                                 HintFor(StatusCode::kPermissionDenied));
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  db->busy_timeout_ms_ = busy_timeout_ms;
  return db;
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

Status SqliteDb::Exec(const char* sql) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? OkStatus() : Error(rc, sql);
}

StatusOr<SqliteStatement> SqliteDb::Prepare(const char* sql) {
  sqlite3_stmt* statement = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT,
                              &statement, nullptr);
  if (rc != SQLITE_OK) return Error(rc, std::string("preparing ") + sql);
  return SqliteStatement(*this, statement);
}

StatusOr<std::string> SqliteDb::QueryText(const char* sql) {
  DC_ASSIGN_OR_RETURN(SqliteStatement statement, Prepare(sql));
  DC_ASSIGN_OR_RETURN(bool row, statement.Step());
  if (!row)
    return InternalError("SQLite file " + path_ + ": " + sql +
                         " returned no row");
  return statement.ColumnText(0);
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

Status SqliteDb::Error(int rc, std::string_view doing) const {
  // errno is the last OS error of the connection, which may be an earlier,
  // expected one (SQLite probes for journals): trust it only for these.
  const int primary = rc & 0xff;
  const bool os_error = primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR;
  int sys_errno = db_ == nullptr || !os_error ? 0 : sqlite3_system_errno(db_);
  std::string detail =
      db_ == nullptr ? sqlite3_errstr(rc) : sqlite3_errmsg(db_);
  if (sys_errno != 0)
    detail += std::string(" (") + std::strerror(sys_errno) + ")";
  StatusCode code = CodeFor(rc, sys_errno);
  return Status(code, "SQLite file " + path_ + ": " + std::string(doing) +
                          ": " + detail + HintFor(code));
}

Status SqliteCommitOutcome(Status status, bool write) {
  if (write && status.code() == StatusCode::kUnavailable) {
    return UnknownOutcomeError(status.message() +
                               "; the write may have been applied: read back");
  }
  return status;
}

}  // namespace deltacommit::service
