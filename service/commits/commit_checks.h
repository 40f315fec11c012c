// The checks a commit request passes before the service writes anything:
// the commit's content (every line a Delta action this build knows, files
// inside the table, within the limits), the staged commit's name, and the
// credentials.
//
// Thread-safety: pure functions (CheckCommitContent builds its own parser).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/aws/credentials.h"
#include "deltacommit/commit_rules.h"
#include "deltacommit/status.h"
#include "service/state/commit_record.h"

namespace deltacommit::service {

struct CommitLimits {
  int64_t max_commit_bytes = 16 << 20;  // one commit file
  int64_t max_actions = 200'000;        // lines of one commit file
};

// What the state store keeps of a checked commit.
struct CheckedCommit {
  std::string content_sha256;  // lower-case hex of the exact bytes
  int64_t size = 0;
  // commitInfo.inCommitTimestamp, else commitInfo.timestamp.
  std::optional<int64_t> commit_timestamp_ms;
  // The txn actions, one per appId (recorded when the commit is ratified).
  std::vector<AppTxn> app_txns;
  // The commit rules, applied to each action; Finish is left for when the
  // table's state at the previous version is known.
  CommitChecker rules{""};
};

// Checks `content`, the bytes of a commit file for `table`: one action per
// line ('\n', or "\r\n"; the last newline optional), no empty line, and
// each action by the library's commit rules (deltacommit/commit_rules.h:
// known actions, at most one commitInfo, protocol and metaData, files inside
// the table, ...). The rules of the whole commit against the table's state
// are left to `rules.Finish`.
//   kInvalidArgument    what is wrong, with the 1-based line number
//   kResourceExhausted  over `limits` (bytes or actions), naming the limit
StatusOr<CheckedCommit> CheckCommitContent(std::string_view table, std::string_view content,
                                           const CommitLimits& limits);

// OK when `staged_file` is "_delta_log/_staged_commits/<v>.<uuid>.json" with
// v == `version` (20 digits); kInvalidArgument saying what it should be.
Status CheckStagedFileName(std::string_view staged_file, Version version);

// OK when `credentials` have a key id, a secret and an expiration that is
// more than `min_validity_ms` after `now_ms`. Otherwise kUnauthenticated
// naming what is missing, or when they expire(d) in UTC and what to do.
// Never names the secret or the session token.
Status CheckRequestCredentials(const aws::Credentials& credentials, int64_t now_ms,
                               int64_t min_validity_ms);

}  // namespace deltacommit::service
