#include "deltacommit/forwarding_ports.h"

namespace deltacommit {

std::string ForwardingObjectStore::Describe() const { return base_.Describe(); }

StatusOr<std::string> ForwardingObjectStore::Get(
    std::string_view key, std::optional<ByteRange> range) {
  return base_.Get(key, range);
}

StatusOr<ObjectMeta> ForwardingObjectStore::Head(std::string_view key) {
  return base_.Head(key);
}

StatusOr<std::vector<ObjectMeta>> ForwardingObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  return base_.List(prefix, start_after);
}

Status ForwardingObjectStore::PutIfAbsent(std::string_view key,
                                          std::string_view data) {
  return base_.PutIfAbsent(key, data);
}

Status ForwardingObjectStore::Put(std::string_view key, std::string_view data) {
  return base_.Put(key, data);
}

Status ForwardingObjectStore::Copy(std::string_view src, std::string_view dst,
                                   bool if_absent) {
  return base_.Copy(src, dst, if_absent);
}

Status ForwardingObjectStore::Delete(std::string_view key) {
  return base_.Delete(key);
}

std::string ForwardingCoordinationTable::Describe() const {
  return base_.Describe();
}

Status ForwardingCoordinationTable::PutIfAbsent(
    const ExternalCommitEntry& entry) {
  return base_.PutIfAbsent(entry);
}

Status ForwardingCoordinationTable::Put(const ExternalCommitEntry& entry) {
  return base_.Put(entry);
}

StatusOr<std::optional<ExternalCommitEntry>> ForwardingCoordinationTable::Get(
    const std::string& table_path, const std::string& file_name) {
  return base_.Get(table_path, file_name);
}

StatusOr<std::optional<ExternalCommitEntry>>
ForwardingCoordinationTable::GetLatest(const std::string& table_path) {
  return base_.GetLatest(table_path);
}

StatusOr<CommitEntryPage> ForwardingCoordinationTable::ListPage(
    const std::string& table_path, const std::string& start_after, int limit) {
  return base_.ListPage(table_path, start_after, limit);
}

std::string ForwardingCommitServiceClient::Describe() const {
  return base_.Describe();
}

std::string ForwardingCommitServiceClient::Url() const { return base_.Url(); }

ServiceCommitResult ForwardingCommitServiceClient::Commit(
    const ServiceCommitRequest& request) {
  return base_.Commit(request);
}

StatusOr<PendingCommits> ForwardingCommitServiceClient::GetPendingCommits(
    std::string_view table, Version start) {
  return base_.GetPendingCommits(table, start);
}

std::string ForwardingCatalogClient::Describe() const { return base_.Describe(); }

StatusOr<CatalogTable> ForwardingCatalogClient::LoadTable(const CatalogTableName& name) {
  return base_.LoadTable(name);
}

StatusOr<VendedCredentials> ForwardingCatalogClient::TableCredentials(
    const CatalogTableName& name, std::string_view location, CatalogAccess access) {
  return base_.TableCredentials(name, location, access);
}

StatusOr<CatalogStagingTable> ForwardingCatalogClient::CreateStagingTable(
    const CatalogTableName& name) {
  return base_.CreateStagingTable(name);
}

StatusOr<VendedCredentials> ForwardingCatalogClient::StagingTableCredentials(
    const std::string& table_id) {
  return base_.StagingTableCredentials(table_id);
}

Status ForwardingCatalogClient::CreateTable(const CatalogTableName& name,
                                            const CatalogNewTable& table) {
  return base_.CreateTable(name, table);
}

Status ForwardingCatalogClient::Commit(const CatalogTableName& name, const std::string& table_id,
                                       const CatalogCommit& commit,
                                       std::optional<Version> backfilled) {
  return base_.Commit(name, table_id, commit, backfilled);
}

StatusOr<std::vector<std::string>>
ForwardingParquetHandler::ReadCheckpointActions(
    ObjectStore& store, const std::vector<std::string>& keys) {
  return base_.ReadCheckpointActions(store, keys);
}

StatusOr<std::vector<Action>> ForwardingParquetHandler::ReadCheckpoint(
    ObjectStore& store, const std::vector<std::string>& keys) {
  return base_.ReadCheckpoint(store, keys);
}

Status ForwardingParquetHandler::ReadCheckpointInBatches(ObjectStore& store,
                                                         const std::vector<std::string>& keys,
                                                         const ActionBatch& apply) {
  return base_.ReadCheckpointInBatches(store, keys, apply);
}

StatusOr<int64_t> ForwardingParquetHandler::WriteCheckpoint(ObjectStore& store,
                                                            const std::string& key,
                                                            const std::vector<Action>& actions) {
  return base_.WriteCheckpoint(store, key, actions);
}

StatusOr<int64_t> ForwardingParquetHandler::WriteCheckpointActions(
    ObjectStore& store, const std::string& key, const std::vector<std::string>& action_lines) {
  return base_.WriteCheckpointActions(store, key, action_lines);
}

}  // namespace deltacommit
