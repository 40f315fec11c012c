#include "deltacommit/testing/memory_object_store.h"

#include <algorithm>
#include <utility>

namespace deltacommit {
namespace {

std::string Slice(const std::string& data, const ByteRange& range) {
  const auto size = static_cast<int64_t>(data.size());
  if (range.offset >= size) return {};
  const int64_t length = std::min(range.length, size - range.offset);
  return data.substr(static_cast<size_t>(range.offset),
                     static_cast<size_t>(length));
}

}  // namespace

MemoryObjectStore::MemoryObjectStore(Clock& clock) : clock_(clock) {}

Status MemoryObjectStore::NotFound(std::string_view key) const {
  return NotFoundError("object \"" + std::string(key) + "\" not found in " +
                       Describe());
}

StatusOr<std::string> MemoryObjectStore::Get(std::string_view key,
                                             std::optional<ByteRange> range) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  if (range && (range->offset < 0 || range->length < 0)) {
    return InvalidArgumentError("negative byte range for key \"" +
                                std::string(key) + "\"");
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFound(key);
  if (!range) return it->second.data;
  return Slice(it->second.data, *range);
}

StatusOr<ObjectMeta> MemoryObjectStore::Head(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFound(key);
  return ObjectMeta{it->first, static_cast<int64_t>(it->second.data.size()),
                    it->second.last_modified_ms};
}

StatusOr<std::vector<ObjectMeta>> MemoryObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  DC_RETURN_IF_ERROR(ValidateListPrefix(prefix));
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ObjectMeta> result;
  // std::map orders std::string bytewise (char_traits<char> compares as
  // unsigned char), which is exactly the port's List order.
  auto it = start_after < prefix ? objects_.lower_bound(prefix)
                                 : objects_.upper_bound(start_after);
  for (; it != objects_.end() && it->first.starts_with(prefix); ++it) {
    result.push_back(ObjectMeta{it->first,
                                static_cast<int64_t>(it->second.data.size()),
                                it->second.last_modified_ms});
  }
  return result;
}

Status MemoryObjectStore::StoreLocked(std::string_view key, std::string data,
                                      bool if_absent) {
  auto it = objects_.find(key);
  if (it != objects_.end() && if_absent) {
    return AlreadyExistsError("object \"" + std::string(key) +
                              "\" already exists in " + Describe());
  }
  Object object{std::move(data), clock_.NowMillis()};
  if (it == objects_.end()) {
    objects_.emplace(std::string(key), std::move(object));
  } else {
    it->second = std::move(object);
  }
  return OkStatus();
}

Status MemoryObjectStore::PutIfAbsent(std::string_view key,
                                      std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  return StoreLocked(key, std::string(data), /*if_absent=*/true);
}

Status MemoryObjectStore::Put(std::string_view key, std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  return StoreLocked(key, std::string(data), /*if_absent=*/false);
}

Status MemoryObjectStore::Copy(std::string_view src, std::string_view dst,
                               bool if_absent) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(src));
  DC_RETURN_IF_ERROR(ValidateObjectKey(dst));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(src);
  if (it == objects_.end()) return NotFound(src);
  return StoreLocked(dst, it->second.data, if_absent);
}

Status MemoryObjectStore::Delete(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it != objects_.end()) objects_.erase(it);
  return OkStatus();
}

}  // namespace deltacommit
