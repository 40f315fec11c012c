#include "service/commits/testing/memory_store_factory.h"

#include <utility>

#include "deltacommit/aws/errors.h"
#include "deltacommit/testing/forwarding_object_store.h"

namespace deltacommit::service::testing {
namespace {

// Counts calls, and refuses all of them when the credentials were wrong.
class RequestStore : public ForwardingObjectStore {
 public:
  RequestStore(ObjectStore& base, std::shared_ptr<MemoryStoreFactory::Shared> shared,
               std::optional<Status> refusal)
      : ForwardingObjectStore(base), shared_(std::move(shared)), refusal_(std::move(refusal)) {}

  StatusOr<std::string> Get(std::string_view key, std::optional<ByteRange> range) override {
    DC_RETURN_IF_ERROR(Enter());
    return ForwardingObjectStore::Get(key, range);
  }
  StatusOr<ObjectMeta> Head(std::string_view key) override {
    DC_RETURN_IF_ERROR(Enter());
    return ForwardingObjectStore::Head(key);
  }
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after) override {
    DC_RETURN_IF_ERROR(Enter());
    return ForwardingObjectStore::List(prefix, start_after);
  }
  Status PutIfAbsent(std::string_view key, std::string_view data) override {
    DC_RETURN_IF_ERROR(Enter());
    return Wrote(key, ForwardingObjectStore::PutIfAbsent(key, data));
  }
  Status Put(std::string_view key, std::string_view data) override {
    DC_RETURN_IF_ERROR(Enter());
    return Wrote(key, ForwardingObjectStore::Put(key, data));
  }
  Status Copy(std::string_view src, std::string_view dst, bool if_absent) override {
    DC_RETURN_IF_ERROR(Enter());
    return Wrote(dst, ForwardingObjectStore::Copy(src, dst, if_absent));
  }
  Status Delete(std::string_view key) override {
    DC_RETURN_IF_ERROR(Enter());
    return ForwardingObjectStore::Delete(key);
  }

 private:
  Status Enter() {
    ++shared_->calls;
    return refusal_ ? *refusal_ : OkStatus();
  }
  Status Wrote(std::string_view key, Status status) {
    if (status.ok()) {
      std::lock_guard lock(shared_->mu);
      ++shared_->writes[std::string(key)];
    }
    return status;
  }

  std::shared_ptr<MemoryStoreFactory::Shared> shared_;
  std::optional<Status> refusal_;
};

Status SignatureRefused(const TableAccess& access) {
  aws::AwsError error{403, "SignatureDoesNotMatch", "", "test-request-id"};
  aws::AwsErrorContext context{"S3",          "ListObjectsV2",
                               access.table,  "memory://",
                               "the request", access.credentials.RedactedKeyId()};
  return aws::ErrorToStatus(error, context);
}

}  // namespace

StatusOr<std::unique_ptr<ObjectStore>> MemoryStoreFactory::Open(const TableAccess& access) {
  ++opens_;
  std::optional<Status> refusal;
  if (access.credentials.secret_access_key != accepted_secret_) refusal = SignatureRefused(access);
  std::unique_ptr<ObjectStore> store =
      std::make_unique<RequestStore>(*TableFor(access.table).faults, shared_, refusal);
  return store;
}

int64_t MemoryStoreFactory::SuccessfulWrites(const std::string& key) const {
  std::lock_guard lock(shared_->mu);
  auto it = shared_->writes.find(key);
  return it == shared_->writes.end() ? 0 : it->second;
}

MemoryObjectStore& MemoryStoreFactory::Memory(const std::string& table) {
  return *TableFor(table).memory;
}

FaultInjectingObjectStore& MemoryStoreFactory::Faults(const std::string& table) {
  return *TableFor(table).faults;
}

MemoryStoreFactory::Table& MemoryStoreFactory::TableFor(const std::string& table) {
  std::lock_guard lock(mu_);
  Table& t = tables_[table];
  if (!t.memory) {
    t.memory = std::make_unique<MemoryObjectStore>();
    t.faults = std::make_unique<FaultInjectingObjectStore>(*t.memory);
  }
  return t;
}

}  // namespace deltacommit::service::testing
