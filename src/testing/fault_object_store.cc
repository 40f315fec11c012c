#include "deltacommit/testing/fault_object_store.h"

#include <array>

namespace deltacommit {
namespace {

// Indexed by ObjectStoreOp.
constexpr std::array<std::string_view, kObjectStoreOpCount> kObjectStoreOpNames = {
    "Get", "Head", "List", "PutIfAbsent", "Put", "Copy", "Delete"};

}  // namespace

std::string_view ObjectStoreOpName(ObjectStoreOp op) {
  const auto index = static_cast<size_t>(op);
  return index < kObjectStoreOpNames.size() ? kObjectStoreOpNames[index] : "Unknown";
}

FaultInjectingObjectStore::FaultInjectingObjectStore(ObjectStore& base,
                                                     Sleeper& sleeper)
    : ForwardingObjectStore(base), PortFaults(kObjectStoreOpNames, sleeper) {}

FaultInjectingObjectStore::~FaultInjectingObjectStore() { ClearRules(); }

StatusOr<std::string> FaultInjectingObjectStore::Get(
    std::string_view key, std::optional<ByteRange> range) {
  return Intercept<StatusOr<std::string>>(ObjectStoreOp::kGet, {key}, [&] {
    return ForwardingObjectStore::Get(key, range);
  });
}

StatusOr<ObjectMeta> FaultInjectingObjectStore::Head(std::string_view key) {
  return Intercept<StatusOr<ObjectMeta>>(ObjectStoreOp::kHead, {key}, [&] {
    return ForwardingObjectStore::Head(key);
  });
}

StatusOr<std::vector<ObjectMeta>> FaultInjectingObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  return Intercept<StatusOr<std::vector<ObjectMeta>>>(
      ObjectStoreOp::kList, {prefix},
      [&] { return ForwardingObjectStore::List(prefix, start_after); });
}

Status FaultInjectingObjectStore::PutIfAbsent(std::string_view key,
                                              std::string_view data) {
  return Intercept<Status>(ObjectStoreOp::kPutIfAbsent, {key}, [&] {
    return ForwardingObjectStore::PutIfAbsent(key, data);
  });
}

Status FaultInjectingObjectStore::Put(std::string_view key,
                                      std::string_view data) {
  return Intercept<Status>(ObjectStoreOp::kPut, {key}, [&] {
    return ForwardingObjectStore::Put(key, data);
  });
}

Status FaultInjectingObjectStore::Copy(std::string_view src,
                                       std::string_view dst, bool if_absent) {
  return Intercept<Status>(ObjectStoreOp::kCopy, {dst, src}, [&] {
    return ForwardingObjectStore::Copy(src, dst, if_absent);
  });
}

Status FaultInjectingObjectStore::Delete(std::string_view key) {
  return Intercept<Status>(ObjectStoreOp::kDelete, {key},
                           [&] { return ForwardingObjectStore::Delete(key); });
}

}  // namespace deltacommit
