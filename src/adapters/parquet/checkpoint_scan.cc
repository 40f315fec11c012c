#include "adapters/parquet/checkpoint_scan.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adapters/parquet/checkpoint_chunks.h"
#include "adapters/parquet/duckdb_handles.h"

namespace deltacommit::parquet_internal {

StatusOr<std::unique_ptr<CheckpointScan>> CheckpointScan::Make(duckdb_connection connection,
                                                               const std::vector<Column>& columns,
                                                               std::span<const Action> actions) {
  std::string sql = "SELECT ";
  for (const Column& c : columns) {
    if (&c != &columns.front()) sql += ", ";
    sql += "CAST(NULL AS " + c.type + ") AS " + data_internal::SqlIdent(c.name);
  }
  sql += " LIMIT 0";
  Result result;
  if (duckdb_query(connection, sql.c_str(), result.out()) != DuckDBSuccess) {
    const char* error = duckdb_result_error(result.out());
    return InternalError(std::string("DuckDB refuses the checkpoint schema: ") +
                         (error != nullptr ? error : "unknown error"));
  }
  std::unique_ptr<CheckpointScan> scan(new CheckpointScan(actions));
  for (idx_t c = 0; c < columns.size(); ++c) {
    scan->names_.emplace_back(columns[c].name);
    scan->types_.push_back(duckdb_column_logical_type(result.out(), c));
    scan->described_.push_back(DescribeColumn(scan->names_.back(), scan->types_.back()));
  }
  return scan;
}

CheckpointScan::~CheckpointScan() {
  for (duckdb_logical_type& type : types_) duckdb_destroy_logical_type(&type);
}

Status CheckpointScans::Register(duckdb_connection connection) {
  duckdb_table_function function = duckdb_create_table_function();
  duckdb_table_function_set_name(function, kCheckpointRowsFunction);
  duckdb_logical_type id = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_table_function_add_parameter(function, id);
  duckdb_destroy_logical_type(&id);
  duckdb_table_function_set_extra_info(function, this, nullptr);
  duckdb_table_function_set_bind(function, &Bind);
  duckdb_table_function_set_init(function, &Init);
  duckdb_table_function_set_function(function, &Fill);
  const duckdb_state registered = duckdb_register_table_function(connection, function);
  duckdb_destroy_table_function(&function);
  if (registered != DuckDBSuccess) {
    return InternalError(std::string("DuckDB refuses the table function ") +
                         kCheckpointRowsFunction);
  }
  return OkStatus();
}

CheckpointScans::Registration::Registration(CheckpointScans& scans, CheckpointScan& scan)
    : scans_(scans) {
  std::lock_guard<std::mutex> lock(scans_.mu_);
  id_ = scans_.next_id_++;
  scans_.scans_[id_] = &scan;
}

CheckpointScans::Registration::~Registration() {
  std::lock_guard<std::mutex> lock(scans_.mu_);
  scans_.scans_.erase(id_);
}

CheckpointScan* CheckpointScans::Find(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scans_.find(id);
  return it == scans_.end() ? nullptr : it->second;
}

// The callbacks run on DuckDB's threads, within the query of the write.

void CheckpointScans::Bind(duckdb_bind_info info) {
  auto* scans = static_cast<CheckpointScans*>(duckdb_bind_get_extra_info(info));
  duckdb_value parameter = duckdb_bind_get_parameter(info, 0);
  const int64_t id = duckdb_get_int64(parameter);
  duckdb_destroy_value(&parameter);
  CheckpointScan* scan = scans->Find(id);
  if (scan == nullptr) {
    const std::string error = "no checkpoint write in progress has id " + std::to_string(id);
    duckdb_bind_set_error(info, error.c_str());
    return;
  }
  for (size_t c = 0; c < scan->names_.size(); ++c) {
    duckdb_bind_add_result_column(info, scan->names_[c].c_str(), scan->types_[c]);
  }
  duckdb_bind_set_bind_data(info, scan, nullptr);
}

void CheckpointScans::Init(duckdb_init_info info) {
  auto* scan = static_cast<CheckpointScan*>(duckdb_init_get_bind_data(info));
  // One thread: the rows keep the actions' order.
  duckdb_init_set_max_threads(info, 1);
  duckdb_init_set_init_data(
      info, new CheckpointChunkWriter(scan->described_, scan->actions_),
      [](void* writer) { delete static_cast<CheckpointChunkWriter*>(writer); });
}

void CheckpointScans::Fill(duckdb_function_info info, duckdb_data_chunk output) {
  auto* scan = static_cast<CheckpointScan*>(duckdb_function_get_bind_data(info));
  auto* writer = static_cast<CheckpointChunkWriter*>(duckdb_function_get_init_data(info));
  StatusOr<idx_t> rows = writer->FillNext(output);
  if (rows.ok()) return;
  if (scan->status_.ok()) scan->status_ = rows.status();
  duckdb_data_chunk_set_size(output, 0);
  duckdb_function_set_error(info, rows.status().message().c_str());
}

}  // namespace deltacommit::parquet_internal
