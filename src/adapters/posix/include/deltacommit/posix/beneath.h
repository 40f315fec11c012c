// Resolving paths beneath a directory without following symbolic links at
// any component: the check "is this path inside the directory, free of
// links" and the open are one system call, so a link swapped in between a
// check and a write cannot redirect the write.
//
// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has
// it (Linux 5.6+, and not filtered away by a seccomp policy), otherwise a
// walk that opens each component with O_NOFOLLOW relative to the previous.
//
// Thread-safety: pure functions of the file system.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace deltacommit::posix {

// Opens `relative` ("a/b/c", no leading '/', no "", "." or ".." component)
// beneath the directory `dir_fd` with open(2) `flags` (O_CLOEXEC is added)
// and `mode`. Returns the descriptor, or -1 with errno: ELOOP when a
// component is a symbolic link (the last one too), EXDEV for a component
// that would leave `dir_fd` (".."), EINVAL for an empty or "." component,
// and whatever open(2) sets (ENOENT, ENOTDIR, ...).
int OpenBeneath(int dir_fd, std::string_view relative, int flags, mode_t mode = 0);

// Creates the directories of `relative` beneath `dir_fd` that are missing
// (mode 0755), never following a link, and returns a descriptor of the last
// (O_RDONLY | O_DIRECTORY), or -1 with errno as OpenBeneath.
int MakeDirsBeneath(int dir_fd, std::string_view relative);

// For tests: false makes OpenBeneath use the component walk even where the
// kernel has openat2. Returns the previous setting.
bool UseOpenat2ForTesting(bool use);

}  // namespace deltacommit::posix
