// Forwarding wrappers on the ports. ForwardingObjectStore passes every call
// to a wrapped ObjectStore, so a decorator (metering, a test double, an
// engine's own wrapper) derives from it and overrides only the calls it
// changes (leveldb's EnvWrapper pattern).
//
// Thread-safety: as safe as the wrapped store.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/object_store.h"

namespace deltacommit {

class ForwardingObjectStore : public ObjectStore {
 public:
  // `base` must outlive this object.
  explicit ForwardingObjectStore(ObjectStore& base) : base_(base) {}

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
};

}  // namespace deltacommit
