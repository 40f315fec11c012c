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
#include "deltacommit/table/table_adapters.h"
#include "deltacommit/table_features.h"
#include "table/deletion_vectors.h"

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

// Best effort: the files of a delete that did not commit.
void RemoveUploaded(ObjectStore& store, const DeletePlan& plan) {
  for (const std::string& key : plan.uploaded) (void)store.Delete(key);
}

}  // namespace

StatusOr<DeleteResult> Table::Delete(const std::string& condition, DeleteOptions options) {
  const std::string context = "table " + uri();
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
  ObjectStore& store = *adapters().store;
  StatusOr<StagedScan> scan = StageScan(store, adapters().ActionUri(), *snapshot, staging.path());
  if (!scan.ok()) return scan.status().WithContext(context);
  DuckDbOptions duckdb;
  duckdb.memory_limit = options.memory_limit;
  duckdb.temp_directory = staging.path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return handler.status().WithContext("--memory-limit");
  StatusOr<RowMatches> matches = (*handler)->MatchRows(layout, scan->files, condition);
  if (!matches.ok()) return matches.status().WithContext(context + ": nothing was deleted");

  // Each file with matches: removed whole, marked with a DV, or rewritten.
  const bool mark = DeletionVectorsWritable(protocol, metadata);
  DeletionVectorFile dv_file(NewUuid());
  DeletePlan plan;
  DeleteResult& result = plan.result;
  const int64_t now = clock().NowMillis();
  for (size_t i = 0; i < scan->files.size(); ++i) {
    const std::vector<uint64_t>& matched = matches->rows[i];
    if (matched.empty()) continue;
    const ScanFile& file = scan->files[i];
    const AddFile& add = scan->adds[i];
    const auto live = matches->file_rows[i] - static_cast<int64_t>(file.deleted_rows.size());
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
      plan.rewrite.push_back(ScanFile{file.local_path, file.partition_values, std::move(deleted)});
      ++result.files_rewritten;
    }
  }
  if (result.rows_deleted == 0) return result;
  if (plan.partial && ChangeDataFeedEnabled(metadata)) {
    return FailedPreconditionError(
        context + ": the table records change data (delta.enableChangeDataFeed=true) and " +
        std::to_string(result.files_marked + result.files_rewritten) +
        " file(s) would lose only some of their rows, which owes change data files that this "
        "build does not write; nothing was deleted (deletes of whole files, such as by "
        "partition, need none)");
  }

  // The rewritten files: the rows kept, written as an append writes them.
  if (!plan.rewrite.empty()) {
    const std::string kept = staging.path() + "/kept.parquet";
    StatusOr<QueryResult> written =
        (*handler)->Query(layout, plan.rewrite, "SELECT * FROM t",
                          QueryShape{false, QueryOutputFile{kept, "parquet", true}});
    if (!written.ok()) return written.status().WithContext(context + ": nothing was deleted");
    StatusOr<std::vector<WrittenDataFile>> files = (*handler)->WriteDataFiles(
        DataInput{kept, "parquet", "the rows kept", {}}, layout, staging.path());
    if (!files.ok()) return files.status().WithContext(context + ": nothing was deleted");
    for (const WrittenDataFile& f : *files) {
      StatusOr<AddFile> added = UploadDataFile(store, f, now);
      if (!added.ok()) {
        RemoveUploaded(store, plan);
        return added.status().WithContext(context + ": nothing was deleted");
      }
      plan.uploaded.push_back(f.table_key);
      result.adds.push_back(std::move(*added));
    }
  }
  if (!dv_file.empty()) {
    if (Status put = store.Put(dv_file.key(), dv_file.bytes()); !put.ok()) {
      RemoveUploaded(store, plan);
      return put.WithContext(context + ": writing the deletion vectors; nothing was deleted");
    }
    plan.uploaded.push_back(dv_file.key());
  }

  DC_ASSIGN_OR_RETURN(
      Transaction txn,
      NewTransaction(DeleteTransactionOptions(options.transaction, condition), snapshot));
  // Every row was read to find the matches.
  txn.ReadWholeTable();
  for (const RemoveFile& remove : result.removes) txn.AddAction(remove);
  for (const AddFile& add : result.adds) txn.AddAction(add);
  if (options.app_transaction) {
    txn.SetAppTransaction(options.app_transaction->first, options.app_transaction->second);
  }
  StatusOr<CommitOutcome> outcome = Commit(txn);
  if (!outcome.ok()) {
    if (!outcome.status().IsUnknownOutcome()) RemoveUploaded(store, plan);
    return outcome.status();
  }
  if (outcome->result != CommitResult::kCommitted) RemoveUploaded(store, plan);
  result.outcome = *outcome;
  return result;
}

}  // namespace deltacommit
