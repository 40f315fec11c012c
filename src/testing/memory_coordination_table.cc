#include "deltacommit/testing/memory_coordination_table.h"

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

StatusOr<CommitEntryPage> MemoryCoordinationTable::ListPage(const std::string& table_path,
                                                            const std::string& start_after,
                                                            int limit) {
  if (limit <= 0) {
    return InvalidArgumentError("listing commit entries: page limit " + std::to_string(limit) +
                                " is not positive");
  }
  std::lock_guard<std::mutex> lock(mu_);
  CommitEntryPage page;
  auto it = entries_.upper_bound({table_path, start_after});
  for (; it != entries_.end() && it->first.first == table_path; ++it) {
    if (page.entries.size() == static_cast<size_t>(limit)) {
      page.next_start_after = page.entries.back().file_name;  // more follow
      break;
    }
    page.entries.push_back(it->second);
  }
  return page;
}

}  // namespace deltacommit
