// ObjectStoreFactory: the port through which the commit service reaches a
// table's log with a request's credentials. Real: S3ObjectStoreFactory;
// unit tests hand out MemoryObjectStores.
//
// Thread-safety: implementations are safe for concurrent use; each store
// returned is safe for concurrent use too.
#pragma once

#include <memory>

#include "deltacommit/object_store.h"
#include "deltacommit/status.h"
#include "service/commits/commit_types.h"

namespace deltacommit::service {

class ObjectStoreFactory {
 public:
  virtual ~ObjectStoreFactory() = default;

  // A store rooted at access.table at access.endpoint that signs with
  // access.credentials (and with nothing else). The store may outlive
  // `access`. kInvalidArgument when access.table is not a table this
  // factory can reach (the message names it).
  virtual StatusOr<std::unique_ptr<ObjectStore>> Open(const TableAccess& access) = 0;
};

}  // namespace deltacommit::service
