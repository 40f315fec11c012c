// Table::Query: the data path of `deltacommit query`. DuckDB reads local
// files only, so the snapshot's active files are fetched into a private
// staging directory (removed afterwards) and read there as the view `t`,
// less the rows their deletion vectors remove.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/parquet/data_file_handler.h"
#include "deltacommit/table.h"
#include "deltacommit/table/data_staging.h"
#include "deltacommit/table/table_adapters.h"
#include "table/deletion_vectors.h"

namespace deltacommit {
namespace {

// The file's numRecords, when its stats give it.
std::optional<int64_t> NumRecords(const AddFile& add) {
  if (!add.stats) return std::nullopt;
  const auto stats = nlohmann::json::parse(*add.stats, nullptr, /*allow_exceptions=*/false);
  if (!stats.is_object()) return std::nullopt;
  const auto it = stats.find("numRecords");
  if (it == stats.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

}  // namespace

StatusOr<QueryResult> Table::Query(const std::string& sql, QueryOptions options) {
  const std::string context = "table " + uri();
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> snapshot =
      options.version ? SnapshotAt(*options.version) : Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  // The layout first: a malformed setting fails before any file is fetched.
  DC_ASSIGN_OR_RETURN(TableLayout layout,
                      DataLayout((*snapshot)->protocol(), (*snapshot)->metadata()));
  DC_ASSIGN_OR_RETURN(StagingDir staging, StagingDir::Create());
  std::vector<ScanFile> files;
  DeletionVectorReader deletion_vectors(*adapters().store, adapters().ActionUri());
  for (const auto& [key, add] : (*snapshot)->active_files()) {
    ScanFile file{staging.path() + "/" + std::to_string(files.size()) + ".parquet",
                  add.partition_values, {}};
    if (Status fetched =
            DownloadDataFile(*adapters().store, adapters().ActionUri(), add, file.local_path);
        !fetched.ok()) {
      return fetched.WithContext(context);
    }
    if (add.deletion_vector) {
      StatusOr<std::vector<uint64_t>> deleted =
          deletion_vectors.DeletedRows(*add.deletion_vector, add.path, NumRecords(add));
      if (!deleted.ok()) return deleted.status().WithContext(context);
      file.deleted_rows = std::move(*deleted);
    }
    files.push_back(std::move(file));
  }
  // A big query spills into the staging directory, not the working one.
  DuckDbOptions duckdb;
  duckdb.memory_limit = options.memory_limit;
  duckdb.temp_directory = staging.path() + "/duckdb-spill";
  auto handler = DuckDbDataFileHandler::Create(duckdb);
  if (!handler.ok()) return handler.status().WithContext("memory limit");
  StatusOr<QueryResult> result =
      (*handler)->Query(layout, files, sql, QueryShape{options.json_rows, options.output});
  if (!result.ok()) return result.status().WithContext(context);
  return result;
}

}  // namespace deltacommit
