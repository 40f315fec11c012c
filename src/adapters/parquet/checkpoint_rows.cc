#include "adapters/parquet/checkpoint_rows.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/parquet/checkpoint_vectors.h"

namespace deltacommit::parquet_internal {
namespace {

template <typename T>
void AppendNumber(T value, std::string& out) {
  std::array<char, 64> buffer{};
  auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

template <typename T>
void AppendFloating(T value, std::string& out) {
  if (std::isfinite(value)) {
    AppendNumber(value, out);
  } else {
    out += "null";  // JSON has no NaN or infinity
  }
}

// Floor division: a timestamp before 1970 rounds down, not towards zero.
int64_t FloorDiv(int64_t value, int64_t divisor) {
  int64_t q = value / divisor;
  if ((value % divisor) != 0 && (value < 0)) --q;
  return q;
}

Status WriteValue(const BoundVector& v, idx_t row, std::string& out);

Status WriteNullable(const BoundVector& v, idx_t row, std::string& out) {
  if (!v.IsValid(row)) {
    out += "null";
    return OkStatus();
  }
  return WriteValue(v, row, out);
}

Status WriteString(const BoundVector& v, idx_t row, std::string& out) {
  duckdb_string_t s = v.At<duckdb_string_t>(row);
  // For an inlined string the data lives in `s` itself: use it while `s` does.
  AppendJsonString(
      std::string_view(duckdb_string_t_data(&s), duckdb_string_t_length(s)),
      out);
  return OkStatus();
}

Status WriteStruct(const BoundVector& v, idx_t row, std::string& out) {
  out += '{';
  bool first = true;
  for (const BoundVector& field : v.children) {
    if (field.type->dropped || !field.IsValid(row)) continue;
    if (!first) out += ',';
    first = false;
    AppendJsonString(field.type->name, out);
    out += ':';
    DC_RETURN_IF_ERROR(WriteValue(field, row, out));
  }
  out += '}';
  return OkStatus();
}

Status WriteList(const BoundVector& v, idx_t row, std::string& out) {
  const auto entry = v.At<duckdb_list_entry>(row);
  out += '[';
  for (idx_t i = 0; i < entry.length; ++i) {
    if (i > 0) out += ',';
    DC_RETURN_IF_ERROR(WriteNullable(v.children[0], entry.offset + i, out));
  }
  out += ']';
  return OkStatus();
}

// A Delta map (partitionValues, tags, configuration, format.options) is a
// JSON object in a commit file; Parquet stores it as key/value pairs.
Status WriteMap(const BoundVector& v, idx_t row, std::string& out) {
  const BoundVector& key = v.children[0];
  if (key.type->id != DUCKDB_TYPE_VARCHAR) {
    return UnimplementedError("checkpoint field " + v.type->path +
                              ": a map whose keys are not strings has no "
                              "JSON action form");
  }
  const auto entry = v.At<duckdb_list_entry>(row);
  out += '{';
  for (idx_t i = 0; i < entry.length; ++i) {
    if (i > 0) out += ',';
    // Parquet map keys are required, so a key is never null.
    DC_RETURN_IF_ERROR(WriteString(key, entry.offset + i, out));
    out += ':';
    DC_RETURN_IF_ERROR(WriteNullable(v.children[1], entry.offset + i, out));
  }
  out += '}';
  return OkStatus();
}

// Integer types; false for any other type.
bool WriteInteger(const BoundVector& v, idx_t row, std::string& out) {
  switch (v.type->id) {
    case DUCKDB_TYPE_TINYINT:
      AppendNumber(v.At<int8_t>(row), out);
      return true;
    case DUCKDB_TYPE_SMALLINT:
      AppendNumber(v.At<int16_t>(row), out);
      return true;
    case DUCKDB_TYPE_INTEGER:
      AppendNumber(v.At<int32_t>(row), out);
      return true;
    case DUCKDB_TYPE_BIGINT:
      AppendNumber(v.At<int64_t>(row), out);
      return true;
    case DUCKDB_TYPE_UTINYINT:
      AppendNumber(v.At<uint8_t>(row), out);
      return true;
    case DUCKDB_TYPE_USMALLINT:
      AppendNumber(v.At<uint16_t>(row), out);
      return true;
    case DUCKDB_TYPE_UINTEGER:
      AppendNumber(v.At<uint32_t>(row), out);
      return true;
    case DUCKDB_TYPE_UBIGINT:
      AppendNumber(v.At<uint64_t>(row), out);
      return true;
    default:
      return false;
  }
}

// Timestamps as epoch milliseconds, the form Delta's JSON gives them
// (commitInfo.timestamp); false for any other type.
bool WriteTimestamp(const BoundVector& v, idx_t row, std::string& out) {
  const duckdb_type id = v.type->id;
  if (id == DUCKDB_TYPE_TIMESTAMP || id == DUCKDB_TYPE_TIMESTAMP_TZ) {
    AppendNumber(FloorDiv(v.At<int64_t>(row), 1000), out);  // from micros
  } else if (id == DUCKDB_TYPE_TIMESTAMP_MS) {
    AppendNumber(v.At<int64_t>(row), out);
  } else if (id == DUCKDB_TYPE_TIMESTAMP_S) {
    AppendNumber(v.At<int64_t>(row) * 1000, out);
  } else if (id == DUCKDB_TYPE_TIMESTAMP_NS) {
    AppendNumber(FloorDiv(v.At<int64_t>(row), 1000000), out);
  } else {
    return false;
  }
  return true;
}

// Booleans, numbers and timestamps; false for any other type.
bool WriteScalar(const BoundVector& v, idx_t row, std::string& out) {
  switch (v.type->id) {
    case DUCKDB_TYPE_BOOLEAN:
      out += v.At<bool>(row) ? "true" : "false";
      return true;
    case DUCKDB_TYPE_FLOAT:
      AppendFloating(v.At<float>(row), out);
      return true;
    case DUCKDB_TYPE_DOUBLE:
      AppendFloating(v.At<double>(row), out);
      return true;
    default:
      return WriteInteger(v, row, out) || WriteTimestamp(v, row, out);
  }
}

// REQUIRES: v.IsValid(row). An unsupported type is an error only when a
// value of it is met, so a column that is always null never fails a read.
Status WriteValue(const BoundVector& v, idx_t row, std::string& out) {
  switch (v.type->id) {
    case DUCKDB_TYPE_STRUCT:
      return WriteStruct(v, row, out);
    case DUCKDB_TYPE_LIST:
      return WriteList(v, row, out);
    case DUCKDB_TYPE_MAP:
      return WriteMap(v, row, out);
    case DUCKDB_TYPE_VARCHAR:
      return WriteString(v, row, out);
    default:
      break;
  }
  if (WriteScalar(v, row, out)) return OkStatus();
  return UnimplementedError("checkpoint field " + v.type->path +
                            " has DuckDB type id " +
                            std::to_string(static_cast<int>(v.type->id)) +
                            ", which has no JSON action form");
}

Status AppendChunkLines(const std::vector<FieldType>& columns, duckdb_data_chunk chunk,
                        std::vector<std::string>& out) {
  std::vector<BoundVector> actions;
  for (idx_t c = 0; c < columns.size(); ++c) {
    if (columns[c].id != DUCKDB_TYPE_STRUCT) continue;
    actions.push_back(Bind(columns[c], duckdb_data_chunk_get_vector(chunk, c)));
  }
  const idx_t rows = duckdb_data_chunk_get_size(chunk);
  for (idx_t row = 0; row < rows; ++row) {
    for (const BoundVector& action : actions) {
      if (!action.IsValid(row)) continue;
      std::string line;
      DC_RETURN_IF_ERROR(WriteActionLine(action, row, line));
      out.push_back(std::move(line));
    }
  }
  return OkStatus();
}

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;  // UTF-8 passes through (DuckDB has checked it)
    }
  }
  out += '"';
}

Status WriteActionLine(const BoundVector& action, idx_t row, std::string& line) {
  line += '{';
  AppendJsonString(action.type->name, line);
  line += ':';
  DC_RETURN_IF_ERROR(WriteStruct(action, row, line));
  line += '}';
  return OkStatus();
}

Status AppendActionLines(duckdb_result& result, std::vector<std::string>& out) {
  const std::vector<FieldType> columns = DescribeColumns(result);
  while (true) {
    DataChunk chunk(duckdb_fetch_chunk(result));
    if (chunk.get() == nullptr) break;
    DC_RETURN_IF_ERROR(AppendChunkLines(columns, chunk.get(), out));
  }
  return OkStatus();
}

}  // namespace deltacommit::parquet_internal
