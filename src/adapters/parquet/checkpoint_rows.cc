#include "adapters/parquet/checkpoint_rows.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace deltacommit::parquet_internal {
namespace {

// An action's typed copies of other fields, for data skipping only
// (PROTOCOL.md "Checkpoint Schema"): not part of the action.
bool IsDerivedField(std::string_view name) {
  return name == "stats_parsed" || name == "partitionValues_parsed";
}

// The shape of one column or field, read once per query from its logical
// type. STRUCT: one child per field; LIST: the element; MAP: key, value.
struct FieldType {
  duckdb_type id = DUCKDB_TYPE_INVALID;
  std::string name;  // the field's name in its struct ("" otherwise)
  std::string path;  // for messages: "add.deletionVector.offset"
  bool dropped = false;
  std::vector<FieldType> children;
};

// Owns a duckdb_logical_type.
class LogicalType {
 public:
  explicit LogicalType(duckdb_logical_type type) : type_(type) {}
  ~LogicalType() { duckdb_destroy_logical_type(&type_); }
  LogicalType(const LogicalType&) = delete;
  LogicalType& operator=(const LogicalType&) = delete;
  duckdb_logical_type get() const { return type_; }

 private:
  duckdb_logical_type type_;
};

std::string TakeDuckDbString(char* text) {
  std::string s = text == nullptr ? std::string() : std::string(text);
  duckdb_free(text);
  return s;
}

void DescribeType(duckdb_logical_type type, std::string path, bool is_action,
                  FieldType& out);

void DescribeStruct(duckdb_logical_type type, bool is_action, FieldType& out) {
  const idx_t count = duckdb_struct_type_child_count(type);
  out.children.resize(count);
  for (idx_t i = 0; i < count; ++i) {
    FieldType& child = out.children[i];
    child.name = TakeDuckDbString(duckdb_struct_type_child_name(type, i));
    if (is_action && IsDerivedField(child.name)) {
      child.dropped = true;
      continue;
    }
    LogicalType child_type(duckdb_struct_type_child_type(type, i));
    DescribeType(child_type.get(), out.path + "." + child.name, false, child);
  }
}

void DescribeType(duckdb_logical_type type, std::string path, bool is_action,
                  FieldType& out) {
  out.id = duckdb_get_type_id(type);
  out.path = std::move(path);
  if (out.id == DUCKDB_TYPE_STRUCT) {
    DescribeStruct(type, is_action, out);
  } else if (out.id == DUCKDB_TYPE_LIST) {
    LogicalType element(duckdb_list_type_child_type(type));
    out.children.resize(1);
    DescribeType(element.get(), out.path + "[]", false, out.children[0]);
  } else if (out.id == DUCKDB_TYPE_MAP) {
    LogicalType key(duckdb_map_type_key_type(type));
    LogicalType value(duckdb_map_type_value_type(type));
    out.children.resize(2);
    DescribeType(key.get(), out.path + ".key", false, out.children[0]);
    DescribeType(value.get(), out.path + ".value", false, out.children[1]);
  }
}

// One chunk's vector for a FieldType, with its children bound likewise.
struct BoundVector {
  const FieldType* type = nullptr;
  const void* data = nullptr;
  uint64_t* validity = nullptr;  // null: every row valid
  std::vector<BoundVector> children;

  bool IsValid(idx_t row) const {
    return validity == nullptr || duckdb_validity_row_is_valid(validity, row);
  }
  template <typename T>
  T At(idx_t row) const {
    return static_cast<const T*>(data)[row];
  }
};

BoundVector Bind(const FieldType& type, duckdb_vector vector) {
  BoundVector bound;
  bound.type = &type;
  if (type.dropped) return bound;  // never read
  bound.data = duckdb_vector_get_data(vector);
  bound.validity = duckdb_vector_get_validity(vector);
  if (type.id == DUCKDB_TYPE_STRUCT) {
    for (idx_t i = 0; i < type.children.size(); ++i) {
      bound.children.push_back(
          Bind(type.children[i], duckdb_struct_vector_get_child(vector, i)));
    }
  } else if (type.id == DUCKDB_TYPE_LIST) {
    bound.children.push_back(
        Bind(type.children[0], duckdb_list_vector_get_child(vector)));
  } else if (type.id == DUCKDB_TYPE_MAP) {
    // A MAP is a LIST of STRUCT(key, value).
    duckdb_vector entries = duckdb_list_vector_get_child(vector);
    bound.children.push_back(
        Bind(type.children[0], duckdb_struct_vector_get_child(entries, 0)));
    bound.children.push_back(
        Bind(type.children[1], duckdb_struct_vector_get_child(entries, 1)));
  }
  return bound;
}

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

// Owns a duckdb_data_chunk.
class DataChunk {
 public:
  explicit DataChunk(duckdb_data_chunk chunk) : chunk_(chunk) {}
  ~DataChunk() {
    if (chunk_ != nullptr) duckdb_destroy_data_chunk(&chunk_);
  }
  DataChunk(const DataChunk&) = delete;
  DataChunk& operator=(const DataChunk&) = delete;
  duckdb_data_chunk get() const { return chunk_; }

 private:
  duckdb_data_chunk chunk_;
};

Status AppendChunkLines(const std::vector<FieldType>& columns,
                        duckdb_data_chunk chunk,
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
      std::string line = "{";
      AppendJsonString(action.type->name, line);
      line += ':';
      DC_RETURN_IF_ERROR(WriteStruct(action, row, line));
      line += '}';
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

Status AppendActionLines(duckdb_result& result, std::vector<std::string>& out) {
  const idx_t count = duckdb_column_count(&result);
  std::vector<FieldType> columns(count);
  for (idx_t c = 0; c < count; ++c) {
    LogicalType type(duckdb_column_logical_type(&result, c));
    if (duckdb_get_type_id(type.get()) != DUCKDB_TYPE_STRUCT) continue;
    const char* name = duckdb_column_name(&result, c);
    columns[c].name = name == nullptr ? "" : name;
    DescribeType(type.get(), columns[c].name, /*is_action=*/true, columns[c]);
  }
  while (true) {
    DataChunk chunk(duckdb_fetch_chunk(result));
    if (chunk.get() == nullptr) break;
    DC_RETURN_IF_ERROR(AppendChunkLines(columns, chunk.get(), out));
  }
  return OkStatus();
}

}  // namespace deltacommit::parquet_internal
