// DuckDbDataFileHandler::WriteDataFiles: input -> checked, cast rows ->
// one Parquet file per partition value tuple, with statistics.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "adapters/parquet/column_mapping.h"
#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_input.h"
#include "adapters/parquet/data_paths.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_types.h"
#include "deltacommit/log_path.h"
#include "deltacommit/parquet/data_file_handler.h"

namespace deltacommit {
namespace data_internal {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A table column and the input column that feeds it.
struct Feed {
  const TableColumn* column;
  InputColumn source;
};

// Matches input columns to table columns by name (exact, else ignoring
// case, as Delta names are case-insensitive). Every table column must be
// fed and every input column used.
StatusOr<std::vector<Feed>> MatchColumns(const std::vector<TableColumn>& columns,
                                         const std::vector<InputColumn>& inputs,
                                         const std::string& label) {
  std::map<std::string, const InputColumn*> by_lower;
  for (const InputColumn& in : inputs) by_lower[Lower(in.name)] = &in;
  std::vector<Feed> feeds;
  std::map<std::string, bool> used;
  for (const TableColumn& c : columns) {
    auto it = by_lower.find(Lower(c.name));
    if (it == by_lower.end()) {
      return InvalidArgumentError("input \"" + label + "\" has no column \"" + c.name +
                                  "\" (the table's column of type " + c.delta_type + ")");
    }
    used[it->second->name] = true;
    feeds.push_back({&c, *it->second});
  }
  for (const InputColumn& in : inputs) {
    if (!used.count(in.name)) {
      return InvalidArgumentError("input \"" + label + "\" has column \"" + in.name +
                                  "\", which the table's schema does not have");
    }
  }
  return feeds;
}

bool IsFractional(std::string_view duckdb_type) {
  return duckdb_type == "DOUBLE" || duckdb_type == "FLOAT" || duckdb_type.starts_with("DECIMAL");
}

bool IsIntegral(std::string_view duckdb_type) {
  return duckdb_type == "BIGINT" || duckdb_type == "INTEGER" || duckdb_type == "SMALLINT" ||
         duckdb_type == "TINYINT";
}

// The SQL predicate "this input value does not fit the column": it does
// not cast, or (a fraction into an integer column) the cast would round it.
std::string MisfitSql(const Feed& f) {
  const std::string src = SqlIdent(f.source.name);
  const std::string cast = "TRY_CAST(" + src + " AS " + f.column->duckdb_type + ")";
  std::string misfit = "(" + src + " IS NOT NULL AND " + cast + " IS NULL)";
  if (IsIntegral(f.column->duckdb_type)) {
    // DuckDB rounds 1.5 (and '1.5') to 2 when casting to an integer; a
    // fraction must not be silently lost.
    if (IsFractional(f.source.type)) {
      misfit = "(" + misfit + " OR " + cast + " <> " + src + ")";
    } else if (f.source.type == "VARCHAR") {
      misfit = "(" + misfit + " OR (" + src + " IS NOT NULL AND NOT regexp_full_match(trim(" + src +
               "), '[+-]?[0-9]+')))";
    }
  }
  return misfit;
}

// Checks every value before anything is written: a value that does not
// convert, or a null in a non-nullable column, is an error naming the
// column, a sample value and how many rows.
Status CheckValues(Connection& connection, const std::string& source,
                   const std::vector<Feed>& feeds, const DataInput& input) {
  const std::string& label = input.label;
  std::string sql = "SELECT 0";
  for (const Feed& f : feeds) {
    const std::string misfit = MisfitSql(f);
    sql += ", count(*) FILTER (WHERE " + misfit + ")";
    sql += ", CAST(any_value(" + SqlIdent(f.source.name) + ") FILTER (WHERE " + misfit +
           ") AS VARCHAR)";
    sql += ", count(*) FILTER (WHERE " + SqlIdent(f.source.name) + " IS NULL)";
  }
  sql += " FROM " + source;
  DC_ASSIGN_OR_RETURN(TextRows rows, connection.Query(sql, "input \"" + label + "\"",
                                                      Progress{input.progress, "checking"}));
  const auto& row = rows.rows.at(0);
  for (size_t i = 0; i < feeds.size(); ++i) {
    const TableColumn& c = *feeds[i].column;
    const std::string bad = row[1 + 3 * i].value_or("0");
    if (bad != "0") {
      std::string sample = row[2 + 3 * i].value_or("?");
      if (sample.size() > 60) sample = sample.substr(0, 60) + "...";
      return InvalidArgumentError("input \"" + label + "\": column \"" + c.name + "\" is " +
                                  c.delta_type + " but " + bad + " value(s) do not convert (e.g. \"" +
                                  sample + "\", read as " + feeds[i].source.type + ")");
    }
    const std::string nulls = row[3 + 3 * i].value_or("0");
    if (!c.nullable && nulls != "0") {
      return InvalidArgumentError("input \"" + label + "\": column \"" + c.name +
                                  "\" is not nullable but " + nulls + " row(s) have no value");
    }
  }
  return OkStatus();
}

// The partition value tuples present in `table` (partition columns as
// "__dc_p<i>" text columns), each a map column -> value.
StatusOr<std::vector<NullableStringMap>> PartitionTuples(Connection& connection,
                                                         const std::string& table,
                                                         const std::vector<std::string>& names,
                                                         const Progress& progress) {
  if (names.empty()) return std::vector<NullableStringMap>{{}};
  std::string select;
  for (size_t i = 0; i < names.size(); ++i) {
    select += (i ? ", " : "") + SqlIdent("__dc_p" + std::to_string(i));
  }
  DC_ASSIGN_OR_RETURN(TextRows rows, connection.Query("SELECT DISTINCT " + select + " FROM " +
                                                          table + " ORDER BY ALL",
                                                      "partition values", progress));
  std::vector<NullableStringMap> out;
  for (const auto& row : rows.rows) {
    NullableStringMap values;
    for (size_t i = 0; i < names.size(); ++i) values[names[i]] = row[i];
    out.push_back(std::move(values));
  }
  return out;
}

std::string TupleFilter(const std::vector<std::string>& names, const NullableStringMap& values) {
  std::string where = "true";
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& v = values.at(names[i]);
    const std::string col = SqlIdent("__dc_p" + std::to_string(i));
    where += " AND " + col + (v ? " = " + SqlString(*v) : " IS NULL");
  }
  return where;
}

// What one partition value tuple's files are written from. Under column
// mapping, files, partition values and directories use physical names.
struct TupleSource {
  std::string rows_table;
  std::string data_columns;  // the SELECT list: data columns only
  std::vector<std::string> partition_names;  // as partitionValues keys them
  std::vector<std::string> directory_columns;  // metaData.partitionColumns' order
  std::vector<TableColumn> data_only;
  std::string field_ids;  // COPY's FIELD_IDS option, or empty
};

// Writes the rows of one partition value tuple as Parquet files of about
// `file_bytes` at most (DuckDB cuts them) into a directory of their own,
// then gives each its table key and statistics. Files without rows (a
// header-only input) are left out.
StatusOr<std::vector<WrittenDataFile>> WriteTuple(Connection& connection, const DataInput& input,
                                                  const TableLayout& layout,
                                                  const TupleSource& source,
                                                  const NullableStringMap& values,
                                                  const std::string& staging_dir,
                                                  int64_t file_bytes) {
  const std::string dir = staging_dir + "/write-" + NewUuid();
  DC_RETURN_IF_ERROR(connection.Exec(
      "COPY (SELECT " + source.data_columns + " FROM " + source.rows_table + " WHERE " +
          TupleFilter(source.partition_names, values) + ") TO " + SqlString(dir) +
          " (FORMAT parquet, COMPRESSION snappy, FILE_SIZE_BYTES " +
          std::to_string(file_bytes) + ", FILENAME_PATTERN 'part-00000-{uuid}-c000.snappy'" +
          (source.field_ids.empty() ? "" : ", FIELD_IDS " + source.field_ids) + ")",
      "input \"" + input.label + "\": writing Parquet files into " + dir,
      Progress{input.progress, "writing"}));
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    names.push_back(entry.path().filename().string());
  }
  if (error) return InternalError("listing " + dir + ": " + error.message());
  std::sort(names.begin(), names.end());
  std::vector<WrittenDataFile> out;
  for (const std::string& name : names) {
    WrittenDataFile file;
    file.local_path = dir + "/" + name;
    // Directories nest in metaData.partitionColumns order.
    file.table_key = PartitionDirectory(source.directory_columns, values) + name;
    file.add_path = UriEncodePath(file.table_key);
    file.partition_values = values;
    DC_ASSIGN_OR_RETURN(FileStats stats, FileStatsJson(connection, file.local_path,
                                                      source.data_only, layout.stats_columns));
    file.stats = std::move(stats.json);
    file.num_records = stats.num_records;
    if (file.num_records > 0) out.push_back(std::move(file));
  }
  return out;
}

}  // namespace
}  // namespace data_internal

StatusOr<std::vector<WrittenDataFile>> DuckDbDataFileHandler::WriteDataFiles(
    const DataInput& input, const TableLayout& layout, const std::string& staging_dir) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(layout));
  for (const TableColumn& c : columns) {
    if (HoldsVariant(c.delta_type)) {
      return UnimplementedError("column \"" + c.name +
                                "\" holds variant values, which this build reads but does not "
                                "write (their binary encoding); nothing was written");
    }
  }
  DC_ASSIGN_OR_RETURN(std::string format, InputFormat(input));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  const std::string source = InputSource(input, format, /*text_columns=*/true);
  DC_ASSIGN_OR_RETURN(std::vector<InputColumn> inputs, DescribeInput(*connection, input, source));
  DC_ASSIGN_OR_RETURN(std::vector<Feed> feeds, MatchColumns(columns, inputs, input.label));
  DC_RETURN_IF_ERROR(CheckValues(*connection, source, feeds, input));

  // The cast rows, partition values already serialized.
  std::string select;
  TupleSource tuple_source;
  for (const Feed& f : feeds) {
    const std::string cast =
        "CAST(" + SqlIdent(f.source.name) + " AS " + f.column->duckdb_type + ")";
    if (!select.empty()) select += ", ";
    if (f.column->partition) {
      DC_ASSIGN_OR_RETURN(std::string text,
                          PartitionValueSql(cast, f.column->delta_type, f.column->name));
      select += text + " AS " +
                SqlIdent("__dc_p" + std::to_string(tuple_source.partition_names.size()));
      tuple_source.partition_names.push_back(f.column->physical_name);
    } else {
      DC_ASSIGN_OR_RETURN(std::string value,
                          PhysicalValueSql(cast, f.column->delta_type, f.column->name));
      select += value + " AS " + SqlIdent(f.column->physical_name);
      tuple_source.data_columns +=
          (tuple_source.data_columns.empty() ? "" : ", ") + SqlIdent(f.column->physical_name);
      tuple_source.data_only.push_back(*f.column);
      DC_ASSIGN_OR_RETURN(std::string ids, FieldIdsEntry(f.column->delta_type, f.column->field_id,
                                                         f.column->name));
      if (!ids.empty()) {
        tuple_source.field_ids += (tuple_source.field_ids.empty() ? "" : ", ") +
                                  SqlString(f.column->physical_name) + ": " + ids;
      }
    }
  }
  if (!tuple_source.field_ids.empty()) tuple_source.field_ids = "{" + tuple_source.field_ids + "}";
  for (const std::string& name : layout.partition_columns) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&](const TableColumn& c) { return c.name == name; });
    tuple_source.directory_columns.push_back(it == columns.end() ? name : it->physical_name);
  }
  // Materialised once (DuckDB spills it to disk beyond its memory limit)
  // and scanned per partition value tuple.
  tuple_source.rows_table = "__dc_rows";
  DC_RETURN_IF_ERROR(connection->Exec(
      "CREATE TEMP TABLE " + tuple_source.rows_table + " AS SELECT " + select + " FROM " + source,
      "input \"" + input.label + "\": converting to the table's types",
      Progress{input.progress, "converting"}));

  DC_ASSIGN_OR_RETURN(std::vector<NullableStringMap> tuples,
                      PartitionTuples(*connection, tuple_source.rows_table,
                                      tuple_source.partition_names,
                                      Progress{input.progress, "partitioning"}));
  std::vector<WrittenDataFile> out;
  for (const NullableStringMap& values : tuples) {
    DC_ASSIGN_OR_RETURN(std::vector<WrittenDataFile> files,
                        WriteTuple(*connection, input, layout, tuple_source, values, staging_dir,
                                   options_.target_file_bytes));
    for (WrittenDataFile& f : files) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace deltacommit
