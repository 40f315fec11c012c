#include "deltacommit/forwarding_ports.h"

namespace deltacommit {

std::string ForwardingObjectStore::Describe() const { return base_.Describe(); }

StatusOr<std::string> ForwardingObjectStore::Get(
    std::string_view key, std::optional<ByteRange> range) {
  return base_.Get(key, range);
}

StatusOr<ObjectMeta> ForwardingObjectStore::Head(std::string_view key) {
  return base_.Head(key);
}

StatusOr<std::vector<ObjectMeta>> ForwardingObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  return base_.List(prefix, start_after);
}

Status ForwardingObjectStore::PutIfAbsent(std::string_view key,
                                          std::string_view data) {
  return base_.PutIfAbsent(key, data);
}

Status ForwardingObjectStore::Put(std::string_view key, std::string_view data) {
  return base_.Put(key, data);
}

Status ForwardingObjectStore::Copy(std::string_view src, std::string_view dst,
                                   bool if_absent) {
  return base_.Copy(src, dst, if_absent);
}

Status ForwardingObjectStore::Delete(std::string_view key) {
  return base_.Delete(key);
}

}  // namespace deltacommit
