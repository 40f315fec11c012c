// The `service` and `coordinated` log stores of an s3:// table: the commit
// service client (--service-url, --service-token, --service-endpoint, or
// DELTACOMMIT_SERVICE_URL / DELTACOMMIT_SERVICE_TOKEN) over the table's HTTP
// client, sending the credentials of the table's own AWS chain.
#pragma once

#include "deltacommit/status.h"
#include "table_access.h"

namespace deltacommit::cli {

// Sets open.service and open.log for open.mode ("service" or "coordinated").
// REQUIRES: open.http, open.credentials, open.store and open.uri are set.
// kInvalidArgument for a missing or malformed URL or token (naming the
// option and the variable).
Status AttachCommitService(const TableOptions& options, OpenTable& open);

// kInvalidArgument when --service-url, --service-token or --service-endpoint
// is given for a mode that does not use the commit service.
Status CheckNoServiceOptions(const TableOptions& options, const std::string& mode);

}  // namespace deltacommit::cli
