#include "service/config/local_tables.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

namespace deltacommit::service {
namespace {

namespace fs = std::filesystem;

bool IsUnder(const fs::path& path, const fs::path& root) {
  auto [root_end, path_at] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

// The table's directories the service writes into, each resolved through
// any symbolic link, must stay under the root resolved the same way.
Status CheckResolvedUnder(const std::string& root, const TableUri& table) {
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  if (ec) {
    return UnavailableError("[local] root " + root + " cannot be resolved: " + ec.message());
  }
  for (const std::string& dir : {table.local_path, table.local_path + "/_delta_log",
                                 table.local_path + "/_delta_log/_staged_commits"}) {
    const fs::path real = fs::weakly_canonical(dir, ec);
    if (ec) return UnavailableError(dir + " cannot be resolved: " + ec.message());
    if (!IsUnder(real, real_root)) {
      return PermissionDeniedError("table " + table.uri + ": " + dir + " leads to " +
                                   real.string() + " (a symbolic link), outside the [local] root " +
                                   root + "; the service writes only under its roots");
    }
  }
  return OkStatus();
}

}  // namespace

Status CheckLocalTable(const LocalConfig& local, const TableUri& table) {
  if (local.roots.empty()) {
    return PermissionDeniedError("table " + table.uri +
                                 ": this service serves no local (file://) tables; its config "
                                 "names no [local] roots");
  }
  for (const std::string& root : local.roots) {
    if (TablePrefixCovers("file://" + root, table)) return CheckResolvedUnder(root, table);
  }
  return PermissionDeniedError("table " + table.uri +
                               " is not under any of the service's [local] roots; ask the "
                               "operator to add its directory to [local] roots");
}

}  // namespace deltacommit::service
