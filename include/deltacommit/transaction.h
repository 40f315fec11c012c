// Transaction: optimistic concurrency over a LogStore (docs/architecture.md,
// "How a commit flows").
//
// A transaction starts from a Snapshot (its read version), records what it
// read (whole table, partition predicates, files, app ids) and the actions it
// writes. Commit() tries `read version + 1`; when another writer took that
// version it reads the winning commits and applies Delta's conflict rules in
// Delta Spark's order. No conflict: rebase onto the winner and retry at the
// next version (bounded attempts, backoff with full jitter via the Sleeper).
// Conflict: a CommitOutcome naming the reason and the winning version.
//
// A blind append (only adds with dataChange, no reads) to a log store that
// AssignsVersions (the commit service) is sent once with its read version
// instead: the service picks the version, no race and no retry loop. It
// always carries a txn (the caller's, else this process's writer appId with
// a counter), so that a resend after a lost reply is recognised. When the
// store declines (metadata changed, appId in use, no state for the table),
// the commit takes the versioned path above.
//
// Thread-safety: one Transaction is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/clock.h"
#include "deltacommit/conflict.h"
#include "deltacommit/log_store.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/status.h"

namespace deltacommit {

// One of the process's writer appIds, held by one append at a time
// (transaction.cc).
struct WriterLane;

struct TransactionOptions {
  std::string operation = "WRITE";
  // Operation parameters as raw JSON values (strings keep their quotes).
  std::vector<std::pair<std::string, std::string>> operation_parameters;
  IsolationLevel isolation_level = IsolationLevel::kWriteSerializable;
  int max_attempts = 100;  // writes tried, counting the first
  // Full-jitter backoff after each lost race. Kept small: a lost race already
  // means progress (someone committed), and long sleeps only hand the table to
  // whoever is awake.
  std::chrono::milliseconds backoff_base{1};
  std::chrono::milliseconds backoff_cap{25};
  std::string engine_info = "deltacommit/0.1.0";
  // The table's URI ("s3://b/t", "file:///data/t"): actions may name files
  // by absolute URIs under it. Empty: only paths relative to the table root.
  std::string table_uri;
};

enum class CommitResult {
  kCommitted,  // written at `version`
  // The txn (appId, version) was already in the log: `version` is the log
  // version where this was seen (the read snapshot's or the winner's); the
  // txn landed at or before it (a checkpoint does not say exactly where).
  kAlreadyCommitted,
  kConflict,  // a concurrent commit conflicts; see `conflict`
};

struct CommitOutcome {
  CommitResult result = CommitResult::kCommitted;
  Version version = -1;  // committed version, or the winning version on conflict
  int attempts = 0;      // writes tried
  int rebases = 0;       // concurrent commits rebased over without conflict
  std::optional<Conflict> conflict;
  // The log store assigned the version (a blind append through the commit
  // service), sharing it with `merged` - 1 other appends.
  bool assigned = false;
  int64_t merged = 0;
};

class Transaction {
 public:
  // REQUIRES: `log`, `clock` and `sleeper` outlive the Transaction.
  Transaction(LogStore& log, std::shared_ptr<const Snapshot> read_snapshot,
              TransactionOptions options, Clock& clock, Sleeper& sleeper);

  Version read_version() const { return read_snapshot_->version(); }
  const Snapshot& read_snapshot() const { return *read_snapshot_; }

  // What the transaction read, for conflict detection.
  void ReadWholeTable() { read_.whole_table = true; }
  void AddReadPredicate(PartitionPredicate predicate);
  void AddReadFile(const std::string& path) { read_.files.insert(path); }
  // The app's last committed version in the read snapshot; records the read.
  std::optional<int64_t> ReadAppVersion(const std::string& app_id);

  // The actions to commit (commitInfo is generated; do not add one).
  void AddAction(Action action) { actions_.push_back(std::move(action)); }
  // Idempotency: records txn (appId, version). Commit() returns
  // kAlreadyCommitted when the log already holds this app version or newer.
  void SetAppTransaction(std::string app_id, int64_t version);

  // Writes the commit. A lost race is not an error: the outcome says
  // kConflict. Errors: kInvalidArgument for actions that may not be committed
  // (names the action), the table-features error for a protocol this build
  // cannot write, kResourceExhausted after max_attempts lost races without a
  // conflict, kUnknownOutcome when even reading back cannot decide, and store
  // errors as returned.
  StatusOr<CommitOutcome> Commit();

  // The commit file this transaction wrote as the version its Commit()
  // returned, when it wrote it itself (not one found already written after
  // a lost reply), or, for a blind append the store assigned alone to the
  // version after the one read, that version as a snapshot reads it (these
  // actions, the store's in-commit timestamp): a reader that holds the
  // version before it may apply it without reading it back. Null otherwise.
  const std::string* committed_content() const {
    return committed_content_ ? &*committed_content_ : nullptr;
  }

 private:
  Status Validate() const;
  // No reads beyond the app's own txn; only adds with dataChange.
  bool IsBlindAppend() const;
  // nullopt: the store declined; commit with a version.
  StatusOr<std::optional<CommitOutcome>> CommitAssigned();
  // `now` (default: the clock's) is commitInfo's timestamp and txn's
  // lastUpdated.
  std::string BuildCommit(int64_t in_commit_timestamp,
                          std::optional<int64_t> now = std::nullopt) const;
  int64_t NextInCommitTimestamp() const;
  // The commit file of `version`, or nullopt when absent.
  StatusOr<std::optional<std::string>> ReadVersion(Version version);
  StatusOr<std::optional<CommitOutcome>> Decide(Version version, const std::string& content,
                                                const std::string& winner, CommitOutcome outcome);
  StatusOr<std::optional<Conflict>> CheckWinner(Version version, const std::string& winner_content,
                                                bool* already_committed);
  // After losing a race: checks the versions from `version` that others
  // have committed meanwhile and moves `version` past them. A decision
  // (conflict, already committed) ends the commit.
  StatusOr<std::optional<CommitOutcome>> CatchUp(Version& version, const std::string& content,
                                                 CommitOutcome& outcome);
  void Backoff(int attempt);

  LogStore& log_;
  std::shared_ptr<const Snapshot> read_snapshot_;
  TransactionOptions options_;
  Clock& clock_;
  Sleeper& sleeper_;
  ReadSet read_;
  std::vector<Action> actions_;
  std::optional<SetTransaction> app_txn_;
  // The writer appId of an append sent without a txn of its own, held
  // until the transaction ends; then another append may take it.
  std::shared_ptr<const WriterLane> writer_lane_;
  std::string txn_id_;
  std::optional<int64_t> last_winner_ict_;
  std::optional<std::string> committed_content_;
  std::mt19937_64 rng_;
};

}  // namespace deltacommit
