#include "adapters/parquet/data_columns.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "adapters/parquet/column_mapping.h"
#include "adapters/parquet/data_types.h"
#include "deltacommit/schema.h"

namespace deltacommit::data_internal {

StatusOr<std::vector<TableColumn>> TableColumns(const TableLayout& layout) {
  DC_ASSIGN_OR_RETURN(Schema schema, ParseSchema(layout.schema_string));
  std::vector<TableColumn> out;
  for (const StructField& field : schema.fields) {
    TableColumn column;
    column.name = field.name;
    column.delta_type = field.type;
    DC_ASSIGN_OR_RETURN(column.duckdb_type, DuckDbType(field.type, field.name));
    column.nullable = field.nullable;
    column.partition = std::find(layout.partition_columns.begin(), layout.partition_columns.end(),
                                 field.name) != layout.partition_columns.end();
    column.physical_name = field.name;
    DC_ASSIGN_OR_RETURN(column.physical_duckdb_type,
                        DuckDbType(field.type, field.name, /*physical_names=*/false,
                                   /*stored=*/true));
    if (layout.column_mapping_mode == "name" || layout.column_mapping_mode == "id") {
      DC_ASSIGN_OR_RETURN(FieldMapping mapping, ReadFieldMapping(field.metadata, field.name));
      column.physical_name = mapping.physical_name;
      column.field_id = mapping.id;
      DC_ASSIGN_OR_RETURN(column.physical_duckdb_type,
                          DuckDbType(field.type, field.name, /*physical_names=*/true,
                                     /*stored=*/true));
      if (layout.column_mapping_mode == "id" && !column.partition && !column.field_id) {
        return InvalidArgumentError("column \"" + field.name +
                                    "\": no delta.columnMapping.id, which id mode reads by");
      }
    }
    out.push_back(std::move(column));
  }
  if (layout.change_type_column) {
    TableColumn change;
    change.name = change.physical_name = kChangeTypeColumn;
    change.delta_type = "string";
    change.duckdb_type = change.physical_duckdb_type = "VARCHAR";
    change.nullable = false;
    out.push_back(std::move(change));
  }
  return out;
}

StatusOr<FileStats> FileStatsJson(Connection& connection, const std::string& path,
                                    const std::vector<TableColumn>& columns,
                                    int stats_columns) {
  std::vector<const TableColumn*> stats;
  int counted = 0;
  for (const TableColumn& c : columns) {
    if (c.partition) continue;
    if (stats_columns >= 0 && counted++ >= stats_columns) break;
    if (c.delta_type.front() != '{') stats.push_back(&c);
  }
  std::string sql = "SELECT CAST(count(*) AS VARCHAR)";
  for (const TableColumn* c : stats) {
    // Files and stats name columns as the log does: physical names under
    // column mapping.
    const std::string col = SqlIdent(c->physical_name);
    sql += ", CAST(count(*) - count(" + col + ") AS VARCHAR)";
    sql += ", " + StatsValueSql(col, c->delta_type, /*max=*/false);
    sql += ", " + StatsValueSql(col, c->delta_type, /*max=*/true);
  }
  sql += " FROM read_parquet(" + SqlString(path) + ")";
  DC_ASSIGN_OR_RETURN(TextRows rows, connection.Query(sql, "statistics of " + path));
  if (rows.rows.size() != 1) return InternalError("statistics of " + path + ": no result row");
  const auto& row = rows.rows[0];
  nlohmann::ordered_json out;
  FileStats result;
  result.num_records = std::stoll(row[0].value_or("0"));
  out["numRecords"] = result.num_records;
  nlohmann::ordered_json min = nlohmann::ordered_json::object();
  nlohmann::ordered_json max = nlohmann::ordered_json::object();
  nlohmann::ordered_json nulls = nlohmann::ordered_json::object();
  for (size_t i = 0; i < stats.size(); ++i) {
    const TableColumn& c = *stats[i];
    nulls[c.physical_name] = std::stoll(row[1 + 3 * i].value_or("0"));
    const StatsKind kind = StatsKindOf(c.delta_type);
    if (kind == StatsKind::kNone) continue;
    auto put = [&](nlohmann::ordered_json& into, const std::optional<std::string>& text) {
      if (!text) return;
      if (kind == StatsKind::kString) {
        into[c.physical_name] = *text;
        return;
      }
      auto number = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
      if (number.is_number()) into[c.physical_name] = number;
    };
    put(min, row[2 + 3 * i]);
    put(max, row[3 + 3 * i]);
  }
  out["minValues"] = std::move(min);
  out["maxValues"] = std::move(max);
  out["nullCount"] = std::move(nulls);
  result.json = out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return result;
}

}  // namespace deltacommit::data_internal
