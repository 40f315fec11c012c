// DuckDB's C API, loaded on first use.
//
// The project does not link libduckdb.so: loading it (62 MB, thousands of
// relocations) costs ~5 ms at the start of every program that links it,
// whether or not it then reads Parquet (docs/benchmarks.md, "CLI
// start-up"). Each DuckDB function the Parquet adapter calls is instead an
// object of the same name in namespace deltacommit that calls DuckDB's
// function through a table filled by dlopen/dlsym, once per process, the
// first time one is called (or LoadDuckDb() is). Code in namespace
// deltacommit that writes `duckdb_open(...)` finds that object before
// DuckDB's declaration in the global namespace; and since nothing links
// DuckDB, a function missing from DC_DUCKDB_FUNCTIONS fails the link
// rather than the run.
//
// Thread-safety: safe; the table is filled once, under std::call_once.
#pragma once

#include <duckdb.h>

#include <atomic>
#include <cstddef>

#include "deltacommit/status.h"

// Every function of DuckDB's C API the project calls.
#define DC_DUCKDB_FUNCTIONS(X)               \
  X(duckdb_append_bool)                      \
  X(duckdb_append_double)                    \
  X(duckdb_append_int64)                     \
  X(duckdb_append_null)                      \
  X(duckdb_append_timestamp)                 \
  X(duckdb_append_varchar_length)            \
  X(duckdb_appender_close)                   \
  X(duckdb_appender_create_ext)              \
  X(duckdb_appender_destroy)                 \
  X(duckdb_appender_end_row)                 \
  X(duckdb_appender_error)                   \
  X(duckdb_bind_add_result_column)           \
  X(duckdb_bind_get_extra_info)              \
  X(duckdb_bind_get_parameter)               \
  X(duckdb_bind_set_bind_data)               \
  X(duckdb_bind_set_error)                   \
  X(duckdb_bind_varchar)                     \
  X(duckdb_close)                            \
  X(duckdb_column_count)                     \
  X(duckdb_column_logical_type)              \
  X(duckdb_column_name)                      \
  X(duckdb_column_type)                      \
  X(duckdb_connect)                          \
  X(duckdb_create_config)                    \
  X(duckdb_create_logical_type)              \
  X(duckdb_create_scalar_function)           \
  X(duckdb_create_table_function)            \
  X(duckdb_data_chunk_get_size)              \
  X(duckdb_data_chunk_get_vector)            \
  X(duckdb_data_chunk_set_size)              \
  X(duckdb_destroy_config)                   \
  X(duckdb_destroy_data_chunk)               \
  X(duckdb_destroy_extracted)                \
  X(duckdb_destroy_logical_type)             \
  X(duckdb_destroy_pending)                  \
  X(duckdb_destroy_prepare)                  \
  X(duckdb_destroy_result)                   \
  X(duckdb_destroy_scalar_function)          \
  X(duckdb_destroy_table_function)           \
  X(duckdb_destroy_value)                    \
  X(duckdb_disconnect)                       \
  X(duckdb_execute_pending)                  \
  X(duckdb_execute_prepared)                 \
  X(duckdb_extract_statements)               \
  X(duckdb_extract_statements_error)         \
  X(duckdb_fetch_chunk)                      \
  X(duckdb_free)                             \
  X(duckdb_function_get_bind_data)           \
  X(duckdb_function_get_init_data)           \
  X(duckdb_function_set_error)               \
  X(duckdb_get_int64)                        \
  X(duckdb_get_type_id)                      \
  X(duckdb_init_get_bind_data)               \
  X(duckdb_init_set_init_data)               \
  X(duckdb_init_set_max_threads)             \
  X(duckdb_list_type_child_type)             \
  X(duckdb_list_vector_get_child)            \
  X(duckdb_list_vector_get_size)             \
  X(duckdb_list_vector_reserve)              \
  X(duckdb_list_vector_set_size)             \
  X(duckdb_logical_type_set_alias)           \
  X(duckdb_map_type_key_type)                \
  X(duckdb_map_type_value_type)              \
  X(duckdb_open)                             \
  X(duckdb_open_ext)                         \
  X(duckdb_pending_error)                    \
  X(duckdb_pending_prepared_streaming)       \
  X(duckdb_prepare)                          \
  X(duckdb_prepare_error)                    \
  X(duckdb_prepare_extracted_statement)      \
  X(duckdb_prepared_statement_type)          \
  X(duckdb_query)                            \
  X(duckdb_query_progress)                   \
  X(duckdb_register_scalar_function)         \
  X(duckdb_register_table_function)          \
  X(duckdb_result_error)                     \
  X(duckdb_row_count)                        \
  X(duckdb_scalar_function_add_parameter)    \
  X(duckdb_scalar_function_set_error)        \
  X(duckdb_scalar_function_set_function)     \
  X(duckdb_scalar_function_set_name)         \
  X(duckdb_scalar_function_set_return_type)  \
  X(duckdb_set_config)                       \
  X(duckdb_string_t_data)                    \
  X(duckdb_string_t_length)                  \
  X(duckdb_struct_type_child_count)          \
  X(duckdb_struct_type_child_name)           \
  X(duckdb_struct_type_child_type)           \
  X(duckdb_struct_vector_get_child)          \
  X(duckdb_table_function_add_parameter)     \
  X(duckdb_table_function_set_bind)          \
  X(duckdb_table_function_set_extra_info)    \
  X(duckdb_table_function_set_function)      \
  X(duckdb_table_function_set_init)          \
  X(duckdb_table_function_set_name)          \
  X(duckdb_validity_row_is_valid)            \
  X(duckdb_validity_set_row_invalid)         \
  X(duckdb_validity_set_row_validity)        \
  X(duckdb_value_is_null)                    \
  X(duckdb_value_varchar)                    \
  X(duckdb_vector_assign_string_element_len) \
  X(duckdb_vector_ensure_validity_writable)  \
  X(duckdb_vector_get_data)                  \
  X(duckdb_vector_get_validity)              \
  X(duckdb_vector_size)

namespace deltacommit {

// Loads libduckdb.so from the library search path (the RUNPATH of the
// program or module calling it, which the build sets to DuckDB's folder;
// LD_LIBRARY_PATH) and resolves every function of DC_DUCKDB_FUNCTIONS, once
// per process; later calls return the first call's result. kUnavailable
// naming the library and the loader's reason when it cannot: commands that
// read or write Parquet then fail with it, the others never load DuckDB.
Status LoadDuckDb();

namespace duckdb_api {

enum Function : size_t {
#define DC_DUCKDB_ENUM(name) k_##name,
  DC_DUCKDB_FUNCTIONS(DC_DUCKDB_ENUM)
#undef DC_DUCKDB_ENUM
      kFunctionCount
};

using AnyFunction = void (*)();
// Filled by LoadDuckDb(); read only after `loaded` is seen true.
extern AnyFunction functions[kFunctionCount];
extern std::atomic<bool> loaded;
// LoadDuckDb() for a call made before anything checked its Status: aborts
// with its error when DuckDB cannot be loaded (the adapter's entry points,
// Database::Open, check it first, so this is a defect of ours, not input).
void LoadOrAbort();

template <Function F, typename Signature>
struct Lazy;
template <Function F, typename R, typename... Args>
struct Lazy<F, R (*)(Args...)> {
  R operator()(Args... args) const {
    if (!loaded.load(std::memory_order_acquire)) LoadOrAbort();
    return reinterpret_cast<R (*)(Args...)>(functions[F])(args...);
  }
};

}  // namespace duckdb_api

#define DC_DUCKDB_LAZY(name) \
  inline constexpr duckdb_api::Lazy<duckdb_api::k_##name, decltype(&::name)> name{};
DC_DUCKDB_FUNCTIONS(DC_DUCKDB_LAZY)
#undef DC_DUCKDB_LAZY

}  // namespace deltacommit
