// Forwarding wrappers on the ports: each passes every call to a wrapped
// port, so a decorator (metering, a test double, an engine's own wrapper)
// derives from it and overrides only the calls it changes (leveldb's
// EnvWrapper pattern). Calling the base class's method from an override is
// the forwarded call.
//
// Each wrapper either borrows the wrapped port (the caller keeps it alive)
// or owns it; base() is the wrapped port either way.
//
// Thread-safety: as safe as the wrapped port.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/catalog_client.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/coordination_table.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"

namespace deltacommit {

class ForwardingObjectStore : public ObjectStore {
 public:
  // `base` must outlive this object.
  explicit ForwardingObjectStore(ObjectStore& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingObjectStore(std::unique_ptr<ObjectStore> base)
      : ForwardingObjectStore(*base) {
    owned_ = std::move(base);
  }

  ObjectStore& base() const { return base_; }

  std::string Describe() const override;
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
  ObjectStore& base_;
  std::unique_ptr<ObjectStore> owned_;  // null when borrowed
};

class ForwardingCoordinationTable : public CoordinationTable {
 public:
  // `base` must outlive this object.
  explicit ForwardingCoordinationTable(CoordinationTable& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingCoordinationTable(std::unique_ptr<CoordinationTable> base)
      : ForwardingCoordinationTable(*base) {
    owned_ = std::move(base);
  }

  CoordinationTable& base() const { return base_; }

  std::string Describe() const override;
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
  CoordinationTable& base_;
  std::unique_ptr<CoordinationTable> owned_;  // null when borrowed
};

class ForwardingCommitServiceClient : public CommitServiceClient {
 public:
  // `base` must outlive this object.
  explicit ForwardingCommitServiceClient(CommitServiceClient& base)
      : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingCommitServiceClient(
      std::unique_ptr<CommitServiceClient> base)
      : ForwardingCommitServiceClient(*base) {
    owned_ = std::move(base);
  }

  CommitServiceClient& base() const { return base_; }

  std::string Describe() const override;
  std::string Url() const override;
  ServiceCommitResult Commit(const ServiceCommitRequest& request) override;
  StatusOr<PendingCommits> GetPendingCommits(std::string_view table,
                                             Version start) override;

 private:
  CommitServiceClient& base_;
  std::unique_ptr<CommitServiceClient> owned_;  // null when borrowed
};

class ForwardingCatalogClient : public CatalogClient {
 public:
  // `base` must outlive this object.
  explicit ForwardingCatalogClient(CatalogClient& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingCatalogClient(std::unique_ptr<CatalogClient> base)
      : ForwardingCatalogClient(*base) {
    owned_ = std::move(base);
  }

  CatalogClient& base() const { return base_; }

  std::string Describe() const override;
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
  CatalogClient& base_;
  std::unique_ptr<CatalogClient> owned_;  // null when borrowed
};

// Forwards WriteCheckpoint and WriteCheckpointActions too: a read-only
// wrapped handler refuses them itself (the port's default).
class ForwardingParquetHandler : public ParquetHandler {
 public:
  // `base` must outlive this object.
  explicit ForwardingParquetHandler(ParquetHandler& base) : base_(base) {}
  // Owns `base`, which must not be null.
  explicit ForwardingParquetHandler(std::unique_ptr<ParquetHandler> base)
      : ForwardingParquetHandler(*base) {
    owned_ = std::move(base);
  }

  ParquetHandler& base() const { return base_; }

  StatusOr<std::vector<std::string>> ReadCheckpointActions(
      ObjectStore& store, const std::vector<std::string>& keys) override;
  StatusOr<std::vector<Action>> ReadCheckpoint(ObjectStore& store,
                                               const std::vector<std::string>& keys) override;
  Status ReadCheckpointInBatches(ObjectStore& store, const std::vector<std::string>& keys,
                                 const ActionBatch& apply) override;
  StatusOr<int64_t> WriteCheckpoint(ObjectStore& store, const std::string& key,
                                    const std::vector<Action>& actions) override;
  StatusOr<int64_t> WriteCheckpointActions(ObjectStore& store, const std::string& key,
                                           const std::vector<std::string>& action_lines) override;

 private:
  ParquetHandler& base_;
  std::unique_ptr<ParquetHandler> owned_;  // null when borrowed
};

}  // namespace deltacommit
