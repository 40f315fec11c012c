// Metering wrappers on the ports: count the remote calls a commit makes, by
// kind (S3 request, DynamoDB read or write, commit service or catalog
// call), so that
// commit modes can be compared by what they cost rather than by wall time
// alone (benchmarks; `DELTACOMMIT_METER=1` in the CLI).
//
// Thread-safety: a CallMeter and the wrappers are safe to use from several
// threads when the wrapped port is; the counters are atomics.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "deltacommit/catalog_client.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/forwarding_ports.h"
#include "deltacommit/object_store.h"

namespace deltacommit {

// One kind of remote call. S3 PUT counts Put and PutIfAbsent; DynamoDB reads
// are Get, GetLatest and ListPage, its writes PutIfAbsent and Put. A
// catalog's credentials are a table's or a staging table's; its creates are
// a staging table and the table itself.
enum class CallKind {
  kS3Get,
  kS3Head,
  kS3List,
  kS3Put,
  kS3Copy,
  kS3Delete,
  kDynamoDbRead,
  kDynamoDbWrite,
  kServiceCommit,
  kServicePending,
  kCatalogLoad,
  kCatalogCredentials,
  kCatalogCommit,
  kCatalogCreate,
};
inline constexpr int kCallKinds = 14;

// The kind's name in reports: "s3_get", ..., "dynamodb_read", "service_commit",
// "catalog_load", ...
std::string_view CallKindName(CallKind kind);

class CallMeter {
 public:
  void Add(CallKind kind) {
    counts_[Index(kind)].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t Count(CallKind kind) const {
    return counts_[Index(kind)].load(std::memory_order_relaxed);
  }
  // Every kind by name, zeros included.
  std::map<std::string, int64_t> Counts() const;

 private:
  static size_t Index(CallKind kind) { return static_cast<size_t>(kind); }
  std::array<std::atomic<int64_t>, kCallKinds> counts_{};
};

// Each counts every call (failed ones too: they cost a request) and forwards
// it to the port it owns. Describe() and Url() are not remote calls.
class MeteringObjectStore : public ForwardingObjectStore {
 public:
  MeteringObjectStore(std::unique_ptr<ObjectStore> base, CallMeter& meter)
      : ForwardingObjectStore(std::move(base)), meter_(meter) {}

  StatusOr<std::string> Get(
      std::string_view key,
      std::optional<ByteRange> range = std::nullopt) override;
  StatusOr<ObjectMeta> Head(std::string_view key) override;
  StatusOr<std::vector<ObjectMeta>> List(
      std::string_view prefix, std::string_view start_after = {}) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status Copy(std::string_view src, std::string_view dst,
              bool if_absent) override;
  Status Delete(std::string_view key) override;

 private:
  CallMeter& meter_;
};

class MeteringCoordinationTable : public ForwardingCoordinationTable {
 public:
  MeteringCoordinationTable(std::unique_ptr<CoordinationTable> base,
                            CallMeter& meter)
      : ForwardingCoordinationTable(std::move(base)), meter_(meter) {}

  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(
      const std::string& table_path, const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(
      const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                     const std::string& start_after,
                                     int limit) override;

 private:
  CallMeter& meter_;
};

class MeteringCommitServiceClient : public ForwardingCommitServiceClient {
 public:
  MeteringCommitServiceClient(std::unique_ptr<CommitServiceClient> base,
                              CallMeter& meter)
      : ForwardingCommitServiceClient(std::move(base)), meter_(meter) {}

  ServiceCommitResult Commit(const ServiceCommitRequest& request) override;
  StatusOr<PendingCommits> GetPendingCommits(std::string_view table,
                                             Version start) override;

 private:
  CallMeter& meter_;
};

class MeteringCatalogClient : public ForwardingCatalogClient {
 public:
  MeteringCatalogClient(std::unique_ptr<CatalogClient> base, CallMeter& meter)
      : ForwardingCatalogClient(std::move(base)), meter_(meter) {}

  StatusOr<CatalogTable> LoadTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> TableCredentials(const CatalogTableName& name,
                                               std::string_view location,
                                               CatalogAccess access) override;
  StatusOr<CatalogStagingTable> CreateStagingTable(const CatalogTableName& name) override;
  StatusOr<VendedCredentials> StagingTableCredentials(const std::string& table_id) override;
  Status CreateTable(const CatalogTableName& name, const CatalogNewTable& table) override;
  Status Commit(const CatalogTableName& name, const std::string& table_id,
                const CatalogCommit& commit, std::optional<Version> backfilled) override;

 private:
  CallMeter& meter_;
};

}  // namespace deltacommit
