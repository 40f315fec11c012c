#include "deltacommit/testing/fault_parquet_handler.h"

#include <array>

namespace deltacommit {
namespace {

// Indexed by ParquetHandlerOp.
constexpr std::array<std::string_view, kParquetHandlerOpCount> kParquetHandlerOpNames = {
    "ReadCheckpointActions", "WriteCheckpoint"};

}  // namespace

std::string_view ParquetHandlerOpName(ParquetHandlerOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kParquetHandlerOpNames.size() ? kParquetHandlerOpNames[index] : "Unknown";
}

FaultInjectingParquetHandler::FaultInjectingParquetHandler(ParquetHandler& base,
                                                           Sleeper& sleeper)
    : ForwardingParquetHandler(base), PortFaults(kParquetHandlerOpNames, sleeper) {}

FaultInjectingParquetHandler::~FaultInjectingParquetHandler() { ClearRules(); }

StatusOr<std::vector<std::string>>
FaultInjectingParquetHandler::ReadCheckpointActions(
    ObjectStore& store, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> key_views(keys.begin(), keys.end());
  return Intercept<StatusOr<std::vector<std::string>>>(
      ParquetHandlerOp::kReadCheckpointActions, key_views, [&] {
        return ForwardingParquetHandler::ReadCheckpointActions(store, keys);
      });
}

StatusOr<std::vector<Action>> FaultInjectingParquetHandler::ReadCheckpoint(
    ObjectStore& store, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> key_views(keys.begin(), keys.end());
  return Intercept<StatusOr<std::vector<Action>>>(
      ParquetHandlerOp::kReadCheckpointActions, key_views,
      [&] { return ForwardingParquetHandler::ReadCheckpoint(store, keys); });
}

Status FaultInjectingParquetHandler::ReadCheckpointInBatches(ObjectStore& store,
                                                             const std::vector<std::string>& keys,
                                                             const ActionBatch& apply) {
  const std::vector<std::string_view> key_views(keys.begin(), keys.end());
  return Intercept<Status>(ParquetHandlerOp::kReadCheckpointActions, key_views, [&] {
    return ForwardingParquetHandler::ReadCheckpointInBatches(store, keys, apply);
  });
}

StatusOr<int64_t> FaultInjectingParquetHandler::WriteCheckpoint(
    ObjectStore& store, const std::string& key, const std::vector<Action>& actions) {
  return Intercept<StatusOr<int64_t>>(ParquetHandlerOp::kWriteCheckpoint, {key}, [&] {
    return ForwardingParquetHandler::WriteCheckpoint(store, key, actions);
  });
}

StatusOr<int64_t> FaultInjectingParquetHandler::WriteCheckpointActions(
    ObjectStore& store, const std::string& key,
    const std::vector<std::string>& action_lines) {
  return Intercept<StatusOr<int64_t>>(
      ParquetHandlerOp::kWriteCheckpoint, {key}, [&] {
        return ForwardingParquetHandler::WriteCheckpointActions(store, key,
                                                                action_lines);
      });
}

}  // namespace deltacommit
