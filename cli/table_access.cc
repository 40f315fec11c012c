#include "table_access.h"

#include <filesystem>

#include "adapters/posix/posix_object_store.h"
#include "logstore/object_store_log_store.h"

namespace deltacommit::cli {

StatusOr<OpenTable> OpenTableUri(const std::string& table) {
  std::string path = table;
  if (path.starts_with("file://")) {
    path = path.substr(7);
  } else if (auto colon = path.find("://"); colon != std::string::npos) {
    return InvalidArgumentError("table \"" + table + "\": scheme \"" + path.substr(0, colon) +
                                "\" is not supported by this build (use a local path or file://)");
  }
  if (path.empty()) return InvalidArgumentError("table: empty path");
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return InvalidArgumentError("table \"" + table + "\": " + ec.message());
  OpenTable open;
  open.uri = absolute.lexically_normal().string();
  open.store = std::make_unique<PosixObjectStore>(open.uri);
  open.log = std::make_unique<ObjectStoreLogStore>(*open.store, "local");
  return open;
}

}  // namespace deltacommit::cli
