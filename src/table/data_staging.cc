#include "deltacommit/table/data_staging.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/commit_rules.h"
#include "deltacommit/table/deletion_vectors.h"
#include "deltacommit/table_features.h"

namespace deltacommit {
namespace {

Status Failure(std::string_view what, const std::string& path) {
  return InternalError(std::string(what) + " " + path + ": " + std::strerror(errno));
}

}  // namespace

StatusOr<StagingDir> StagingDir::Create() {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = (dir != nullptr && *dir != '\0') ? dir : "/tmp";
  pattern += "/deltacommit-data-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return Failure("mkdtemp", pattern);
  return StagingDir(pattern);
}

StagingDir::~StagingDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

StatusOr<std::string> StagingDir::SaveStdin(std::string_view name,
                                            const std::function<void(int64_t)>& progress) {
  const std::string path = path_ + "/" + std::string(name);
  std::ofstream out(path, std::ios::binary);
  if (!out) return Failure("create", path);
  std::vector<char> chunk(1 << 20);
  int64_t copied = 0;
  while (true) {
    const std::streamsize n =
        std::cin.rdbuf()->sgetn(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (n <= 0) break;
    out.write(chunk.data(), n);
    if (!out) return Failure("write", path);
    copied += n;
    if (progress) progress(copied);
  }
  out.close();
  if (!out) return Failure("write", path);
  return path;
}

StatusOr<int64_t> LocalFileSize(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Failure("stat", path);
  return static_cast<int64_t>(st.st_size);
}

Status UploadFile(ObjectStore& store, const std::string& path, const std::string& key) {
  DC_ASSIGN_OR_RETURN(int64_t size, LocalFileSize(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Failure("open", path);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!in.read(bytes.data(), size)) return Failure("read", path);
  return store.Put(key, bytes).WithContext("writing " + store.Describe() + "/" + key);
}

StatusOr<AddFile> UploadDataFile(ObjectStore& store, const WrittenDataFile& f,
                                 int64_t modification_time) {
  AddFile add;
  add.path = f.add_path;
  add.partition_values = f.partition_values;
  DC_ASSIGN_OR_RETURN(add.size, LocalFileSize(f.local_path));
  add.modification_time = modification_time;
  add.data_change = true;
  add.stats = f.stats;
  DC_RETURN_IF_ERROR(UploadFile(store, f.local_path, f.table_key));
  return add;
}

void RemoveWrittenFiles(ObjectStore& store, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) (void)store.Delete(key);
}

StatusOr<CommitOutcome> CommitWrittenFiles(Table& table, Transaction& txn, ObjectStore& store,
                                           const std::vector<std::string>& written) {
  StatusOr<CommitOutcome> outcome = table.Commit(txn);
  if (!outcome.ok()) {
    if (!outcome.status().IsUnknownOutcome()) RemoveWrittenFiles(store, written);
    return outcome.status();
  }
  // Already committed through an assigned version, under the caller's
  // appId: either an earlier run's append (these files are then unused) or
  // this very append, resent by the client after its reply was lost (these
  // files are then in the table). Nothing tells the two apart without
  // reading the version, so the files stay: an unused file is garbage for
  // VACUUM, a removed one in the table is lost data.
  const bool maybe_ours = outcome->result == CommitResult::kAlreadyCommitted && outcome->assigned;
  if (outcome->result != CommitResult::kCommitted && !maybe_ours) {
    RemoveWrittenFiles(store, written);
  }
  return outcome;
}

Status DownloadDataFile(ObjectStore& store, std::string_view table_uri, const AddFile& add,
                        const std::string& local) {
  // Relative, or absolute under the table: the rule every commit's paths
  // follow, so that a path can name nothing outside the table.
  DC_ASSIGN_OR_RETURN(std::string key, ActionPathKey(table_uri, "add.path", add.path));
  DC_ASSIGN_OR_RETURN(std::string bytes, store.Get(key));
  std::ofstream out(local, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Failure("write", local);
  return OkStatus();
}

std::optional<int64_t> NumRecords(const AddFile& add) {
  if (!add.stats) return std::nullopt;
  const auto stats = nlohmann::json::parse(*add.stats, nullptr, /*allow_exceptions=*/false);
  if (!stats.is_object()) return std::nullopt;
  const auto it = stats.find("numRecords");
  if (it == stats.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

StatusOr<StagedScan> StageScan(ObjectStore& store, std::string_view table_uri,
                               const Snapshot& snapshot, const std::string& staging_dir) {
  StagedScan out;
  DeletionVectorReader deletion_vectors(store, std::string(table_uri));
  for (const auto& [key, add] : snapshot.active_files()) {
    // Named after the data file too, so that DuckDB's messages name it.
    const std::string_view name = std::string_view(add.path).substr(add.path.rfind('/') + 1);
    ScanFile file{staging_dir + "/" + std::to_string(out.files.size()) + "-" + std::string(name),
                  add.partition_values, {}, add.path};
    DC_RETURN_IF_ERROR(DownloadDataFile(store, table_uri, add, file.local_path));
    if (add.deletion_vector) {
      DC_ASSIGN_OR_RETURN(file.deleted_rows, deletion_vectors.DeletedRows(
                                                 *add.deletion_vector, add.path, NumRecords(add)));
    }
    out.files.push_back(std::move(file));
    out.adds.push_back(add);
  }
  return out;
}

StatusOr<TableLayout> DataLayout(const Protocol& p, const Metadata& m) {
  TableLayout layout{m.schema_string, m.partition_columns};
  if (auto it = m.configuration.find("delta.dataSkippingNumIndexedCols");
      it != m.configuration.end()) {
    try {
      size_t used = 0;
      layout.stats_columns = std::stoi(it->second, &used);
      if (used != it->second.size() || layout.stats_columns < -1) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return InvalidArgumentError("table property delta.dataSkippingNumIndexedCols=\"" +
                                  it->second + "\": expected an integer >= -1");
    }
  }
  // The property counts only where the protocol supports the feature.
  if (auto it = m.configuration.find("delta.columnMapping.mode");
      it != m.configuration.end() && IsFeatureEnabled(p, "columnMapping")) {
    layout.column_mapping_mode = it->second;
  }
  return layout;
}

}  // namespace deltacommit
