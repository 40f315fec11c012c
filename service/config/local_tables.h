// Local tables: `file:///path` tables the commit service writes on its own
// file system (a demo or test on one machine, or a file system the writers
// share with the service). They are served only under the [local] roots its
// config names, and take no S3 endpoint and no credentials: the service
// writes their logs as its own user.
//
// Thread-safety: pure functions (CheckLocalTable reads the file system).
#pragma once

#include "deltacommit/status.h"
#include "service/config/service_config.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {

// Whether `table` (a local TableUri) may be served: under one of `local`'s
// roots, also once symbolic links are resolved (the table directory, its
// _delta_log and _delta_log/_staged_commits), so that a link inside a root
// cannot lead the service's writes outside it. kPermissionDenied naming the
// table otherwise; kUnavailable when a path cannot be resolved.
Status CheckLocalTable(const LocalConfig& local, const TableUri& table);

}  // namespace deltacommit::service
