#include "deltacommit/metering.h"

namespace deltacommit {

std::string_view CallKindName(CallKind kind) {
  switch (kind) {
    case CallKind::kS3Get:
      return "s3_get";
    case CallKind::kS3Head:
      return "s3_head";
    case CallKind::kS3List:
      return "s3_list";
    case CallKind::kS3Put:
      return "s3_put";
    case CallKind::kS3Copy:
      return "s3_copy";
    case CallKind::kS3Delete:
      return "s3_delete";
    case CallKind::kDynamoDbRead:
      return "dynamodb_read";
    case CallKind::kDynamoDbWrite:
      return "dynamodb_write";
    case CallKind::kServiceCommit:
      return "service_commit";
    case CallKind::kServicePending:
      return "service_pending";
    case CallKind::kCatalogLoad:
      return "catalog_load";
    case CallKind::kCatalogCredentials:
      return "catalog_credentials";
    case CallKind::kCatalogCommit:
      return "catalog_commit";
    case CallKind::kCatalogCreate:
      return "catalog_create";
  }
  return "unknown";
}

std::map<std::string, int64_t> CallMeter::Counts() const {
  std::map<std::string, int64_t> out;
  for (int i = 0; i < kCallKinds; ++i) {
    const auto kind = static_cast<CallKind>(i);
    out[std::string(CallKindName(kind))] = Count(kind);
  }
  return out;
}

StatusOr<std::string> MeteringObjectStore::Get(std::string_view key,
                                               std::optional<ByteRange> range) {
  meter_.Add(CallKind::kS3Get);
  return ForwardingObjectStore::Get(key, range);
}

StatusOr<ObjectMeta> MeteringObjectStore::Head(std::string_view key) {
  meter_.Add(CallKind::kS3Head);
  return ForwardingObjectStore::Head(key);
}

StatusOr<std::vector<ObjectMeta>> MeteringObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  // One call here may be several LIST pages on S3; the port hides them.
  meter_.Add(CallKind::kS3List);
  return ForwardingObjectStore::List(prefix, start_after);
}

Status MeteringObjectStore::PutIfAbsent(std::string_view key,
                                        std::string_view data) {
  meter_.Add(CallKind::kS3Put);
  return ForwardingObjectStore::PutIfAbsent(key, data);
}

Status MeteringObjectStore::Put(std::string_view key, std::string_view data) {
  meter_.Add(CallKind::kS3Put);
  return ForwardingObjectStore::Put(key, data);
}

Status MeteringObjectStore::Copy(std::string_view src, std::string_view dst,
                                 bool if_absent) {
  meter_.Add(CallKind::kS3Copy);
  return ForwardingObjectStore::Copy(src, dst, if_absent);
}

Status MeteringObjectStore::Delete(std::string_view key) {
  meter_.Add(CallKind::kS3Delete);
  return ForwardingObjectStore::Delete(key);
}

Status MeteringCoordinationTable::PutIfAbsent(
    const ExternalCommitEntry& entry) {
  meter_.Add(CallKind::kDynamoDbWrite);
  return ForwardingCoordinationTable::PutIfAbsent(entry);
}

Status MeteringCoordinationTable::Put(const ExternalCommitEntry& entry) {
  meter_.Add(CallKind::kDynamoDbWrite);
  return ForwardingCoordinationTable::Put(entry);
}

StatusOr<std::optional<ExternalCommitEntry>> MeteringCoordinationTable::Get(
    const std::string& table_path, const std::string& file_name) {
  meter_.Add(CallKind::kDynamoDbRead);
  return ForwardingCoordinationTable::Get(table_path, file_name);
}

StatusOr<std::optional<ExternalCommitEntry>>
MeteringCoordinationTable::GetLatest(const std::string& table_path) {
  meter_.Add(CallKind::kDynamoDbRead);
  return ForwardingCoordinationTable::GetLatest(table_path);
}

StatusOr<CommitEntryPage> MeteringCoordinationTable::ListPage(
    const std::string& table_path, const std::string& start_after, int limit) {
  meter_.Add(CallKind::kDynamoDbRead);
  return ForwardingCoordinationTable::ListPage(table_path, start_after, limit);
}

ServiceCommitResult MeteringCommitServiceClient::Commit(
    const ServiceCommitRequest& request) {
  meter_.Add(CallKind::kServiceCommit);
  return ForwardingCommitServiceClient::Commit(request);
}

StatusOr<PendingCommits> MeteringCommitServiceClient::GetPendingCommits(
    std::string_view table, Version start) {
  meter_.Add(CallKind::kServicePending);
  return ForwardingCommitServiceClient::GetPendingCommits(table, start);
}

StatusOr<CatalogTable> MeteringCatalogClient::LoadTable(const CatalogTableName& name) {
  meter_.Add(CallKind::kCatalogLoad);
  return ForwardingCatalogClient::LoadTable(name);
}

StatusOr<VendedCredentials> MeteringCatalogClient::TableCredentials(const CatalogTableName& name,
                                                                    std::string_view location,
                                                                    CatalogAccess access) {
  meter_.Add(CallKind::kCatalogCredentials);
  return ForwardingCatalogClient::TableCredentials(name, location, access);
}

StatusOr<CatalogStagingTable> MeteringCatalogClient::CreateStagingTable(
    const CatalogTableName& name) {
  meter_.Add(CallKind::kCatalogCreate);
  return ForwardingCatalogClient::CreateStagingTable(name);
}

StatusOr<VendedCredentials> MeteringCatalogClient::StagingTableCredentials(
    const std::string& table_id) {
  meter_.Add(CallKind::kCatalogCredentials);
  return ForwardingCatalogClient::StagingTableCredentials(table_id);
}

Status MeteringCatalogClient::CreateTable(const CatalogTableName& name,
                                          const CatalogNewTable& table) {
  meter_.Add(CallKind::kCatalogCreate);
  return ForwardingCatalogClient::CreateTable(name, table);
}

Status MeteringCatalogClient::Commit(const CatalogTableName& name, const std::string& table_id,
                                     const CatalogCommit& commit,
                                     std::optional<Version> backfilled) {
  meter_.Add(CallKind::kCatalogCommit);
  return ForwardingCatalogClient::Commit(name, table_id, commit, backfilled);
}

}  // namespace deltacommit
