// MemoryObjectStore: an in-memory ObjectStore with the full port contract
// (validated keys, byte-ordered recursive List, atomic PutIfAbsent). It is the
// reference the contract suite holds the real adapters to, and the fast store
// for unit tests and model checking.
//
// Thread-safety: safe for concurrent use (one mutex over the whole map, so
// every call is linearizable).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/clock.h"
#include "deltacommit/object_store.h"

namespace deltacommit {

class MemoryObjectStore : public ObjectStore {
 public:
  // `clock` stamps last_modified_ms; it must outlive the store.
  explicit MemoryObjectStore(Clock& clock = SystemClock());

  std::string Describe() const override { return "memory://"; }
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
  struct Object {
    std::string data;
    int64_t last_modified_ms = 0;
  };

  Status NotFound(std::string_view key) const;
  // REQUIRES: mu_ held.
  Status StoreLocked(std::string_view key, std::string data, bool if_absent);

  Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Object, std::less<>> objects_;  // guarded by mu_
};

}  // namespace deltacommit
