#include "deltacommit/testing/fault_coordination_table.h"

#include <array>

namespace deltacommit {
namespace {

// Indexed by CoordinationTableOp.
constexpr std::array<std::string_view, kCoordinationTableOpCount> kCoordinationTableOpNames = {
    "PutIfAbsent", "Put", "Get", "GetLatest", "ListPage"};

}  // namespace

std::string_view CoordinationTableOpName(CoordinationTableOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kCoordinationTableOpNames.size() ? kCoordinationTableOpNames[index] : "Unknown";
}

FaultInjectingCoordinationTable::FaultInjectingCoordinationTable(
    CoordinationTable& base, Sleeper& sleeper)
    : ForwardingCoordinationTable(base), PortFaults(kCoordinationTableOpNames, sleeper) {}

FaultInjectingCoordinationTable::~FaultInjectingCoordinationTable() {
  ClearRules();
}

Status FaultInjectingCoordinationTable::PutIfAbsent(
    const ExternalCommitEntry& entry) {
  return Intercept<Status>(
      CoordinationTableOp::kPutIfAbsent, {entry.file_name, entry.table_path},
      [&] { return ForwardingCoordinationTable::PutIfAbsent(entry); });
}

Status FaultInjectingCoordinationTable::Put(const ExternalCommitEntry& entry) {
  return Intercept<Status>(
      CoordinationTableOp::kPut, {entry.file_name, entry.table_path},
      [&] { return ForwardingCoordinationTable::Put(entry); });
}

StatusOr<std::optional<ExternalCommitEntry>>
FaultInjectingCoordinationTable::Get(const std::string& table_path,
                                     const std::string& file_name) {
  return Intercept<StatusOr<std::optional<ExternalCommitEntry>>>(
      CoordinationTableOp::kGet, {file_name, table_path},
      [&] { return ForwardingCoordinationTable::Get(table_path, file_name); });
}

StatusOr<std::optional<ExternalCommitEntry>>
FaultInjectingCoordinationTable::GetLatest(const std::string& table_path) {
  return Intercept<StatusOr<std::optional<ExternalCommitEntry>>>(
      CoordinationTableOp::kGetLatest, {table_path},
      [&] { return ForwardingCoordinationTable::GetLatest(table_path); });
}

StatusOr<CommitEntryPage> FaultInjectingCoordinationTable::ListPage(
    const std::string& table_path, const std::string& start_after, int limit) {
  return Intercept<StatusOr<CommitEntryPage>>(
      CoordinationTableOp::kListPage, {table_path}, [&] {
        return ForwardingCoordinationTable::ListPage(table_path, start_after,
                                                     limit);
      });
}

}  // namespace deltacommit
