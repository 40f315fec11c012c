#include "deltacommit/posix/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

#include "adapters/posix/retry_on_eintr.h"

namespace deltacommit::posix {
namespace {

// Cleared once the kernel (or a seccomp filter) says openat2 is not there.
std::atomic<bool> openat2_usable{true};

// The components of `relative`, or empty with errno set when one is not a
// plain name.
std::vector<std::string> Components(std::string_view relative) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= relative.size();) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    const std::string_view part = relative.substr(start, end - start);
    if (part.empty() || part == ".") {
      errno = EINVAL;
      return {};
    }
    if (part == "..") {
      errno = EXDEV;
      return {};
    }
    out.emplace_back(part);
    start = end + 1;
  }
  return out;
}

int Openat2(int dir_fd, const std::string& relative, int flags, mode_t mode) {
#ifdef SYS_openat2
  struct open_how how {};
  how.flags = static_cast<__u64>(static_cast<unsigned int>(flags | O_CLOEXEC));
  how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<__u64>(mode) : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(RetryOnEintr([&] {
    return ::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
  }));
#else
  errno = ENOSYS;
  return -1;
#endif
}

// Opens `name` in `at` as an O_PATH descriptor of a directory, refusing a
// link: O_PATH | O_NOFOLLOW opens a link itself, and fstat of what was
// opened tells (O_DIRECTORY | O_NOFOLLOW would say ENOTDIR for a link, and a
// second look at the name could see another file by then).
int OpenDirectoryComponent(int at, const std::string& name) {
  const int fd =
      RetryOnEintr([&] { return ::openat(at, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC); });
  if (fd < 0) return -1;
  struct stat st {};
  int err = 0;
  if (::fstat(fd, &st) != 0) {
    err = errno;
  } else if (S_ISLNK(st.st_mode)) {
    err = ELOOP;
  } else if (!S_ISDIR(st.st_mode)) {
    err = ENOTDIR;
  }
  if (err == 0) return fd;
  ::close(fd);
  errno = err;
  return -1;
}

// Opens the last component: a directory through its O_PATH descriptor
// (reopened as "."), anything else with O_NOFOLLOW.
int OpenLast(int at, const std::string& name, int flags, mode_t mode) {
  if ((flags & O_DIRECTORY) == 0) {
    return RetryOnEintr(
        [&] { return ::openat(at, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode); });
  }
  const int path_fd = OpenDirectoryComponent(at, name);
  if (path_fd < 0) return -1;
  if ((flags & O_PATH) != 0) return path_fd;
  const int fd = RetryOnEintr([&] { return ::openat(path_fd, ".", flags | O_CLOEXEC); });
  const int err = errno;
  ::close(path_fd);
  errno = err;
  return fd;
}

// Opens each component from `dir_fd` down, never following a link; with
// `create`, makes the missing directories on the way.
int Walk(int dir_fd, const std::vector<std::string>& parts, int flags, mode_t mode, bool create) {
  int current = dir_fd;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    if (create) ::mkdirat(current, parts[i].c_str(), 0755);  // EEXIST is fine
    const int next = last ? OpenLast(current, parts[i], flags, mode)
                          : OpenDirectoryComponent(current, parts[i]);
    const int err = errno;
    if (current != dir_fd) ::close(current);
    if (next < 0) {
      errno = err;
      return -1;
    }
    current = next;
  }
  return current;
}

}  // namespace

int OpenBeneath(int dir_fd, std::string_view relative, int flags, mode_t mode) {
  const std::vector<std::string> parts = Components(relative);
  if (parts.empty()) return -1;
  if (openat2_usable.load(std::memory_order_relaxed)) {
    const int fd = Openat2(dir_fd, std::string(relative), flags, mode);
    // ENOSYS: an old kernel; EPERM: a seccomp filter that refuses it; E2BIG
    // or EINVAL for struct open_how: a kernel that knows another version.
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG)) return fd;
    openat2_usable.store(false, std::memory_order_relaxed);
  }
  return Walk(dir_fd, parts, flags, mode, /*create=*/false);
}

int MakeDirsBeneath(int dir_fd, std::string_view relative) {
  const int fd = OpenBeneath(dir_fd, relative, O_RDONLY | O_DIRECTORY);
  if (fd >= 0 || errno != ENOENT) return fd;
  const std::vector<std::string> parts = Components(relative);
  if (parts.empty()) return -1;
  return Walk(dir_fd, parts, O_RDONLY | O_DIRECTORY, 0, /*create=*/true);
}

bool UseOpenat2ForTesting(bool use) { return openat2_usable.exchange(use); }

}  // namespace deltacommit::posix
