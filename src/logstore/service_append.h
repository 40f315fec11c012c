// Blind appends through the commit service (docs/protocols/group-commit.md),
// for the `service` and `coordinated` log stores alike: the service assigns
// the version and writes the commit itself in both modes.
//
// Thread-safety: as the client's.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "deltacommit/commit_service_client.h"
#include "deltacommit/log_store.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

// Steps: service/before-append, service/after-append. When the service
// cannot assign versions for the table (append_unavailable) or does not
// know appends (an older one), sets `assign_versions` false, so the log
// store's later appends go the versioned way at once.
StatusOr<BlindAppendResult> AppendThroughService(CommitServiceClient& client,
                                                 const std::string& table_uri,
                                                 Version read_version, std::string_view content,
                                                 StepHooks* hooks,
                                                 std::atomic<bool>& assign_versions);

}  // namespace deltacommit
