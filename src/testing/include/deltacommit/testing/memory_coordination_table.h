// MemoryCoordinationTable: an in-memory CoordinationTable with the port's
// contract (atomic PutIfAbsent, consistent reads), for unit tests and model
// checking; the DynamoDB adapter is held to the same behaviour by its
// integration tests on dynalite.
//
// Thread-safety: safe for concurrent use (one mutex).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "deltacommit/coordination_table.h"

namespace deltacommit {

class MemoryCoordinationTable : public CoordinationTable {
 public:
  std::string Describe() const override { return "memory coordination table"; }
  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(const std::string& table_path,
                                                   const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                     const std::string& start_after, int limit) override;

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, ExternalCommitEntry> entries_;  // guarded by mu_
};

}  // namespace deltacommit
