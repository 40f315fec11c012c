// Private to deltacommit_parquet: the DuckDB table function a checkpoint is
// written from. `__dc_checkpoint_rows(id)` yields the rows of the write in
// progress registered under `id`, filled from its actions straight into
// the function's output chunks (checkpoint_chunks.h), so that
//   COPY (SELECT * FROM __dc_checkpoint_rows(id)) TO '<file>' (FORMAT parquet)
// hands them to DuckDB's Parquet writer with no table in between (filling
// a temp table with DuckDB's appender and copying that took twice as long;
// docs/benchmarks.md).
//
// Thread-safety: CheckpointScans is safe for concurrent use; a
// CheckpointScan serves the one query of its write.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/parquet/checkpoint_vectors.h"
#include "adapters/parquet/duckdb_api.h"
#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit::parquet_internal {

inline constexpr char kCheckpointRowsFunction[] = "__dc_checkpoint_rows";

// The rows of one write: the checkpoint's columns and its actions.
class CheckpointScan {
 public:
  struct Column {
    std::string_view name;
    std::string type;  // a DuckDB type, as SQL writes it
  };
  // Reads the columns' logical types from DuckDB on `connection` (a query
  // of no rows). `actions` must outlive this object. kInternal if DuckDB
  // refuses a type.
  static StatusOr<std::unique_ptr<CheckpointScan>> Make(duckdb_connection connection,
                                                        const std::vector<Column>& columns,
                                                        std::span<const Action> actions);
  ~CheckpointScan();
  CheckpointScan(const CheckpointScan&) = delete;
  CheckpointScan& operator=(const CheckpointScan&) = delete;

  // The first error filling the rows: DuckDB's failed query carries its
  // message but not its code.
  const Status& status() const { return status_; }

 private:
  friend class CheckpointScans;
  explicit CheckpointScan(std::span<const Action> actions) : actions_(actions) {}

  std::vector<std::string> names_;
  std::vector<duckdb_logical_type> types_;  // owned
  std::vector<FieldType> described_;
  std::span<const Action> actions_;
  Status status_;
};

// The writes in progress, by id, for the table function to find.
class CheckpointScans {
 public:
  // Registers the table function in the database of `connection`; its
  // calls find their writes in this object, which must outlive the
  // database. kInternal if DuckDB refuses.
  Status Register(duckdb_connection connection);

  // `scan` is the rows of __dc_checkpoint_rows(id()) while this lives.
  class Registration {
   public:
    Registration(CheckpointScans& scans, CheckpointScan& scan);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    int64_t id() const { return id_; }

   private:
    CheckpointScans& scans_;
    int64_t id_;
  };

 private:
  static void Bind(duckdb_bind_info info);
  static void Init(duckdb_init_info info);
  static void Fill(duckdb_function_info info, duckdb_data_chunk output);
  CheckpointScan* Find(int64_t id);

  std::mutex mu_;
  std::map<int64_t, CheckpointScan*> scans_;  // guarded by mu_
  int64_t next_id_ = 1;                       // guarded by mu_
};

}  // namespace deltacommit::parquet_internal
