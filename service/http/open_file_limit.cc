#include "service/http/open_file_limit.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace deltacommit::http {

StatusOr<uint64_t> RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return InternalError(std::string("getrlimit(RLIMIT_NOFILE): ") +
                         std::strerror(errno));
  }
  // Linux refuses an unlimited soft limit for files (it must stay within
  // fs.nr_open, 2^20 by default).
  rlim_t target =
      limit.rlim_max == RLIM_INFINITY ? rlim_t{1} << 20 : limit.rlim_max;
  if (limit.rlim_cur >= target) return uint64_t{limit.rlim_cur};
  rlimit raised = limit;
  raised.rlim_cur = target;
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    return InternalError("setrlimit(RLIMIT_NOFILE) from " +
                         std::to_string(limit.rlim_cur) + " to " +
                         std::to_string(target) + ": " + std::strerror(errno));
  }
  return uint64_t{raised.rlim_cur};
}

}  // namespace deltacommit::http
