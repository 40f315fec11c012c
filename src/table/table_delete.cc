// Table::Delete: the data path of `deltacommit delete`. The snapshot's files
// are staged as for a query, the condition is matched row by row over the
// same view `t`, and each file with matches is removed whole, given a
// deletion vector, or rewritten without those rows; one transaction
// commits it all.
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/log_path.h"
#include "deltacommit/parquet/data_file_handler.h"
#include "deltacommit/table.h"
#include "deltacommit/table/data_staging.h"
#include "deltacommit/table/deletion_vectors.h"
#include "deltacommit/table/table_adapters.h"
#include "deltacommit/table_features.h"

namespace deltacommit {
namespace {

// The add's stats with tightBounds false (Spark's withoutTightBoundStats):
// min/max may now describe deleted rows too. numRecords stays the file's
// physical row count, as the protocol says for files with DVs.
std::optional<std::string> WideStats(const std::optional<std::string>& stats) {
  if (!stats || stats->empty()) return stats;
  auto json = nlohmann::ordered_json::parse(*stats, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return stats;
  json["tightBounds"] = false;
  return json.dump();
}

// The remove of `add` as Spark writes it (removeWithTimestamp): with its
// partition values, size, stats and the DV it had.
RemoveFile RemoveOf(const AddFile& add, int64_t now) {
  RemoveFile remove;
  remove.path = add.path;
  remove.deletion_timestamp = now;
  remove.data_change = true;
  remove.extended_file_metadata = true;
  remove.partition_values = add.partition_values;
  remove.size = add.size;
  remove.stats = add.stats;
  remove.tags = add.tags;
  remove.deletion_vector = add.deletion_vector;
  remove.base_row_id = add.base_row_id;
  remove.default_row_commit_version = add.default_row_commit_version;
  return remove;
}

// `a` and `b` (each ascending, no repeats) as one ascending list.
std::vector<uint64_t> Union(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// commitInfo of a delete, as Delta Spark writes it: the condition as a
// one-element JSON array, in a string.
TransactionOptions DeleteTransactionOptions(TransactionOptions o, const std::string& condition) {
  o.operation = "DELETE";
  o.operation_parameters = {
      {"predicate", nlohmann::json(nlohmann::json::array({condition}).dump()).dump()}};
  return o;
}

// What the delete writes, and what to remove again if it is not committed.
struct DeletePlan {
  DeleteResult result;
  std::vector<ScanFile> rewrite;  // files to rewrite, less the deleted rows
  bool partial = false;           // some file loses only some of its rows
  std::vector<std::string> uploaded;
};

// A condition on partition columns alone, decided from the log: the files
// it matches are removed whole and no data file is fetched. nullopt when
// the rows must be read (another column, or a file whose row count the
// log does not give).
StatusOr<std::optional<DeletePlan>> PlanByPartitions(DataFileHandler& handler,
                                                     const TableLayout& layout,
                                                     const Snapshot& snapshot,
                                                     const std::string& condition, int64_t now) {
  const std::optional<DeletePlan> kReadTheRows;
  if (layout.partition_columns.empty()) return kReadTheRows;
  const ActiveFiles& active = snapshot.active_files();
  std::vector<ScanFile> files;
  files.reserve(active.size());
  for (const auto& [key, add] : active) {
    files.push_back(ScanFile{std::to_string(files.size()), add.partition_values, {}, add.path});
  }
  DC_ASSIGN_OR_RETURN(std::optional<std::vector<bool>> matched,
                      handler.MatchFiles(layout, files, condition));
  if (!matched) return kReadTheRows;
  DeletePlan plan;
  // The same files in the same order: only the matched ones are looked at
  // whole (iterating decodes each file into the entry it yields).
  size_t i = 0;
  for (const auto& [key, add] : active) {
    if (!(*matched)[i++]) continue;
    const std::optional<int64_t> rows = NumRecords(add);
    if (!rows) return kReadTheRows;
    const int64_t deleted = add.deletion_vector ? add.deletion_vector->cardinality : 0;
    plan.result.rows_deleted += *rows - deleted;
    plan.result.removes.push_back(RemoveOf(add, now));
    ++plan.result.files_removed;
  }
  return std::optional<DeletePlan>(std::move(plan));
}

// The rows `condition` matches, read from every data file: each file with
// matches is removed whole, marked with a DV in `dv_file` (when `mark`), or
// listed for rewriting.
DeletePlan PlanByRows(const StagedScan& scan, const RowMatches& matches, bool mark,
                      DeletionVectorFile& dv_file, int64_t now) {
  DeletePlan plan;
  DeleteResult& result = plan.result;
  for (size_t i = 0; i < scan.files.size(); ++i) {
    const std::vector<uint64_t>& matched = matches.rows[i];
    if (matched.empty()) continue;
    const ScanFile& file = scan.files[i];
    const AddFile& add = scan.adds[i];
    const auto live = matches.file_rows[i] - static_cast<int64_t>(file.deleted_rows.size());
    result.rows_deleted += static_cast<int64_t>(matched.size());
    result.removes.push_back(RemoveOf(add, now));
    if (static_cast<int64_t>(matched.size()) >= live) {
      ++result.files_removed;
      continue;
    }
    plan.partial = true;
    std::vector<uint64_t> deleted = Union(file.deleted_rows, matched);
    if (mark) {
      AddFile marked = add;
      marked.deletion_vector = dv_file.Add(deleted);
      marked.data_change = true;
      marked.stats = WideStats(add.stats);
      result.adds.push_back(std::move(marked));
      ++result.files_marked;
    } else {
      plan.rewrite.push_back(ScanFile{file.local_path, file.partition_values, std::move(deleted), file.label});
      ++result.files_rewritten;
    }
  }
  return plan;
}

// Writes the rows the rewritten files keep as new data files (as an append
// writes them) and uploads them, adding their adds to the plan.
Status WriteRewrittenFiles(DataFileHandler& handler, const TableLayout& layout,
                           const std::string& staging_dir, ObjectStore& store, int64_t now,
                           DeletePlan& plan) {
  const std::string kept = staging_dir + "/kept.parquet";
  DC_RETURN_IF_ERROR(handler
                         .Query(layout, plan.rewrite, "SELECT * FROM t",
                                QueryShape{false, QueryOutputFile{kept, "parquet", true}})
                         .status());
  DC_ASSIGN_OR_RETURN(
      std::vector<WrittenDataFile> files,
      handler.WriteDataFiles(DataInput{kept, "parquet", "the rows kept", {}}, layout, staging_dir));
  for (const WrittenDataFile& f : files) {
    DC_ASSIGN_OR_RETURN(AddFile add, UploadDataFile(store, f, now));
    plan.uploaded.push_back(f.table_key);
    plan.result.adds.push_back(std::move(add));
  }
  return OkStatus();
}

// Writes the change data of the delete (`changes`, the rows deleted with
// their _change_type) as change data files under _change_data/,
// partitioned as the table is, and uploads them, adding their cdc actions.
Status WriteChangeFiles(DataFileHandler& handler, TableLayout layout, const std::string& changes,
                        const std::string& staging_dir, ObjectStore& store, DeletePlan& plan) {
  layout.change_type_column = true;
  DC_ASSIGN_OR_RETURN(std::vector<WrittenDataFile> files,
                      handler.WriteDataFiles(DataInput{changes, "parquet", "the change data", {}},
                                             layout, staging_dir));
  for (const WrittenDataFile& f : files) {
    const std::string key = "_change_data/" + f.table_key;
    DC_RETURN_IF_ERROR(UploadFile(store, f.local_path, key));
    plan.uploaded.push_back(key);
    AddCdcFile cdc;
    cdc.path = "_change_data/" + f.add_path;
    cdc.partition_values = f.partition_values;
    DC_ASSIGN_OR_RETURN(cdc.size, LocalFileSize(f.local_path));
    cdc.data_change = false;
    plan.result.change_files.push_back(std::move(cdc));
  }
  return OkStatus();
}

}  // namespace

StatusOr<DeleteResult> Table::Delete(const std::string& condition, DeleteOptions options) {
  const std::string context = "table " + uri();
  const std::string nothing = context + ": nothing was deleted";
  if (condition.find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidArgumentError(
        "delete: no condition given; give the rows to delete as an SQL condition "
        "(to delete every row, say so: true)");
  }
  DC_ASSIGN_OR_RETURN(std::shared_ptr<const deltacommit::Snapshot> snapshot, Update());
  const Protocol& protocol = snapshot->protocol();
  const Metadata& metadata = snapshot->metadata();
  if (IsAppendOnly(protocol, metadata)) {
    return FailedPreconditionError(context +
                                   ": the table is append-only (delta.appendOnly=true); "
                                   "rows cannot be deleted");
  }
  if (Status st = CheckWriteSupported(protocol, metadata); !st.ok()) {
    return st.WithContext(context);
  }
  DC_ASSIGN_OR_RETURN(TableLayout layout, DataLayout(protocol, metadata));
  DC_ASSIGN_OR_RETURN(StagingDir staging, StagingDir::Create());
  DuckDbOptions duckdb;
  duckdb.memory_limit = options.memory_limit;
  duckdb.temp_directory = staging.path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return handler.status().WithContext("--memory-limit");
  ObjectStore& store = *adapters().store;
  const int64_t now = clock().NowMillis();

  StatusOr<std::optional<DeletePlan>> by_partitions =
      PlanByPartitions(**handler, layout, *snapshot, condition, now);
  if (!by_partitions.ok()) return by_partitions.status().WithContext(nothing);
  DeletionVectorFile dv_file(NewUuid());
  // Change data, when the table records it: the rows matched, written as
  // they are matched (used only if some file loses part of its rows).
  const std::string changes =
      ChangeDataFeedEnabled(metadata) ? staging.path() + "/changes.parquet" : "";
  DeletePlan plan;
  if (*by_partitions) {
    plan = std::move(**by_partitions);
  } else {
    StatusOr<StagedScan> scan = StageScan(store, adapters().ActionUri(), *snapshot, staging.path());
    if (!scan.ok()) return scan.status().WithContext(context);
    StatusOr<RowMatches> matches =
        (*handler)->MatchRows(layout, scan->files, condition, changes);
    if (!matches.ok()) return matches.status().WithContext(nothing);
    plan = PlanByRows(*scan, *matches, DeletionVectorsWritable(protocol, metadata), dv_file, now);
    plan.result.files_read = static_cast<int64_t>(scan->files.size());
  }
  DeleteResult& result = plan.result;
  if (result.removes.empty()) return result;
  if (plan.partial && !changes.empty()) {
    if (Status st = WriteChangeFiles(**handler, layout, changes, staging.path(), store, plan);
        !st.ok()) {
      RemoveWrittenFiles(store, plan.uploaded);
      return st.WithContext(nothing);
    }
  }
  if (!plan.rewrite.empty()) {
    if (Status st = WriteRewrittenFiles(**handler, layout, staging.path(), store, now, plan);
        !st.ok()) {
      RemoveWrittenFiles(store, plan.uploaded);
      return st.WithContext(nothing);
    }
  }
  if (!dv_file.empty()) {
    if (Status put = store.Put(dv_file.key(), dv_file.bytes()); !put.ok()) {
      RemoveWrittenFiles(store, plan.uploaded);
      return put.WithContext(nothing + ": writing the deletion vectors");
    }
    plan.uploaded.push_back(dv_file.key());
  }

  DC_ASSIGN_OR_RETURN(
      Transaction txn,
      NewTransaction(DeleteTransactionOptions(options.transaction, condition), snapshot));
  // What was read to decide: every row, or every file's partition values.
  txn.ReadWholeTable();
  for (const RemoveFile& remove : result.removes) txn.AddAction(remove);
  for (const AddFile& add : result.adds) txn.AddAction(add);
  for (const AddCdcFile& cdc : result.change_files) txn.AddAction(cdc);
  if (options.app_transaction) {
    txn.SetAppTransaction(options.app_transaction->first, options.app_transaction->second);
  }
  DC_ASSIGN_OR_RETURN(result.outcome, CommitWrittenFiles(*this, txn, store, plan.uploaded));
  return result;
}

}  // namespace deltacommit
