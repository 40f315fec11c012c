#include "testing/memory_coordination_table.h"

namespace deltacommit {

Status MemoryCoordinationTable::PutIfAbsent(const ExternalCommitEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = entries_.try_emplace({entry.table_path, entry.file_name}, entry);
  if (!inserted) {
    return AlreadyExistsError("entry " + entry.table_path + " " + entry.file_name + " exists");
  }
  return OkStatus();
}

Status MemoryCoordinationTable::Put(const ExternalCommitEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.insert_or_assign({entry.table_path, entry.file_name}, entry);
  return OkStatus();
}

StatusOr<std::optional<ExternalCommitEntry>> MemoryCoordinationTable::Get(
    const std::string& table_path, const std::string& file_name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find({table_path, file_name});
  if (it == entries_.end()) return std::optional<ExternalCommitEntry>();
  return std::optional<ExternalCommitEntry>(it->second);
}

StatusOr<std::optional<ExternalCommitEntry>> MemoryCoordinationTable::GetLatest(
    const std::string& table_path) {
  std::lock_guard<std::mutex> lock(mu_);
  // Keys sort by (table_path, file_name): the last key below the next table
  // path is the latest entry of this one.
  auto it = entries_.lower_bound({table_path + '\0', std::string()});
  if (it == entries_.begin()) return std::optional<ExternalCommitEntry>();
  --it;
  if (it->first.first != table_path) return std::optional<ExternalCommitEntry>();
  return std::optional<ExternalCommitEntry>(it->second);
}

}  // namespace deltacommit
