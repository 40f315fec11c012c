// Local tables: `file:///path` tables the commit service writes on its own
// file system (a demo or test on one machine, or a file system the writers
// share with the service). They are served only under the [local] roots its
// config names, and take no S3 endpoint and no credentials: the service
// writes their logs as its own user.
//
// Symbolic links: a root's own path is the operator's and may contain links;
// below a root none is followed, ever. CheckLocalTable refuses a table whose
// path below its root crosses one, and the service's store for the table
// (PosixObjectStore confined beneath the root) opens every directory and
// file in the same system call that refuses links, so a link swapped in
// after the check cannot redirect a read or a write either. With '.', '..'
// and empty segments refused in table URIs, each directory a service writes
// has exactly one spelling, and so one state-store record and one lock.
//
// Thread-safety: pure functions (CheckLocalTable reads the file system).
#pragma once

#include <optional>
#include <string>

#include "deltacommit/status.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {

// The [local] root that covers `table` (a local TableUri), as the config
// spells it; nullopt when none does.
std::optional<std::string> LocalRootOf(const LocalConfig& local, const TableUri& table);

// Whether `table` (a local TableUri) may be served: under one of `local`'s
// roots, with no symbolic link in its path below the root (the table
// directory, _delta_log, _delta_log/_staged_commits, as far as they exist).
// kPermissionDenied naming the table and why otherwise; kUnavailable when
// the root cannot be opened.
Status CheckLocalTable(const LocalConfig& local, const TableUri& table);

}  // namespace deltacommit::service
