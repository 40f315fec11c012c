#include "adapters/parquet/checkpoint_vectors.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace deltacommit::parquet_internal {
namespace {

// FieldType::dropped.
bool IsDerivedField(std::string_view name) {
  return name == "stats_parsed" || name == "partitionValues_parsed";
}

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

void DescribeType(duckdb_logical_type type, std::string path, bool is_action, FieldType& out);

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

void DescribeType(duckdb_logical_type type, std::string path, bool is_action, FieldType& out) {
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

}  // namespace

FieldType DescribeColumn(std::string name, duckdb_logical_type type) {
  FieldType column;
  column.name = std::move(name);
  column.id = duckdb_get_type_id(type);
  if (column.id == DUCKDB_TYPE_STRUCT) DescribeType(type, column.name, /*is_action=*/true, column);
  return column;
}

std::vector<FieldType> DescribeColumns(duckdb_result& result) {
  const idx_t count = duckdb_column_count(&result);
  std::vector<FieldType> columns;
  columns.reserve(count);
  for (idx_t c = 0; c < count; ++c) {
    LogicalType type(duckdb_column_logical_type(&result, c));
    const char* name = duckdb_column_name(&result, c);
    columns.push_back(DescribeColumn(name == nullptr ? "" : name, type.get()));
  }
  return columns;
}

BoundVector Bind(const FieldType& type, duckdb_vector vector) {
  BoundVector bound;
  bound.type = &type;
  if (type.dropped) return bound;  // never read
  bound.data = duckdb_vector_get_data(vector);
  bound.validity = duckdb_vector_get_validity(vector);
  if (type.id == DUCKDB_TYPE_STRUCT) {
    for (idx_t i = 0; i < type.children.size(); ++i) {
      bound.children.push_back(Bind(type.children[i], duckdb_struct_vector_get_child(vector, i)));
    }
  } else if (type.id == DUCKDB_TYPE_LIST) {
    bound.children.push_back(Bind(type.children[0], duckdb_list_vector_get_child(vector)));
  } else if (type.id == DUCKDB_TYPE_MAP) {
    // A MAP is a LIST of STRUCT(key, value).
    duckdb_vector entries = duckdb_list_vector_get_child(vector);
    bound.children.push_back(Bind(type.children[0], duckdb_struct_vector_get_child(entries, 0)));
    bound.children.push_back(Bind(type.children[1], duckdb_struct_vector_get_child(entries, 1)));
  }
  return bound;
}

}  // namespace deltacommit::parquet_internal
