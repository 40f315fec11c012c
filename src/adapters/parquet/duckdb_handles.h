// Private to deltacommit_parquet: owners of DuckDB C API handles, a temp
// file and a memory file, and SQL quoting, shared by the checkpoint reader and writer.
//
// Thread-safety: each object serves one thread.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/parquet/checkpoint_scan.h"
#include "adapters/parquet/duckdb_api.h"
#include "adapters/parquet/data_sql.h"
#include "deltacommit/parquet/duckdb_parquet_handler.h"
#include "deltacommit/status.h"

namespace deltacommit::parquet_internal {

inline constexpr std::string_view kParquetMagic = "PAR1";

// A Parquet file starts and ends with "PAR1" (with a footer length between).
inline bool LooksLikeParquet(std::string_view bytes) {
  return bytes.size() >= 2 * kParquetMagic.size() + 4 &&
         bytes.starts_with(kParquetMagic) && bytes.ends_with(kParquetMagic);
}

// Owns a duckdb_connection.
class Connection {
 public:
  Connection() = default;
  ~Connection() {
    if (connection_ != nullptr) duckdb_disconnect(&connection_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  duckdb_connection* out() { return &connection_; }
  duckdb_connection get() const { return connection_; }

 private:
  duckdb_connection connection_ = nullptr;
};

// Owns a duckdb_result (destroyed whether the query succeeded or not).
class Result {
 public:
  Result() = default;
  ~Result() { duckdb_destroy_result(&result_); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  duckdb_result* out() { return &result_; }
  duckdb_result& get() { return result_; }

 private:
  duckdb_result result_{};
};

// A prepared query run with its result streamed: each duckdb_fetch_chunk
// runs the plan until its next chunk, so rows go from the Parquet reader to
// the caller without DuckDB first copying the whole result (as
// duckdb_query does: ~40% of the time of reading a checkpoint of 100,000
// rows). A failure while the chunks are fetched ends them early; Error()
// then says what it was.
class StreamedQuery {
 public:
  StreamedQuery() = default;
  ~StreamedQuery() {
    duckdb_destroy_result(&result_);
    duckdb_destroy_pending(&pending_);
  }
  StreamedQuery(const StreamedQuery&) = delete;
  StreamedQuery& operator=(const StreamedQuery&) = delete;

  // REQUIRES: `statement`'s parameters are bound; it outlives this object.
  // (DuckDB 1.4's duckdb.h marks duckdb_pending_prepared_streaming as to be
  // removed some day; .deps pins 1.4.4, and LoadDuckDb fails by name if a
  // later library lacks it.)
  // False when DuckDB fails before the first chunk (an unreadable file
  // fails here, as it binds).
  bool Start(duckdb_prepared_statement statement) {
    if (duckdb_pending_prepared_streaming(statement, &pending_) != DuckDBSuccess) {
      error_ = data_internal::ErrorText(duckdb_pending_error(pending_));
      return false;
    }
    if (duckdb_execute_pending(pending_, &result_) != DuckDBSuccess) {
      error_ = data_internal::ErrorText(duckdb_result_error(&result_));
      return false;
    }
    return true;
  }

  duckdb_result& result() { return result_; }
  // Why the query failed, to start or while its chunks were fetched; empty
  // while it has not.
  std::string Error() {
    if (!error_.empty()) return error_;
    const char* error = duckdb_result_error(&result_);
    return error != nullptr ? error : "";
  }

 private:
  duckdb_pending_result pending_ = nullptr;
  duckdb_result result_{};
  std::string error_;
};

// Connections to the handler's database, each with the query that reads a
// whole Parquet file prepared on it (the file's path its one parameter),
// kept between reads. A read binds a path and runs, without connecting or
// parsing SQL first (~0.15 ms of a small checkpoint's ~2 ms). DuckDB binds
// and plans the query anew at each run, as the file is its parameter, so
// files of any schema share one statement.
class ParquetReads {
 public:
  struct Reader {
    Connection connection;
    data_internal::Prepared statement;  // declared last: destroyed first
  };

  // An idle reader, or a new one; kInternal if DuckDB refuses.
  StatusOr<std::unique_ptr<Reader>> Take(duckdb_database db) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<Reader> reader = std::move(idle_.back());
        idle_.pop_back();
        return reader;
      }
    }
    auto reader = std::make_unique<Reader>();
    if (duckdb_connect(db, reader->connection.out()) != DuckDBSuccess) {
      return InternalError("duckdb: cannot connect to the in-memory database");
    }
    if (duckdb_prepare(reader->connection.get(), "SELECT * FROM read_parquet($1)",
                       &reader->statement.handle) != DuckDBSuccess) {
      return InternalError("duckdb: cannot prepare the Parquet read: " +
                           data_internal::ErrorText(duckdb_prepare_error(reader->statement.handle)));
    }
    return reader;
  }

  // Keeps `reader` for the next read. Only readers whose last read
  // succeeded come back.
  void Give(std::unique_ptr<Reader> reader) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(reader));
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<Reader>> idle_;
};

// A file under $TMPDIR (else /tmp) holding given bytes, removed on
// destruction.
class TempFile {
 public:
  TempFile() = default;
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // kInternal naming the path and errno on failure.
  Status Write(std::string_view bytes) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = (dir != nullptr && *dir != '\0') ? dir : "/tmp";
    pattern += "/deltacommit-checkpoint-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) return Failure("mkstemp", pattern, errno);
    path_ = pattern;
    Status status = WriteAll(fd, bytes);
    if (::close(fd) != 0 && status.ok())
      status = Failure("close", path_, errno);
    return status;
  }

  const std::string& path() const { return path_; }

  // The file's bytes now (after DuckDB wrote it). kInternal if unreadable.
  StatusOr<std::string> Read() const {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return Failure("open", path_, errno);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  static Status Failure(std::string_view call, const std::string& path,
                        int error) {
    return InternalError(std::string(call) + " " + path + ": " +
                         std::strerror(error));
  }

  Status WriteAll(int fd, std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return Failure("write", path_, errno);
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return OkStatus();
  }

  std::string path_;
};

// Bytes DuckDB reads by path without a disk write: an anonymous memory file
// (memfd_create(2)), named /proc/self/fd/<fd>, closed on destruction. A
// checkpoint read uses it before falling back to a TempFile (a kernel
// without memfd, no /proc).
class MemoryFile {
 public:
  MemoryFile() = default;
  ~MemoryFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  // False when no memory file can be had here; the caller uses a TempFile.
  bool Write(std::string_view bytes) {
    fd_ = ::memfd_create("deltacommit-checkpoint", MFD_CLOEXEC);
    if (fd_ < 0) return false;
    path_ = "/proc/self/fd/" + std::to_string(fd_);
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return ::access(path_.c_str(), R_OK) == 0;
  }

  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

using data_internal::SqlString;  // a SQL string literal

}  // namespace deltacommit::parquet_internal

namespace deltacommit {

// The shared in-memory database (closed with the handler), opened like the
// data-file adapter's: one place turns extension auto-install/load off.
struct DuckDbParquetHandler::Database {
  // First, so that it outlives the database, whose table function uses it.
  parquet_internal::CheckpointScans scans;
  std::unique_ptr<data_internal::Database> opened;
  // Last, so that its connections close before the database.
  parquet_internal::ParquetReads reads;
};

}  // namespace deltacommit
