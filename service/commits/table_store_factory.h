// TableStoreFactory: the ObjectStoreFactory `serve` uses. S3 tables go to
// the S3 factory; a local (file:///path) table, already checked against the
// config's [local] roots (service/config/local_tables.h), is a
// PosixObjectStore rooted at its directory and confined beneath its root
// (no symbolic link followed), whose PutIfAbsent is atomic across processes
// (link(2)) as S3's If-None-Match is.
//
// Thread-safety: safe for concurrent use, as `s3` is.
#pragma once

#include <memory>

#include "service/commits/object_store_factory.h"

namespace deltacommit::service {

class TableStoreFactory : public ObjectStoreFactory {
 public:
  // `s3` must outlive the factory.
  explicit TableStoreFactory(ObjectStoreFactory& s3) : s3_(s3) {}

  StatusOr<std::unique_ptr<ObjectStore>> Open(const TableAccess& access) override;

 private:
  ObjectStoreFactory& s3_;
};

}  // namespace deltacommit::service
