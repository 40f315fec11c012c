// RetryOnEintr: calls `f` (a system call returning -1 with errno on error)
// again while it fails with EINTR, so that a signal never fails a call.
//
// Thread-safety: as `f`.
#pragma once

#include <cerrno>

namespace deltacommit::posix {

template <typename F>
auto RetryOnEintr(F f) {
  decltype(f()) result;
  do {
    result = f();
  } while (result == -1 && errno == EINTR);
  return result;
}

}  // namespace deltacommit::posix
