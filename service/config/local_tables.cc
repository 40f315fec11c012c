#include "service/config/local_tables.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "deltacommit/posix/beneath.h"

namespace deltacommit::service {
namespace {

// Below `root`, the deepest directory the service writes into must be
// reachable without a symbolic link. With RESOLVE_NO_SYMLINKS a link at any
// existing component fails the open with ELOOP before a missing component
// is reached, so one open answers for the whole path.
Status CheckNoLinkBelow(const std::string& root, const TableUri& table) {
  const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  // No root yet, so nothing below it: the writes will say what is missing.
  if (root_fd < 0 && errno == ENOENT) return OkStatus();
  if (root_fd < 0) {
    return UnavailableError("[local] root " + root + " cannot be opened: " +
                            std::generic_category().message(errno));
  }
  const std::string table_dir = table.local_path.substr(root.size());  // "" or "/a/b"
  const std::string below =
      (table_dir.empty() ? "" : table_dir.substr(1) + "/") + "_delta_log/_staged_commits";
  const int fd = posix::OpenBeneath(root_fd, below, O_PATH | O_DIRECTORY);
  const int err = errno;
  ::close(root_fd);
  if (fd >= 0) {
    ::close(fd);
    return OkStatus();
  }
  if (err == ENOENT) return OkStatus();  // created by the first commit, without links
  if (err == ELOOP || err == EXDEV) {
    return PermissionDeniedError("table " + table.uri + ": its path below the [local] root " +
                                 root +
                                 " crosses a symbolic link; the service follows no link under "
                                 "its roots (give the table's real path)");
  }
  return PermissionDeniedError("table " + table.uri + ": " + root + "/" + below +
                               " cannot be a table's log directory: " +
                               std::generic_category().message(err));
}

}  // namespace

std::optional<std::string> LocalRootOf(const LocalConfig& local, const TableUri& table) {
  for (const std::string& root : local.roots) {
    if (TablePrefixCovers("file://" + root, table)) return root;
  }
  return std::nullopt;
}

Status CheckLocalTable(const LocalConfig& local, const TableUri& table) {
  if (local.roots.empty()) {
    return PermissionDeniedError("table " + table.uri +
                                 ": this service serves no local (file://) tables; its config "
                                 "names no [local] roots");
  }
  std::optional<std::string> root = LocalRootOf(local, table);
  if (!root) {
    return PermissionDeniedError("table " + table.uri +
                                 " is not under any of the service's [local] roots; ask the "
                                 "operator to add its directory to [local] roots");
  }
  return CheckNoLinkBelow(*root, table);
}

}  // namespace deltacommit::service
