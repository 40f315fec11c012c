// ValidateObjectKey: the one place the ObjectStore key rules are enforced, so
// every adapter rejects the same keys with the same message. The rules exist
// because a key is joined onto a directory or bucket prefix: a key that could
// climb out of the table root ("..", a leading '/') must never reach I/O.
#include <string>
#include <string_view>

#include "deltacommit/object_store.h"

namespace deltacommit {
namespace {

Status KeyError(std::string_view key, std::string_view rule) {
  return InvalidArgumentError("key \"" + std::string(key) +
                              "\": path outside the table (" +
                              std::string(rule) + ")");
}

// `segment` is one '/'-separated part of `key`.
Status ValidateSegment(std::string_view key, std::string_view segment) {
  if (segment.empty()) return KeyError(key, "empty segment");
  if (segment == ".") return KeyError(key, "\".\" segment");
  if (segment == "..") return KeyError(key, "\"..\" segment");
  return OkStatus();
}

}  // namespace

Status ValidateObjectKey(std::string_view key) {
  if (key.empty()) return KeyError(key, "empty key");
  if (key.front() == '/') return KeyError(key, "absolute path");
  // A NUL would silently truncate the path at the POSIX layer.
  if (key.find('\0') != std::string_view::npos) {
    return KeyError(key, "NUL byte");
  }
  size_t start = 0;
  while (true) {
    const size_t slash = key.find('/', start);
    const size_t end = slash == std::string_view::npos ? key.size() : slash;
    DC_RETURN_IF_ERROR(ValidateSegment(key, key.substr(start, end - start)));
    if (slash == std::string_view::npos) return OkStatus();
    start = slash + 1;
  }
}

Status ValidateListPrefix(std::string_view prefix) {
  const size_t slash = prefix.rfind('/');
  if (slash == std::string_view::npos) return OkStatus();
  // For "/abs" the directory part is empty; check the whole prefix instead
  // so the message says "absolute path".
  return ValidateObjectKey(slash == 0 ? prefix : prefix.substr(0, slash))
      .WithContext("list prefix");
}

}  // namespace deltacommit
