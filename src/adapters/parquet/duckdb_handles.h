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
#include <string>
#include <string_view>

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
};

}  // namespace deltacommit
