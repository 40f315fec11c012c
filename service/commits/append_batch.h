// Group commit of blind appends (docs/protocols/group-commit.md, issue 9):
// the pure part. ParseBlindAppend checks one writer's request; an
// AppendTableState is what the service knows of a table between commits;
// BuildAppendBatch merges the appends queued for a table into the content of
// its next version and says what became of each request; ApplyBatch and
// ApplyCommit move the state on once a version is ratified.
//
// Not wired into the HTTP API yet: CommitService calls none of this until the
// request path, the state store's app versions and the client land.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"
#include "service/state/commit_record.h"

namespace deltacommit::service {

// One writer's blind append.
struct BlindAppend {
  std::vector<AddFile> adds;
  std::vector<SetTransaction> txns;  // at most one per appId
  std::optional<std::string> txn_id;  // the writer's commitInfo.txnId
  // The snapshot version the writer's files were written for.
  Version read_version = -1;
  int64_t bytes = 0;  // of the request's actions
};

// Parses `actions` (commit-file lines) as a blind append: only `add` with
// dataChange true, `txn` (one per appId) and at most one `commitInfo` (of
// which only txnId is kept). kInvalidArgument naming the line and action
// otherwise, or when there is no add and no txn, or read_version < 0.
// Paths are CheckCommitContent's business.
StatusOr<BlindAppend> ParseBlindAppend(std::string_view actions, Version read_version);

// What the service knows of a table, from the commits it ratified.
struct AppendTableState {
  Version latest = -1;
  Version metadata_version = -1;  // of the last protocol or metaData action
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::optional<int64_t> last_in_commit_timestamp;  // of `latest`
  std::map<std::string, AppliedTxn, std::less<>> app_txns;
  // appIds the state store had no txn for at `latest`: a negative cache, so
  // a burst of appends from a new appId reads the store once. Consulted
  // after app_txns, which learns every txn committed since.
  std::set<std::string, std::less<>> absent_app_ids;
};

struct BatchLimits {
  int64_t max_appends = 1000;
  int64_t max_bytes = int64_t{8} << 20;
};

enum class AppendOutcome {
  kMerged,           // in the batch, at the batch's version
  kDuplicate,        // every txn already applied: version = where it landed,
                     // -1 when a later txn of the app superseded it
  kMetadataChanged,  // read_version predates version = the last change
  kTxnConflict,      // some txns applied and some not: another writer
                     // uses the appId; version = where the applied one is
  kNextBatch,        // appId already in this batch, or the batch is full
};

struct AppendResult {
  AppendOutcome outcome = AppendOutcome::kNextBatch;
  Version version = -1;
  std::string detail;  // for the reply's message
};

struct AppendBatch {
  Version version = -1;  // latest + 1
  std::string content;   // the commit file; empty when nothing was merged
  int64_t commit_timestamp_ms = 0;  // the in-commit timestamp, else timestamp
  bool has_in_commit_timestamp = false;  // the table has in-commit timestamps
  std::vector<SetTransaction> txns;  // of the merged requests
  std::vector<AppendResult> results;  // one per request, in order
};

// Merges `requests` (in arrival order) into version state.latest + 1, within
// `limits` (the first mergeable request always fits). The commit starts
// with one commitInfo: operation WRITE, mode Append, isBlindAppend,
// readVersion = latest, the merged writers' txnIds in
// operationParameters.mergedTxnIds, inCommitTimestamp = max(now, last + 1)
// when the table has in-commit timestamps. REQUIRES: state.protocol and
// state.metadata are set.
AppendBatch BuildAppendBatch(const AppendTableState& state,
                             std::span<const BlindAppend* const> requests,
                             const BatchLimits& limits, int64_t now_ms,
                             std::string_view engine_info);

// The state after `batch` was ratified.
void ApplyBatch(const AppendBatch& batch, AppendTableState* state);

// The state after any other commit (`actions` of version `version`) was
// ratified: its protocol, metaData and txn actions, its in-commit timestamp.
void ApplyCommit(Version version, const std::vector<Action>& actions, AppendTableState* state);

}  // namespace deltacommit::service
