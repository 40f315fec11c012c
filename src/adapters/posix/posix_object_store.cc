#include "deltacommit/posix/posix_object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <system_error>
#include <utility>

#include "adapters/posix/retry_on_eintr.h"
#include "deltacommit/log_path.h"
#include "deltacommit/posix/beneath.h"

namespace deltacommit {
namespace {

using posix::RetryOnEintr;

// ---- errno -> Status --------------------------------------------------------

Status ErrnoStatus(int err, std::string_view op, const std::string& path) {
  std::string message = std::string(op) + " " + path + ": " +
                        std::generic_category().message(err);
  switch (err) {
    case ENOENT:
      return NotFoundError(std::move(message));
    case EACCES:
    case EPERM:
    case EROFS:
      return PermissionDeniedError(std::move(message));
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
      return ResourceExhaustedError(std::move(message));
    case EEXIST:
      return AlreadyExistsError(std::move(message));
    case ENOTDIR:
    case EISDIR:
      return FailedPreconditionError(std::move(message));
    case ENAMETOOLONG:
      return InvalidArgumentError(std::move(message));
    case EIO:
    case EAGAIN:
    case EBUSY:
    case ETIMEDOUT:
    case ESTALE:
      return UnavailableError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

// For reads: a missing file, or a missing/non-directory parent, is "absent".
bool IsAbsent(int err) { return err == ENOENT || err == ENOTDIR; }

// ---- file descriptors -------------------------------------------------------

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Gives up ownership: the caller closes it.
  int Release() { return std::exchange(fd_, -1); }
  bool ok() const { return fd_ >= 0; }
  // Closes now and reports the error: NFS and some FUSE file systems only
  // report a failed write at close.
  Status Close(const std::string& path) {
    const int fd = std::exchange(fd_, -1);
    // No retry on EINTR: on Linux the descriptor is gone either way.
    if (::close(fd) != 0 && errno != EINTR)
      return ErrnoStatus(errno, "close", path);
    return OkStatus();
  }

 private:
  int fd_;
};

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n =
        RetryOnEintr([&] { return ::write(fd, data.data(), data.size()); });
    if (n < 0) return ErrnoStatus(errno, "write", path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

Status SyncFd(int fd, const std::string& path) {
  if (RetryOnEintr([&] { return ::fsync(fd); }) != 0) {
    return ErrnoStatus(errno, "fsync", path);
  }
  return OkStatus();
}

// Makes a directory entry change (link, rename) durable.
Status SyncDir(int dir_fd, const std::string& dir) {
  if (RetryOnEintr([&] { return ::fsync(dir_fd); }) != 0 && errno != EINVAL &&
      errno != ENOTSUP) {  // file systems without dir fsync
    return ErrnoStatus(errno, "fsync directory", dir);
  }
  return OkStatus();
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

// mkdir -p, deepest first: the common case (parent exists) is one call.
Status MakeDirs(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return OkStatus();
  if (errno != ENOENT || dir == "/") return ErrnoStatus(errno, "mkdir", dir);
  DC_RETURN_IF_ERROR(MakeDirs(DirName(dir)));
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) return OkStatus();
  return ErrnoStatus(errno, "mkdir", dir);
}

// "a/b/c.json" -> {"a/b", "c.json"}; "c.json" -> {"", "c.json"}.
std::pair<std::string_view, std::string> SplitKey(std::string_view key) {
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), std::string(key)};
  return {key.substr(0, slash), std::string(key.substr(slash + 1))};
}

std::string JoinKey(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  if (name.empty()) return std::string(dir);
  return std::string(dir) + "/" + std::string(name);
}

Status CopyContents(int from, int to, const std::string& from_path,
                    const std::string& to_path) {
  std::array<char, 1 << 16> buffer;
  while (true) {
    const ssize_t n = RetryOnEintr(
        [&] { return ::read(from, buffer.data(), buffer.size()); });
    if (n < 0) return ErrnoStatus(errno, "read", from_path);
    if (n == 0) return OkStatus();
    DC_RETURN_IF_ERROR(WriteAll(
        to, std::string_view(buffer.data(), static_cast<size_t>(n)), to_path));
  }
}

StatusOr<std::string> ReadAt(int fd, int64_t offset, int64_t length,
                             const std::string& path) {
  std::string out(static_cast<size_t>(length), '\0');
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = RetryOnEintr([&] {
      return ::pread(fd, out.data() + done, out.size() - done,
                     static_cast<off_t>(offset) + static_cast<off_t>(done));
    });
    if (n < 0) return ErrnoStatus(errno, "read", path);
    if (n == 0) break;  // the file shrank since fstat: return what is there
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

int64_t MillisOf(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000 +
         static_cast<int64_t>(t.tv_nsec) / 1'000'000;
}

// Whether a key under directory `dir_key` + "/" can start with `prefix`.
bool DirCanMatch(const std::string& dir_key, std::string_view prefix) {
  const std::string dir = dir_key + "/";
  return dir.starts_with(prefix) || prefix.starts_with(dir);
}

// Whether a directory `dir_key` can hold a key after `start_after`: every
// key in it starts with "<dir_key>/", so none can when that sorts before
// `start_after` and is not a prefix of it.
bool DirCanFollow(const std::string& dir_key, std::string_view start_after) {
  const std::string dir = dir_key + "/";
  return std::string_view(dir) > start_after || start_after.starts_with(dir);
}

enum class EntryKind { kFile, kDir, kOther };

// Classifies a directory entry. A symlink is never followed into a
// directory (no cycles); unless `confined`, a link to a regular file counts
// as that file. ENOENT means it vanished.
int StatEntry(int dir_fd, const char* name, bool confined, struct stat& st, EntryKind& kind) {
  if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno;
  if (S_ISDIR(st.st_mode)) {
    kind = EntryKind::kDir;
    return 0;
  }
  // A dangling link, or a link to a directory, is skipped.
  const bool file =
      S_ISREG(st.st_mode) ||
      (!confined && S_ISLNK(st.st_mode) && ::fstatat(dir_fd, name, &st, 0) == 0 &&
       S_ISREG(st.st_mode));
  kind = file ? EntryKind::kFile : EntryKind::kOther;
  return 0;
}

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

}  // namespace


class PosixObjectStore::Dir {
 public:
  Dir(Fd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

 private:
  Fd fd_;
  std::string path_;
};

PosixObjectStore::PosixObjectStore(std::string root_dir, Options options)
    : root_(std::move(root_dir)), beneath_(std::move(options.beneath)) {
  if (root_.empty() || root_.front() != '/') {
    std::string cwd(4096, '\0');
    if (::getcwd(cwd.data(), cwd.size()) != nullptr) {
      cwd.resize(cwd.find('\0'));
      root_ = root_.empty() ? cwd : cwd + "/" + root_;
    }
  }
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  while (beneath_.size() > 1 && beneath_.back() == '/') beneath_.pop_back();
  if (beneath_.empty() || root_ == beneath_) return;
  const std::string under = beneath_ == "/" ? "/" : beneath_ + "/";
  if (beneath_.front() != '/' || !root_.starts_with(under)) {
    confinement_ = InvalidArgumentError("store root " + root_ + " is not beneath " + beneath_);
    return;
  }
  beneath_to_root_ = root_.substr(under.size());
}

std::string PosixObjectStore::Describe() const { return "file://" + root_; }

std::string PosixObjectStore::PathOf(std::string_view key) const {
  return root_ == "/" ? "/" + std::string(key) : root_ + "/" + std::string(key);
}

Status PosixObjectStore::NotFound(std::string_view key) const {
  return NotFoundError("object \"" + std::string(key) + "\" not found in " +
                       Describe());
}

Status PosixObjectStore::AlreadyExists(std::string_view key) const {
  return AlreadyExistsError("object \"" + std::string(key) +
                            "\" already exists in " + Describe());
}

Status PosixObjectStore::OpenError(int err, std::string_view op, const std::string& path) const {
  if (!beneath_.empty() && (err == ELOOP || err == EXDEV)) {
    return PermissionDeniedError(std::string(op) + " " + path +
                                 ": the path has a symbolic link; no link is followed beneath " +
                                 beneath_ + ", so nothing was read or written through it");
  }
  return ErrnoStatus(err, op, path);
}

StatusOr<PosixObjectStore::Dir> PosixObjectStore::OpenDir(std::string_view dir_key,
                                                          bool create) const {
  DC_RETURN_IF_ERROR(confinement_);
  const std::string path = dir_key.empty() ? root_ : PathOf(dir_key);
  int raw = -1;
  if (beneath_.empty()) {
    auto open_dir = [&] {
      return RetryOnEintr(
          [&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    };
    raw = open_dir();
    if (raw < 0 && errno == ENOENT && create) {
      DC_RETURN_IF_ERROR(MakeDirs(path));
      raw = open_dir();
    }
  } else {
    // The confinement's own directory is the operator's: its path is
    // followed as given; below it nothing is.
    auto open_base = [&] {
      return Fd(RetryOnEintr(
          [&] { return ::open(beneath_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }));
    };
    Fd base = open_base();
    if (!base.ok() && errno == ENOENT && create) {
      DC_RETURN_IF_ERROR(MakeDirs(beneath_));
      base = open_base();
    }
    if (!base.ok()) {
      if (IsAbsent(errno) && !create) return NotFoundError("directory " + path + " does not exist");
      return ErrnoStatus(errno, "open directory", beneath_);
    }
    const std::string relative = JoinKey(beneath_to_root_, dir_key);
    raw = relative.empty() ? ::dup(base.get())
          : create         ? posix::MakeDirsBeneath(base.get(), relative)
                           : posix::OpenBeneath(base.get(), relative, O_RDONLY | O_DIRECTORY);
  }
  if (raw < 0) {
    if (IsAbsent(errno) && !create) return NotFoundError("directory " + path + " does not exist");
    return OpenError(errno, "open directory", path);
  }
  return Dir(Fd(raw), path);
}

StatusOr<int> PosixObjectStore::OpenObject(std::string_view key, struct stat* st) const {
  const std::string path = PathOf(key);
  // O_NONBLOCK so a FIFO planted in the table cannot hang a reader; it has
  // no effect on regular files.
  const int flags =
      O_RDONLY | O_CLOEXEC | O_NONBLOCK | (beneath_.empty() ? 0 : O_NOFOLLOW);
  Fd fd;
  if (beneath_.empty()) {
    // Links are followed anyway: open the path in one call (a snapshot
    // load opens every commit file this way).
    fd = Fd(RetryOnEintr([&] { return ::open(path.c_str(), flags); }));
  } else {
    const auto split = SplitKey(key);  // no structured binding: a lambda uses it
    const std::string& name = split.second;
    StatusOr<Dir> dir = OpenDir(split.first, /*create=*/false);
    if (!dir.ok()) return dir.status().IsNotFound() ? NotFound(key) : dir.status();
    fd = Fd(RetryOnEintr([&] { return ::openat(dir->fd(), name.c_str(), flags); }));
  }
  if (!fd.ok()) return IsAbsent(errno) ? NotFound(key) : OpenError(errno, "open", path);
  if (::fstat(fd.get(), st) != 0) return ErrnoStatus(errno, "stat", path);
  if (S_ISDIR(st->st_mode)) return NotFound(key);  // a directory is no object
  if (!S_ISREG(st->st_mode)) {
    if (beneath_.empty()) return NotFound(key);
    return PermissionDeniedError("open " + path + ": not a regular file; nothing was read");
  }
  return fd.Release();
}

StatusOr<std::string> PosixObjectStore::Get(std::string_view key,
                                            std::optional<ByteRange> range) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  if (range && (range->offset < 0 || range->length < 0)) {
    return InvalidArgumentError("negative byte range for key \"" +
                                std::string(key) + "\"");
  }
  struct stat st {};
  DC_ASSIGN_OR_RETURN(const int raw, OpenObject(key, &st));
  Fd fd(raw);
  const int64_t size = static_cast<int64_t>(st.st_size);
  const int64_t offset = range ? range->offset : 0;
  if (offset >= size) return std::string();
  const int64_t length = range ? std::min(range->length, size - offset) : size;
  return ReadAt(fd.get(), offset, length, PathOf(key));
}

StatusOr<ObjectMeta> PosixObjectStore::Head(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  const auto [dir_key, name] = SplitKey(key);
  StatusOr<Dir> dir = OpenDir(dir_key, /*create=*/false);
  if (!dir.ok()) return dir.status().IsNotFound() ? NotFound(key) : dir.status();
  const std::string path = PathOf(key);
  struct stat st {};
  const int follow = beneath_.empty() ? 0 : AT_SYMLINK_NOFOLLOW;
  if (::fstatat(dir->fd(), name.c_str(), &st, follow) != 0) {
    return IsAbsent(errno) ? NotFound(key) : ErrnoStatus(errno, "stat", path);
  }
  if (S_ISLNK(st.st_mode)) return OpenError(ELOOP, "stat", path);
  if (!S_ISREG(st.st_mode)) return NotFound(key);
  return ObjectMeta{std::string(key), static_cast<int64_t>(st.st_size),
                    MillisOf(st.st_mtim)};
}

StatusOr<std::vector<ObjectMeta>> PosixObjectStore::List(
    std::string_view prefix, std::string_view start_after) {
  DC_RETURN_IF_ERROR(ValidateListPrefix(prefix));
  // Only the directory named by the prefix's complete segments can hold
  // matches; start the walk there.
  const size_t slash = prefix.rfind('/');
  const std::string dir_key = slash == std::string_view::npos
                                  ? std::string()
                                  : std::string(prefix.substr(0, slash));
  std::vector<ObjectMeta> out;
  DC_RETURN_IF_ERROR(ListDir(dir_key, prefix, start_after, out));
  // std::string compares bytes as unsigned char: the port's byte order.
  std::sort(
      out.begin(), out.end(),
      [](const ObjectMeta& a, const ObjectMeta& b) { return a.key < b.key; });
  return out;
}

Status PosixObjectStore::ListDir(const std::string& dir_key,
                                 std::string_view prefix,
                                 std::string_view start_after,
                                 std::vector<ObjectMeta>& out) const {
  StatusOr<Dir> opened = OpenDir(dir_key, /*create=*/false);
  if (!opened.ok()) return opened.status().IsNotFound() ? OkStatus() : opened.status();
  const int listing_fd = ::dup(opened->fd());
  if (listing_fd < 0) return ErrnoStatus(errno, "dup", opened->path());
  std::unique_ptr<DIR, DirCloser> dir(::fdopendir(listing_fd));
  if (dir == nullptr) {
    ::close(listing_fd);
    return ErrnoStatus(errno, "opendir", opened->path());
  }
  while (true) {
    errno = 0;
    const struct dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) {
      return errno == 0 ? OkStatus() : ErrnoStatus(errno, "readdir", opened->path());
    }
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string key = JoinKey(dir_key, name);
    // Only what can be listed is looked at: a listing from version N of a
    // long log stats no earlier commit, nor a directory all of whose keys
    // sort before `start_after`, nor a regular file that is not listed.
    const bool listable = key.starts_with(prefix) && key > start_after;
    if (!listable) {
      if (entry->d_type == DT_REG) continue;
      if (!DirCanMatch(key, prefix) || !DirCanFollow(key, start_after)) continue;
    }
    struct stat st {};
    EntryKind kind = EntryKind::kOther;
    const int err = StatEntry(::dirfd(dir.get()), entry->d_name, !beneath_.empty(), st, kind);
    if (err == ENOENT) continue;  // deleted while we listed
    if (err != 0) return ErrnoStatus(err, "stat", PathOf(key));
    if (kind == EntryKind::kDir && DirCanMatch(key, prefix)) {
      DC_RETURN_IF_ERROR(ListDir(key, prefix, start_after, out));
    } else if (kind == EntryKind::kFile && listable) {
      out.push_back(
          {key, static_cast<int64_t>(st.st_size), MillisOf(st.st_mtim)});
    }
  }
}

// Writes ".<name>.<uuid>.tmp" in the key's directory, makes its content
// durable, then links (if_absent) or renames it to the key, all relative to
// one descriptor of that directory, and makes the new name durable.
Status PosixObjectStore::WriteObject(
    std::string_view key, bool if_absent,
    const std::function<Status(int fd, const std::string&)>& fill) {
  const auto [dir_key, name] = SplitKey(key);
  DC_ASSIGN_OR_RETURN(const Dir dir, OpenDir(dir_key, /*create=*/true));
  const std::string path = PathOf(key);
  // Fast path for a lost race: skip writing a temp file for a taken key. The
  // link below still decides.
  struct stat st {};
  if (if_absent && ::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    return AlreadyExists(key);
  }
  const std::string temp_name = "." + name + "." + NewUuid() + ".tmp";
  const std::string temp = dir.path() + "/" + temp_name;
  Fd fd(RetryOnEintr([&] {
    return ::openat(dir.fd(), temp_name.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  }));
  if (!fd.ok()) return ErrnoStatus(errno, "create", temp);
  Status status = fill(fd.get(), temp);
  if (status.ok()) status = SyncFd(fd.get(), temp);
  if (status.ok()) status = fd.Close(temp);
  if (!status.ok()) {
    ::unlinkat(dir.fd(), temp_name.c_str(), 0);
    return status;
  }
  // linkat(2) fails with EEXIST if anyone holds the name (a link too, which
  // is never followed): an atomic create-if-absent, across processes.
  // renameat(2) atomically replaces the name itself.
  const int rc = if_absent ? ::linkat(dir.fd(), temp_name.c_str(), dir.fd(), name.c_str(), 0)
                           : ::renameat(dir.fd(), temp_name.c_str(), dir.fd(), name.c_str());
  const int err = errno;
  // After a link the temp name is surplus; after a good rename it is gone.
  if (if_absent || rc != 0) ::unlinkat(dir.fd(), temp_name.c_str(), 0);
  if (rc != 0) {
    if (if_absent && err == EEXIST) return AlreadyExists(key);
    if (if_absent && (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP)) {
      return UnimplementedError("link " + path + ": file system without hard links (" +
                                std::generic_category().message(err) + ")");
    }
    return ErrnoStatus(err, if_absent ? "link" : "rename", path);
  }
  // The new name is already visible, so failing to make it durable leaves
  // the outcome unknown rather than failed.
  Status synced = SyncDir(dir.fd(), dir.path());
  if (!synced.ok()) {
    return UnknownOutcomeError(synced.message() + " after writing " + path);
  }
  return OkStatus();
}

Status PosixObjectStore::PutIfAbsent(std::string_view key,
                                     std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  return WriteObject(key, /*if_absent=*/true,
                     [&](int fd, const std::string& temp) {
                       return WriteAll(fd, data, temp);
                     });
}

Status PosixObjectStore::Put(std::string_view key, std::string_view data) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  return WriteObject(key, /*if_absent=*/false,
                     [&](int fd, const std::string& temp) {
                       return WriteAll(fd, data, temp);
                     });
}

Status PosixObjectStore::Copy(std::string_view src, std::string_view dst,
                              bool if_absent) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(src));
  DC_RETURN_IF_ERROR(ValidateObjectKey(dst));
  struct stat st {};
  DC_ASSIGN_OR_RETURN(const int raw, OpenObject(src, &st));
  Fd from(raw);
  const std::string src_path = PathOf(src);
  return WriteObject(dst, if_absent, [&](int fd, const std::string& temp) {
    return CopyContents(from.get(), fd, src_path, temp);
  });
}

Status PosixObjectStore::Delete(std::string_view key) {
  DC_RETURN_IF_ERROR(ValidateObjectKey(key));
  const auto [dir_key, name] = SplitKey(key);
  StatusOr<Dir> dir = OpenDir(dir_key, /*create=*/false);
  if (!dir.ok()) return dir.status().IsNotFound() ? OkStatus() : dir.status();
  const std::string path = PathOf(key);
  // No directory fsync: a delete undone by a crash is simply retried. A
  // link is removed itself, never what it points to.
  if (::unlinkat(dir->fd(), name.c_str(), 0) == 0 || IsAbsent(errno) || errno == EISDIR) {
    return OkStatus();  // a directory is no object, so the key is absent
  }
  const int err = errno;
  struct stat st {};
  // POSIX allows EPERM (instead of EISDIR) for unlink on a directory.
  if (err == EPERM && ::fstatat(dir->fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(st.st_mode)) {
    return OkStatus();
  }
  return ErrnoStatus(err, "unlink", path);
}

}  // namespace deltacommit
