// MemoryStoreFactory: an ObjectStoreFactory for unit tests. Each table URI
// gets one MemoryObjectStore behind a FaultInjectingObjectStore (shared by
// every store opened for it, as S3 is shared by service instances). A store
// opened with a secret other than the accepted one fails every call with
// the kUnauthenticated Status S3ObjectStore gives for SignatureDoesNotMatch.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_object_store.h"
#include "service/commits/object_store_factory.h"

namespace deltacommit::service::testing {

class MemoryStoreFactory : public ObjectStoreFactory {
 public:
  explicit MemoryStoreFactory(std::string accepted_secret = "secret")
      : accepted_secret_(std::move(accepted_secret)) {}

  StatusOr<std::unique_ptr<ObjectStore>> Open(const TableAccess& access) override;

  // The table's store underneath the faults (created on first use).
  MemoryObjectStore& Memory(const std::string& table);
  // The fault layer every opened store of `table` goes through.
  FaultInjectingObjectStore& Faults(const std::string& table);

  int64_t Opens() const { return opens_.load(); }
  // Calls that reached a store of any table (through Open's stores).
  int64_t Calls() const { return shared_->calls.load(); }
  // Successful Put, PutIfAbsent and Copy calls that wrote `key` (of any
  // table) through Open's stores: a commit file written twice is an
  // overwrite.
  int64_t SuccessfulWrites(const std::string& key) const;

  // What the stores Open returns share with the factory.
  struct Shared {
    std::atomic<int64_t> calls{0};
    mutable std::mutex mu;
    std::map<std::string, int64_t> writes;  // guarded by mu
  };

 private:
  struct Table {
    std::unique_ptr<MemoryObjectStore> memory;
    std::unique_ptr<FaultInjectingObjectStore> faults;
  };
  Table& TableFor(const std::string& table);

  const std::string accepted_secret_;
  std::atomic<int64_t> opens_{0};
  const std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::mutex mu_;
  std::map<std::string, Table> tables_;  // guarded by mu_; entries never move
};

}  // namespace deltacommit::service::testing
