// The JSON bodies of the commit service API (docs/api.md): the POST
// /v1/commits request, its 200 answer, and the pending-commits listing.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/commit_service_client.h"
#include "deltacommit/status.h"

namespace deltacommit::service_client {

// kInvalidArgument unless the request names a table, a version >= 0 and
// exactly one of actions / staged_file; or, for an append, no version, a
// read_version >= 0 and actions holding a txn.
Status ValidateCommitRequest(const ServiceCommitRequest& request);

// {"table", "version" | "append" + "read_version", "actions" | "staged_file",
// "credentials": {...}, "endpoint"?}. session_token and expiration (RFC 3339 UTC) only when the
// credentials have them; no "credentials" when `credentials` is null (a
// local table); endpoint only when not empty.
std::string CommitRequestBody(const ServiceCommitRequest& request,
                              const aws::Credentials* credentials, std::string_view endpoint);

struct CommitAnswer {
  Version version = -1;
  bool published = false;
  int64_t merged = 0;
  bool duplicate = false;
};

// {"version": 7, "published": true, "merged"?: n, "duplicate"?: true}.
// kInternal naming what is wrong.
StatusOr<CommitAnswer> ParseCommitAnswer(std::string_view body);

// {"table", "latest_version", "commits": [{"version", "staged_file", "size",
// "commit_timestamp"}]}, checked: latest_version >= -1; commits ascending,
// each with start <= version <= latest_version and a staged_file that is
// "_delta_log/_staged_commits/<its version>.<uuid>.json". kInternal naming
// what is wrong.
StatusOr<PendingCommits> ParsePendingCommits(std::string_view body, Version start);

}  // namespace deltacommit::service_client
