#include "adapters/parquet/data_sql.h"

#include "adapters/parquet/duckdb_handles.h"
#include "deltacommit/parquet/variant_json.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace deltacommit::data_internal {
namespace {

using parquet_internal::Result;

Status Failed(std::string_view what, duckdb_result* result) {
  const char* error = duckdb_result_error(result);
  // DuckDB's messages on bad input data name the value and the file; ours
  // name the operation in front.
  return InvalidArgumentError(std::string(what) + ": " + ErrorText(error));
}

std::string_view StringOf(duckdb_string_t* s) {
  return {duckdb_string_t_data(s), duckdb_string_t_length(*s)};
}

// kVariantJsonFunction: rows with a NULL argument give NULL; a malformed
// variant fails the query.
void VariantJson(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) {
  const idx_t rows = duckdb_data_chunk_get_size(input);
  const duckdb_vector value_vector = duckdb_data_chunk_get_vector(input, 0);
  const duckdb_vector metadata_vector = duckdb_data_chunk_get_vector(input, 1);
  auto* values = static_cast<duckdb_string_t*>(duckdb_vector_get_data(value_vector));
  auto* metadata = static_cast<duckdb_string_t*>(duckdb_vector_get_data(metadata_vector));
  uint64_t* values_valid = duckdb_vector_get_validity(value_vector);
  uint64_t* metadata_valid = duckdb_vector_get_validity(metadata_vector);
  duckdb_vector_ensure_validity_writable(output);
  uint64_t* out_valid = duckdb_vector_get_validity(output);
  for (idx_t row = 0; row < rows; ++row) {
    if (!duckdb_validity_row_is_valid(values_valid, row) ||
        !duckdb_validity_row_is_valid(metadata_valid, row)) {
      duckdb_validity_set_row_invalid(out_valid, row);
      continue;
    }
    StatusOr<std::string> json = VariantToJson(StringOf(&values[row]), StringOf(&metadata[row]));
    if (!json.ok()) {
      duckdb_scalar_function_set_error(info, json.status().message().c_str());
      return;
    }
    duckdb_vector_assign_string_element_len(output, row, json->data(), json->size());
  }
}

// Registers kVariantJsonFunction in the database of `connection` (every
// connection to it sees it).
Status RegisterVariantJsonFunction(duckdb_connection connection) {
  duckdb_scalar_function function = duckdb_create_scalar_function();
  duckdb_scalar_function_set_name(function, kVariantJsonFunction);
  duckdb_logical_type blob = duckdb_create_logical_type(DUCKDB_TYPE_BLOB);
  duckdb_scalar_function_add_parameter(function, blob);
  duckdb_scalar_function_add_parameter(function, blob);
  duckdb_destroy_logical_type(&blob);
  duckdb_logical_type json = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_logical_type_set_alias(json, "JSON");
  duckdb_scalar_function_set_return_type(function, json);
  duckdb_destroy_logical_type(&json);
  duckdb_scalar_function_set_function(function, VariantJson);
  const duckdb_state state = duckdb_register_scalar_function(connection, function);
  duckdb_destroy_scalar_function(&function);
  if (state != DuckDBSuccess) {
    return InternalError(std::string("duckdb: cannot register ") + kVariantJsonFunction);
  }
  return OkStatus();
}


}  // namespace

StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& memory_limit,
                                                   const std::string& temp_directory) {
  DC_RETURN_IF_ERROR(LoadDuckDb());  // every DuckDB call starts with a database
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) != DuckDBSuccess) {
    return InternalError("duckdb: cannot create a configuration");
  }
  // Nothing may be downloaded at run time: Parquet, CSV and JSON are built
  // in, and a file needing another extension must fail instead.
  std::vector<std::pair<const char*, std::string>> settings = {
      {"autoinstall_known_extensions", "false"}, {"autoload_known_extensions", "false"}};
  if (!memory_limit.empty()) settings.emplace_back("memory_limit", memory_limit);
  if (!temp_directory.empty()) settings.emplace_back("temp_directory", temp_directory);
  for (const auto& [name, value] : settings) {
    if (duckdb_set_config(config, name, value.c_str()) != DuckDBSuccess) {
      duckdb_destroy_config(&config);
      return InvalidArgumentError(std::string("duckdb refuses the setting ") + name + " = \"" +
                                  value + "\"");
    }
  }
  std::unique_ptr<Database> db(new Database());
  char* error = nullptr;
  const bool opened = duckdb_open_ext(nullptr, &db->db_, config, &error) == DuckDBSuccess;
  duckdb_destroy_config(&config);
  if (!opened) {
    std::string message = "duckdb: cannot open an in-memory database";
    if (error != nullptr) message += std::string(": ") + error;
    duckdb_free(error);
    return InternalError(std::move(message));
  }
  // Functions of ours, seen by every connection to the database.
  duckdb_connection connection = nullptr;
  if (duckdb_connect(db->db_, &connection) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  const Status registered = RegisterVariantJsonFunction(connection);
  duckdb_disconnect(&connection);
  DC_RETURN_IF_ERROR(registered);
  return db;
}

Database::~Database() {
  if (db_ != nullptr) duckdb_close(&db_);
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const Database& db) {
  std::unique_ptr<Connection> c(new Connection());
  if (duckdb_connect(db.get(), &c->connection_) != DuckDBSuccess) {
    return InternalError("duckdb: cannot connect to the in-memory database");
  }
  DC_RETURN_IF_ERROR(c->Exec("SET TimeZone = 'UTC'", "duckdb: setting the time zone"));
  return c;
}

Connection::~Connection() {
  if (connection_ != nullptr) duckdb_disconnect(&connection_);
}

duckdb_state Connection::Run(const std::string& sql, duckdb_result* result,
                             const Progress& progress) {
  if (!progress.report) return duckdb_query(connection_, sql.c_str(), result);
  // DuckDB tracks progress only with its progress bar on; the bar itself
  // must not print (it would write to our stdout), so that goes off first.
  if (!progress_enabled_) {
    Result print, bar;
    progress_enabled_ =
        duckdb_query(connection_, "SET enable_progress_bar_print = false", print.out()) ==
            DuckDBSuccess &&
        duckdb_query(connection_, "SET enable_progress_bar = true", bar.out()) == DuckDBSuccess;
  }
  if (!progress_enabled_) return duckdb_query(connection_, sql.c_str(), result);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  duckdb_state state = DuckDBError;
  std::thread worker([&] {
    const duckdb_state s = duckdb_query(connection_, sql.c_str(), result);
    std::lock_guard<std::mutex> lock(mu);
    state = s;
    done = true;
    cv.notify_one();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return done; })) {
      const double percent = duckdb_query_progress(connection_).percentage;
      lock.unlock();
      progress.report(progress.stage, percent);
      lock.lock();
    }
  }
  worker.join();
  return state;
}

Status Connection::Exec(const std::string& sql, std::string_view what, const Progress& progress) {
  Result result;
  if (Run(sql, result.out(), progress) != DuckDBSuccess) return Failed(what, result.out());
  return OkStatus();
}

StatusOr<TextRows> Connection::Query(const std::string& sql, std::string_view what,
                                     const Progress& progress) {
  Result result;
  if (Run(sql, result.out(), progress) != DuckDBSuccess) {
    return Failed(what, result.out());
  }
  TextRows out;
  const idx_t columns = duckdb_column_count(result.out());
  for (idx_t c = 0; c < columns; ++c) {
    out.columns.emplace_back(duckdb_column_name(result.out(), c));
    out.types.push_back(duckdb_column_type(result.out(), c));
  }
  const idx_t rows = duckdb_row_count(result.out());
  out.rows.reserve(rows);
  for (idx_t r = 0; r < rows; ++r) {
    std::vector<std::optional<std::string>> row;
    row.reserve(columns);
    for (idx_t c = 0; c < columns; ++c) {
      if (duckdb_value_is_null(result.out(), c, r)) {
        row.emplace_back(std::nullopt);
        continue;
      }
      char* text = duckdb_value_varchar(result.out(), c, r);
      row.emplace_back(text != nullptr ? std::string(text) : std::string());
      duckdb_free(text);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

namespace {

// Owners of the statements DuckDB parsed from a text and of one prepared.
struct Extracted {
  duckdb_extracted_statements handle = nullptr;
  idx_t count = 0;
  ~Extracted() { duckdb_destroy_extracted(&handle); }
};
Status Extract(duckdb_connection connection, const std::string& sql, std::string_view what,
               Extracted& out) {
  out.count = duckdb_extract_statements(connection, sql.c_str(), &out.handle);
  if (out.count > 0) return OkStatus();
  const char* error = duckdb_extract_statements_error(out.handle);
  return InvalidArgumentError(std::string(what) + ": " +
                              (error != nullptr ? error : "no SQL statement"));
}

Status Prepare(duckdb_connection connection, Extracted& extracted, idx_t index,
               std::string_view what, Prepared& out) {
  if (duckdb_prepare_extracted_statement(connection, extracted.handle, index, &out.handle) ==
      DuckDBSuccess) {
    return OkStatus();
  }
  const char* error = duckdb_prepare_error(out.handle);
  return InvalidArgumentError(std::string(what) + ": " +
                              (error != nullptr ? error : "unknown DuckDB error"));
}

}  // namespace

StatusOr<bool> Connection::IsQuery(const std::string& statement, std::string_view what) {
  Extracted extracted;
  DC_RETURN_IF_ERROR(Extract(connection_, statement, what, extracted));
  // DuckDB rewrites some queries into several statements of its own (PIVOT
  // first creates an enum type), whose last one cannot be bound before the
  // first has run: those are queries.
  if (extracted.count > 1) return true;
  Prepared prepared;
  DC_RETURN_IF_ERROR(Prepare(connection_, extracted, 0, what, prepared));
  return duckdb_prepared_statement_type(prepared.handle) == DUCKDB_STATEMENT_TYPE_SELECT;
}

Status Connection::ExecStatement(const std::string& statement, std::string_view what) {
  Extracted extracted;
  DC_RETURN_IF_ERROR(Extract(connection_, statement, what, extracted));
  // Each is bound only after the one before it ran (it may need its table).
  for (idx_t i = 0; i < extracted.count; ++i) {
    Prepared prepared;
    DC_RETURN_IF_ERROR(Prepare(connection_, extracted, i, what, prepared));
    Result result;
    if (duckdb_execute_prepared(prepared.handle, result.out()) != DuckDBSuccess) {
      return Failed(what, result.out());
    }
  }
  return OkStatus();
}

StatusOr<std::vector<std::pair<int64_t, int64_t>>> Connection::QueryPairs(
    const std::string& statement, std::string_view what) {
  Extracted extracted;
  DC_RETURN_IF_ERROR(Extract(connection_, statement, what, extracted));
  // One statement only: the caller's text (a delete's condition) cannot
  // smuggle in another.
  if (extracted.count != 1) {
    return InvalidArgumentError(std::string(what) + ": one SQL expression expected, " +
                                std::to_string(extracted.count) + " statements found");
  }
  Prepared prepared;
  DC_RETURN_IF_ERROR(Prepare(connection_, extracted, 0, what, prepared));
  Result result;
  if (duckdb_execute_prepared(prepared.handle, result.out()) != DuckDBSuccess) {
    return Failed(what, result.out());
  }
  if (duckdb_column_count(result.out()) != 2 ||
      duckdb_column_type(result.out(), 0) != DUCKDB_TYPE_BIGINT ||
      duckdb_column_type(result.out(), 1) != DUCKDB_TYPE_BIGINT) {
    return InternalError(std::string(what) + ": the query does not give two BIGINT columns");
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  while (duckdb_data_chunk chunk = duckdb_fetch_chunk(*result.out())) {
    const idx_t size = duckdb_data_chunk_get_size(chunk);
    const duckdb_vector first = duckdb_data_chunk_get_vector(chunk, 0);
    const duckdb_vector second = duckdb_data_chunk_get_vector(chunk, 1);
    const auto* a = static_cast<const int64_t*>(duckdb_vector_get_data(first));
    const auto* b = static_cast<const int64_t*>(duckdb_vector_get_data(second));
    const uint64_t* a_valid = duckdb_vector_get_validity(first);
    const uint64_t* b_valid = duckdb_vector_get_validity(second);
    for (idx_t i = 0; i < size; ++i) {
      out.emplace_back(duckdb_validity_row_is_valid(const_cast<uint64_t*>(a_valid), i) ? a[i] : -1,
                       duckdb_validity_row_is_valid(const_cast<uint64_t*>(b_valid), i) ? b[i] : -1);
    }
    duckdb_destroy_data_chunk(&chunk);
  }
  return out;
}

namespace {

// DuckDB's appender on a temp table of a connection, destroyed with this;
// errors name the table, the step and DuckDB's message.
class Appender {
 public:
  Appender(duckdb_connection connection, const std::string& table) : table_(table) {
    opened_ = duckdb_appender_create_ext(connection, "temp", "main", table.c_str(), &appender_) ==
              DuckDBSuccess;
  }
  ~Appender() { duckdb_appender_destroy(&appender_); }
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;

  duckdb_appender get() const { return appender_; }
  Status Opened() const { return opened_ ? OkStatus() : Failed("opening"); }
  Status Close() {
    return duckdb_appender_close(appender_) == DuckDBSuccess ? OkStatus() : Failed("closing");
  }
  Status Failed(const std::string& step) const {
    const char* error = appender_ != nullptr ? duckdb_appender_error(appender_) : nullptr;
    return InvalidArgumentError("appending to " + table_ + " (" + step +
                                "): " + (error != nullptr ? error : "unknown error"));
  }

 private:
  std::string table_;
  duckdb_appender appender_ = nullptr;
  bool opened_ = false;
};

}  // namespace

Status Connection::AppendRows(const std::string& table, std::string_view text,
                              const std::vector<uint64_t>& numbers) {
  Appender appender(connection_, table);
  DC_RETURN_IF_ERROR(appender.Opened());
  for (const uint64_t n : numbers) {
    if (n > static_cast<uint64_t>(INT64_MAX) ||
        duckdb_append_varchar_length(appender.get(), text.data(), text.size()) != DuckDBSuccess ||
        duckdb_append_int64(appender.get(), static_cast<int64_t>(n)) != DuckDBSuccess ||
        duckdb_appender_end_row(appender.get()) != DuckDBSuccess) {
      return appender.Failed("row " + std::to_string(n));
    }
  }
  return appender.Close();
}

Status Connection::AppendColumns(const std::string& table,
                                 const std::vector<MemoryColumn>& columns) {
  Appender appender(connection_, table);
  DC_RETURN_IF_ERROR(appender.Opened());
  const duckdb_appender a = appender.get();
  const size_t rows = columns.empty() ? 0 : columns.front().size();
  using Kind = MemoryColumn::Kind;
  for (size_t r = 0; r < rows; ++r) {
    for (const MemoryColumn& c : columns) {
      duckdb_state state = DuckDBSuccess;
      if (!c.nulls.empty() && c.nulls[r] != 0) {
        state = duckdb_append_null(a);
      } else {
        switch (c.kind) {
          case Kind::kInt64:
            state = duckdb_append_int64(a, c.ints[r]);
            break;
          case Kind::kTimestampMicros:
            state = duckdb_append_timestamp(a, duckdb_timestamp{c.ints[r]});
            break;
          case Kind::kDouble:
            state = duckdb_append_double(a, c.doubles[r]);
            break;
          case Kind::kBool:
            state = duckdb_append_bool(a, c.bools[r] != 0);
            break;
          case Kind::kString:
            state = duckdb_append_varchar_length(a, c.strings[r].data(), c.strings[r].size());
            break;
        }
      }
      if (state != DuckDBSuccess) {
        return appender.Failed("row " + std::to_string(r) + ", column " + c.name);
      }
    }
    if (duckdb_appender_end_row(a) != DuckDBSuccess) {
      return appender.Failed("row " + std::to_string(r));
    }
  }
  return appender.Close();
}

std::string ErrorText(const char* error) {
  return error != nullptr && *error != '\0' ? error : "unknown DuckDB error";
}

std::string SqlString(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string SqlIdent(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace deltacommit::data_internal
