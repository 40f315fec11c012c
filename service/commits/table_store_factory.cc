#include "service/commits/table_store_factory.h"

#include <string_view>

#include "deltacommit/posix/posix_object_store.h"

namespace deltacommit::service {

StatusOr<std::unique_ptr<ObjectStore>> TableStoreFactory::Open(const TableAccess& access) {
  if (!access.local()) return s3_.Open(access);
  if (access.local_root.empty()) {
    return InvalidArgumentError("local table " + access.table + " has no [local] root");
  }
  constexpr std::string_view kScheme = "file://";
  std::unique_ptr<ObjectStore> store = std::make_unique<PosixObjectStore>(
      access.table.substr(kScheme.size()), PosixObjectStore::Options{access.local_root});
  return store;
}

}  // namespace deltacommit::service
