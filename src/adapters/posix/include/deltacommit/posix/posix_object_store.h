// PosixObjectStore: the ObjectStore port on a local directory (the `local`
// commit mode). Keys map to files under the root; List walks the tree.
//
// Every write goes through a temp file in the target's directory named
// ".<basename>.<uuid>.tmp" (ignored by Delta readers, which skip names
// starting with '.'), written in full and fsynced before it is published:
//   PutIfAbsent / Copy(if_absent): link(2) temp -> key, so a taken key fails
//     with EEXIST atomically, even across processes and NFS-free hosts;
//   Put / Copy: rename(2) temp -> key, atomic replacement.
// The directory is then fsynced. A key therefore names a complete file or
// nothing, never a torn one; a crash may leave a stray temp file, which List
// reports like any other file but which never becomes the key.
//
// Requires a file system with hard links (ext4, xfs, apfs, ...); without them
// PutIfAbsent returns kUnimplemented.
//
// Confined (Options::beneath, what the commit service uses for the tables
// under its [local] roots): every path from `beneath` down - the root's own
// components below it, each key's directories and the key itself - is
// resolved without following symbolic links, in the same system call that
// opens it (posix/beneath.h), so that no link, swapped in at any moment,
// leads a read or a write elsewhere. A link there is kPermissionDenied
// naming it, and so is anything but a regular file where an object is read;
// List skips links. Unconfined (the `local` mode) follows links as the
// user's own tools do.
//
// Thread-safety: safe for concurrent use, also by several processes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/object_store.h"

struct stat;

namespace deltacommit {

class PosixObjectStore : public ObjectStore {
 public:
  struct Options {
    // An absolute directory that contains root_dir (or is it): confines
    // the store beneath it (above). Empty: unconfined.
    std::string beneath;
  };

  // `root_dir` need not exist yet: writes create directories as needed. A
  // relative path is resolved against the current directory now.
  explicit PosixObjectStore(std::string root_dir) : PosixObjectStore(std::move(root_dir), {}) {}
  PosixObjectStore(std::string root_dir, Options options);

  // "file://" + absolute root.
  std::string Describe() const override;
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

  const std::string& root() const { return root_; }

 private:
  class Dir;  // an open directory of the store, and its path for messages

  std::string PathOf(std::string_view key) const;
  Status NotFound(std::string_view key) const;
  Status AlreadyExists(std::string_view key) const;
  // The errno of a failed open or stat of `path` as a Status (a link in a
  // confined store is kPermissionDenied saying so).
  Status OpenError(int err, std::string_view op, const std::string& path) const;
  // Opens the directory `dir_key` ("" = root); with `create`, makes it.
  // kNotFound when it (or a parent) is missing and not `create`.
  StatusOr<Dir> OpenDir(std::string_view dir_key, bool create) const;
  // Opens `key` for reading: a regular file, or kNotFound. Fills *st.
  StatusOr<int> OpenObject(std::string_view key, struct stat* st) const;
  // Appends the files under `dir_key` ("" = root) that List should return.
  Status ListDir(const std::string& dir_key, std::string_view prefix,
                 std::string_view start_after,
                 std::vector<ObjectMeta>& out) const;
  // Writes a temp file beside `key` via `fill`, then publishes it as `key`.
  Status WriteObject(
      std::string_view key, bool if_absent,
      const std::function<Status(int fd, const std::string&)>& fill);

  std::string root_;  // absolute, no trailing '/' (unless it is "/")
  // Confined only: the directory the store is confined beneath, and root_
  // relative to it ("" when they are one).
  std::string beneath_;
  std::string beneath_to_root_;
  Status confinement_;  // not OK when root_ is not beneath beneath_
};

}  // namespace deltacommit
