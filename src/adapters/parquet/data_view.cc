// The view over a snapshot's data files (data_view.h).
#include "adapters/parquet/data_view.h"

#include <set>
#include <string>
#include <vector>

#include "adapters/parquet/column_mapping.h"

namespace deltacommit::data_internal {
namespace {

// The columns the files hold, by name (DuckDB reads their footers).
StatusOr<std::set<std::string>> FileColumns(Connection& connection, const std::string& source) {
  DC_ASSIGN_OR_RETURN(TextRows described,
                      connection.Query("DESCRIBE SELECT * FROM " + source,
                                       "query: reading the data files' columns"));
  std::set<std::string> out;
  for (const auto& row : described.rows) {
    if (!row.empty() && row[0]) out.insert(*row[0]);
  }
  return out;
}

// read_parquet's `schema` for id mode: each data column's field id mapped
// to its physical name and type (NULL where a file lacks the id).
std::string IdSchema(const std::vector<TableColumn>& columns) {
  std::string map;
  for (const TableColumn& c : columns) {
    if (c.partition || !c.field_id) continue;
    map += (map.empty() ? "" : ", ") + std::to_string(*c.field_id) +
           ": {name: " + SqlString(c.physical_name) +
           ", type: " + SqlString(c.physical_duckdb_type) + ", default_value: NULL}";
  }
  return "MAP {" + map + "}";
}

// The temp table __dc_files: each file's path, index and partition values
// (text, by physical name under column mapping), one column __dc_p<i> per
// partition column; gives those columns in order.
StatusOr<std::vector<const TableColumn*>> CreateFileTable(Connection& connection,
                                                          const std::vector<TableColumn>& columns,
                                                          const std::vector<ScanFile>& files) {
  std::string create = "CREATE TEMP TABLE __dc_files (__dc_file VARCHAR, __dc_index BIGINT";
  std::vector<const TableColumn*> partitions;
  for (const TableColumn& c : columns) {
    if (!c.partition) continue;
    create += ", " + SqlIdent("__dc_p" + std::to_string(partitions.size())) + " VARCHAR";
    partitions.push_back(&c);
  }
  DC_RETURN_IF_ERROR(connection.Exec(create + ")", "preparing the file list"));
  if (files.empty()) return partitions;
  std::string insert;
  for (const ScanFile& f : files) {
    insert += std::string(insert.empty() ? "" : ", ") + "(" + SqlString(f.local_path) + ", " +
              std::to_string(&f - files.data());
    for (const TableColumn* p : partitions) {
      auto it = f.partition_values.find(p->physical_name);
      const bool null = it == f.partition_values.end() || !it->second;
      insert += ", " + (null ? std::string("NULL") : SqlString(*it->second));
    }
    insert += ")";
  }
  DC_RETURN_IF_ERROR(
      connection.Exec("INSERT INTO __dc_files VALUES " + insert, "listing the files"));
  return partitions;
}

// Under column mapping, a data file that names its columns by the
// schema's logical names and by none of the physical ones (name mode), or
// holds no Parquet field id at all (id mode, as Spark refuses it), was
// written without column mapping: every value would read as NULL.
Status CheckFilesAreMapped(Connection& connection, const std::vector<TableColumn>& columns,
                           const std::vector<ScanFile>& files, const std::string& list,
                           const std::string& mapping) {
  std::set<std::string> physical;
  std::set<std::string> logical;
  std::string physical_example;
  for (const TableColumn& c : columns) {
    if (c.partition) continue;
    physical.insert(c.physical_name);
    if (physical_example.empty()) physical_example = c.physical_name;
  }
  for (const TableColumn& c : columns) {
    if (!c.partition && !physical.contains(c.name)) logical.insert(c.name);
  }
  if (physical.empty()) return OkStatus();
  DC_ASSIGN_OR_RETURN(
      TextRows schema,
      connection.Query("SELECT f.__dc_index, s.name, s.field_id FROM parquet_schema([" + list +
                           "]) s JOIN __dc_files f ON f.__dc_file = s.file_name",
                       "reading the data files' schemas"));
  struct Seen {
    bool physical = false;
    bool field_id = false;
    std::string logical;  // a logical name it holds, if any
  };
  std::vector<Seen> seen(files.size());
  for (const auto& row : schema.rows) {
    if (row.size() < 3 || !row[0] || !row[1]) continue;
    const size_t index = std::stoul(*row[0]);
    if (index >= seen.size()) continue;
    Seen& s = seen[index];
    s.physical = s.physical || physical.contains(*row[1]);
    s.field_id = s.field_id || row[2].has_value();
    if (s.logical.empty() && logical.contains(*row[1])) s.logical = *row[1];
  }
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& name = files[i].label.empty() ? files[i].local_path : files[i].label;
    if (mapping == "name" && !seen[i].physical && !seen[i].logical.empty()) {
      return InvalidArgumentError(
          "data file " + name + ": its columns have the schema's logical names (\"" +
          seen[i].logical + "\", ...) and none of the physical names column mapping reads (\"" +
          physical_example + "\", ...): it was written without column mapping");
    }
    if (mapping == "id" && !seen[i].field_id) {
      return InvalidArgumentError("data file " + name +
                                  ": it holds no Parquet field ids, and column mapping in id mode "
                                  "reads columns by field id: it was written without column "
                                  "mapping");
    }
  }
  return OkStatus();
}

// CAST(expr AS the column's type) AS its logical name.
std::string ColumnSql(const std::string& expr, const TableColumn& c) {
  return "CAST(" + expr + " AS " + c.duckdb_type + ") AS " + SqlIdent(c.name);
}

}  // namespace

StatusOr<std::string> PartitionViewSql(Connection& connection,
                                       const std::vector<TableColumn>& columns,
                                       const std::vector<ScanFile>& files) {
  DC_ASSIGN_OR_RETURN(std::vector<const TableColumn*> partitions,
                      CreateFileTable(connection, columns, files));
  std::string select;
  for (size_t i = 0; i < partitions.size(); ++i) {
    select += ColumnSql("f." + SqlIdent("__dc_p" + std::to_string(i)), *partitions[i]) + ", ";
  }
  return "SELECT " + select + "f.__dc_index FROM __dc_files f";
}

// The view `t`: the table's columns in schema order, by logical name.
// Data columns are read by name (by physical name under column mapping, by
// field id in id mode); a column no file holds reads as NULL (it was added
// after them). Partition values come from the log, by physical name under
// column mapping.
StatusOr<std::string> ViewSql(Connection& connection, const std::vector<TableColumn>& columns,
                              const std::vector<ScanFile>& files, const std::string& mapping,
                              ViewShape shape) {
  std::string select;
  auto add = [&](const std::string& expr, const TableColumn& c) {
    select += (select.empty() ? "" : ", ") + ColumnSql(expr, c);
  };
  if (files.empty()) {
    for (const TableColumn& c : columns) add("NULL", c);
    if (shape.row_ids) select += ", NULL::BIGINT AS __dc_index, NULL::BIGINT AS __dc_row";
    return "SELECT " + select + " LIMIT 0";
  }
  DC_ASSIGN_OR_RETURN(std::vector<const TableColumn*> partitions,
                      CreateFileTable(connection, columns, files));
  std::string list;
  for (const ScanFile& f : files) {
    list += std::string(list.empty() ? "" : ", ") + SqlString(f.local_path);
  }
  if (mapping == "name" || mapping == "id") {
    DC_RETURN_IF_ERROR(CheckFilesAreMapped(connection, columns, files, list, mapping));
  }
  // Rows that deletion vectors remove are left out by an anti join on the
  // file and the row's index in it.
  bool deletions = false;
  for (const ScanFile& f : files) deletions = deletions || !f.deleted_rows.empty();
  const bool by_id = mapping == "id";
  // In id mode the schema maps every file alike: no union by name.
  const std::string source =
      "read_parquet([" + list + "], filename = '__dc_file'" +
      (by_id ? ", schema = " + IdSchema(columns) : std::string(", union_by_name = true")) +
      (deletions || shape.row_ids ? ", file_row_number = true" : "") + ")";
  std::set<std::string> present;
  if (!by_id) {
    DC_ASSIGN_OR_RETURN(present, FileColumns(connection, source));
  }
  size_t p = 0;
  for (const TableColumn& c : columns) {
    if (c.partition) {
      add("f." + SqlIdent("__dc_p" + std::to_string(p++)), c);
    } else if (by_id || present.contains(c.physical_name)) {
      DC_ASSIGN_OR_RETURN(std::string value,
                          LogicalValueSql("d." + SqlIdent(c.physical_name), c.delta_type, c.name));
      add(value, c);
    } else {
      add("NULL", c);
    }
  }
  if (shape.row_ids) select += ", f.__dc_index, d.file_row_number AS __dc_row";
  std::string from = source + " d JOIN __dc_files f USING (__dc_file)";
  if (deletions) {
    DC_RETURN_IF_ERROR(
        connection.Exec("CREATE TEMP TABLE __dc_deleted (__dc_file VARCHAR, __dc_row BIGINT)",
                        "query: preparing the deleted rows"));
    for (const ScanFile& f : files) {
      if (f.deleted_rows.empty()) continue;
      DC_RETURN_IF_ERROR(connection.AppendRows("__dc_deleted", f.local_path, f.deleted_rows));
    }
    from +=
        " ANTI JOIN __dc_deleted x ON x.__dc_file = d.__dc_file AND x.__dc_row = "
        "d.file_row_number";
  }
  return "SELECT " + select + " FROM " + from;
}

}  // namespace deltacommit::data_internal
