// The process's limit on open files, which bounds how many connections the
// server can hold (each is one descriptor).
//
// Thread-safety: process-wide; call before serving.
#pragma once

#include <cstdint>

#include "deltacommit/status.h"

namespace deltacommit::http {

// Raises the soft RLIMIT_NOFILE to the hard limit (a process may do so
// without privileges) and returns the soft limit now in force.
// kInternal when getrlimit/setrlimit fail, with the reason.
StatusOr<uint64_t> RaiseOpenFileLimit();

}  // namespace deltacommit::http
