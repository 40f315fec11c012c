// Table::Append: the data path of `deltacommit append`. Inputs are
// converted by DuckDB into Parquet data files in a private staging
// directory, uploaded into the table, and committed as one blind append.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "deltacommit/parquet/data_file_handler.h"
#include "deltacommit/table.h"
#include "deltacommit/table/data_staging.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit {
namespace {

// The data files written into the table so far.
struct Staged {
  std::vector<AddFile> adds;
  std::vector<std::string> uploaded;  // keys written into the table
  int64_t rows = 0;
};

AppendEvent Event(AppendEvent::Kind kind, size_t input) {
  AppendEvent event;
  event.kind = kind;
  event.input = input;
  return event;
}

// Converts and uploads input `index`, adding its files to `staged`.
class Stager {
 public:
  Stager(DataFileHandler& handler, const TableLayout& layout, const StagingDir& staging,
         ObjectStore& store, Clock& clock, const AppendOptions& options)
      : handler_(handler),
        layout_(layout),
        staging_(staging),
        store_(store),
        clock_(clock),
        options_(options) {}

  Status Stage(const AppendInput& in, size_t index, Staged& staged) {
    DataInput input{in.path, in.format, in.label.empty() ? in.path : in.label, {}};
    if (!in.columns.empty()) {
      // Columns in memory: a Parquet file in the staging directory first.
      input.path = staging_.path() + "/columns-" + std::to_string(index) + ".parquet";
      input.format = "parquet";
      if (in.label.empty()) input.label = "the rows given";
      DC_RETURN_IF_ERROR(handler_.WriteMemoryColumns(in.columns, input.path)
                             .WithContext("input " + input.label));
    }
    Tell(Event(AppendEvent::Kind::kConverting, index));
    input.progress = [this, index](std::string_view step, double percent) {
      AppendEvent progress = Event(AppendEvent::Kind::kProgress, index);
      progress.step = step;
      progress.percent = percent;
      Tell(progress);
    };
    DC_ASSIGN_OR_RETURN(std::vector<WrittenDataFile> files,
                        handler_.WriteDataFiles(input, layout_, staging_.path()));
    const int64_t rows_before = staged.rows;
    for (size_t i = 0; i < files.size(); ++i) {
      AppendEvent uploading = Event(AppendEvent::Kind::kUploading, index);
      uploading.file = static_cast<int64_t>(i) + 1;
      uploading.files = static_cast<int64_t>(files.size());
      Tell(uploading);
      DC_RETURN_IF_ERROR(Upload(files[i], staged));
    }
    AppendEvent written = Event(AppendEvent::Kind::kWritten, index);
    written.files = static_cast<int64_t>(files.size());
    written.rows = staged.rows - rows_before;
    Tell(written);
    return OkStatus();
  }

 private:
  Status Upload(const WrittenDataFile& f, Staged& staged) {
    DC_ASSIGN_OR_RETURN(AddFile add, UploadDataFile(store_, f, clock_.NowMillis()));
    staged.uploaded.push_back(f.table_key);
    staged.adds.push_back(std::move(add));
    staged.rows += f.num_records;
    return OkStatus();
  }

  void Tell(const AppendEvent& event) const {
    if (options_.on_event) options_.on_event(event);
  }

  DataFileHandler& handler_;
  const TableLayout& layout_;
  const StagingDir& staging_;
  ObjectStore& store_;
  Clock& clock_;
  const AppendOptions& options_;
};

// commitInfo of an append, as Delta Spark writes it.
TransactionOptions AppendTransactionOptions(TransactionOptions o, const Metadata& m) {
  o.operation = "WRITE";
  o.operation_parameters = {
      {"mode", "\"Append\""},
      {"partitionBy", nlohmann::json(nlohmann::json(m.partition_columns).dump()).dump()}};
  return o;
}

}  // namespace

StatusOr<AppendResult> Table::Append(const std::vector<AppendInput>& inputs,
                                     AppendOptions options) {
  const std::string context = "table " + uri();
  DC_ASSIGN_OR_RETURN(std::shared_ptr<const deltacommit::Snapshot> snapshot, Update());
  DC_ASSIGN_OR_RETURN(StagingDir staging, StagingDir::Create());
  DuckDbOptions duckdb;
  duckdb.memory_limit = options.memory_limit;
  duckdb.temp_directory = staging.path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return handler.status().WithContext("--memory-limit");
  const Metadata& m = snapshot->metadata();
  DC_ASSIGN_OR_RETURN(TableLayout layout, DataLayout(snapshot->protocol(), m));
  ObjectStore& store = *adapters().store;
  Stager stager(**handler, layout, staging, store, clock(), options);
  Staged staged;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status st = stager.Stage(inputs[i], i, staged);
    if (!st.ok()) {
      RemoveWrittenFiles(store, staged.uploaded);
      return st.WithContext(context + ": nothing was committed");
    }
  }
  if (staged.adds.empty()) {
    return InvalidArgumentError("the inputs hold no rows: nothing was committed");
  }
  DC_ASSIGN_OR_RETURN(Transaction txn,
                      NewTransaction(AppendTransactionOptions(options.transaction, m), snapshot));
  for (const AddFile& add : staged.adds) txn.AddAction(add);
  if (options.app_transaction) {
    txn.SetAppTransaction(options.app_transaction->first, options.app_transaction->second);
  }
  DC_ASSIGN_OR_RETURN(CommitOutcome outcome,
                      CommitWrittenFiles(*this, txn, store, staged.uploaded));
  AppendResult result;
  result.outcome = outcome;
  result.adds = std::move(staged.adds);
  result.rows = staged.rows;
  return result;
}

}  // namespace deltacommit
