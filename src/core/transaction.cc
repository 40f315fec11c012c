#include "deltacommit/transaction.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/commit_rules.h"
#include "deltacommit/log_path.h"
#include "deltacommit/table_features.h"

namespace deltacommit {

struct WriterLane {
  std::string app_id;
  int64_t version = 0;  // the txn version of the append holding it
};

namespace {

template <typename T>
const T* FindLast(const std::vector<Action>& actions) {
  const T* found = nullptr;
  for (const Action& a : actions) {
    if (auto* t = std::get_if<T>(&a)) found = t;
  }
  return found;
}

// Appends sent without a txn of their own carry one of the process's
// writer appIds, so that the service can tell a resend from a new append.
// The service takes an appId's version at or below the newest it has seen
// as a resend and answers "duplicate", writing nothing: an appId is
// therefore used by one append at a time, so that its versions reach the
// service in the order they were taken. (One appId for the whole process
// let two threads' appends cross on the way, and the one numbered lower,
// arriving second, was dropped as a duplicate.) AppIds are reused: a
// process adds to the table's txns as many as it ran appends at once.
class WriterLanes {
 public:
  std::shared_ptr<const WriterLane> Take() {
    std::lock_guard lock(mu_);
    if (pid_ != getpid()) {  // a forked child: its parent's appIds are the parent's
      free_.clear();
      pid_ = getpid();
    }
    auto lane = std::make_unique<WriterLane>();
    if (free_.empty()) {
      lane->app_id = "deltacommit-writer-" + NewUuid();
    } else {
      *lane = std::move(free_.back());
      free_.pop_back();
    }
    ++lane->version;
    return std::shared_ptr<const WriterLane>(
        lane.release(), [this, pid = pid_](const WriterLane* done) { Give(pid, done); });
  }

 private:
  void Give(pid_t taken_by, const WriterLane* done) {
    std::unique_ptr<const WriterLane> owned(done);
    std::lock_guard lock(mu_);
    if (taken_by == pid_) free_.push_back(*owned);
  }

  std::mutex mu_;
  pid_t pid_ = 0;
  std::vector<WriterLane> free_;
};

WriterLanes& ProcessWriterLanes() {
  static auto* lanes = new WriterLanes();  // never destroyed: lanes end with the process
  return *lanes;
}

}  // namespace

Transaction::Transaction(LogStore& log, std::shared_ptr<const Snapshot> read_snapshot,
                         TransactionOptions options, Clock& clock, Sleeper& sleeper)
    : log_(log),
      read_snapshot_(std::move(read_snapshot)),
      options_(std::move(options)),
      clock_(clock),
      sleeper_(sleeper),
      txn_id_(NewUuid()),
      rng_(std::random_device{}()) {
  if (read_snapshot_ == nullptr) {
    // A table that does not exist yet: an empty snapshot at version -1.
    read_snapshot_ = std::make_shared<const Snapshot>();
  }
}

void Transaction::AddReadPredicate(PartitionPredicate predicate) {
  read_.predicates.push_back(std::move(predicate));
}

std::optional<int64_t> Transaction::ReadAppVersion(const std::string& app_id) {
  read_.app_ids.insert(app_id);
  return read_snapshot_->AppVersion(app_id);
}

void Transaction::SetAppTransaction(std::string app_id, int64_t version) {
  SetTransaction txn;
  txn.app_id = std::move(app_id);
  txn.version = version;
  app_txn_ = std::move(txn);
}

Status Transaction::Validate() const {
  const bool creating = read_version() < 0;
  for (const Action& a : actions_) {
    if (std::holds_alternative<CommitInfo>(a)) {
      return InvalidArgumentError("commitInfo: the transaction writes its own commitInfo");
    }
  }
  // The rules every commit obeys, whoever writes it (the service applies
  // the same): paths, action kinds, version 0, protocol transitions.
  const CommitBase base{options_.table_uri, creating,
                        creating ? nullptr : &read_snapshot_->protocol(),
                        creating ? nullptr : &read_snapshot_->metadata()};
  DC_RETURN_IF_ERROR(CheckCommitActions(base, actions_));
  const Protocol* new_protocol = FindLast<Protocol>(actions_);
  const Metadata* new_metadata = FindLast<Metadata>(actions_);
  const Protocol& protocol = new_protocol ? *new_protocol : read_snapshot_->protocol();
  const Metadata& metadata = new_metadata ? *new_metadata : read_snapshot_->metadata();
  // This writer's own questions: can it write these features, and does it
  // commit through the coordinator the table names.
  DC_RETURN_IF_ERROR(CheckWriteSupported(protocol, metadata));
  DC_RETURN_IF_ERROR(CheckManagingCatalog(creating ? nullptr : &read_snapshot_->protocol(),
                                          protocol, metadata, log_.ManagingCatalog())
                         .WithContext(log_.Describe()));
  return CheckCommitCoordinator(creating ? nullptr : &read_snapshot_->metadata(), protocol,
                                metadata, log_.CommitCoordinator())
      .WithContext(log_.Describe());
}

std::string Transaction::BuildCommit(int64_t in_commit_timestamp,
                                     std::optional<int64_t> now) const {
  if (!now) now = clock_.NowMillis();
  const Protocol* np = FindLast<Protocol>(actions_);
  const Metadata* nm = FindLast<Metadata>(actions_);
  const bool ict = InCommitTimestampsEnabled(np ? *np : read_snapshot_->protocol(),
                                             nm ? *nm : read_snapshot_->metadata());
  bool depends_on_files = read_.whole_table || !read_.predicates.empty() || !read_.files.empty();
  bool only_adds = std::none_of(actions_.begin(), actions_.end(), [](const Action& a) {
    return std::holds_alternative<RemoveFile>(a) || std::holds_alternative<AddCdcFile>(a);
  });
  CommitInfo info;
  if (ict) info.in_commit_timestamp = in_commit_timestamp;
  info.timestamp = *now;
  info.operation = options_.operation;
  info.operation_parameters = options_.operation_parameters;
  if (read_version() >= 0) info.read_version = read_version();
  info.isolation_level = std::string(IsolationLevelName(options_.isolation_level));
  info.is_blind_append = only_adds && !depends_on_files;
  info.txn_id = txn_id_;
  info.engine_info = options_.engine_info;
  std::vector<Action> all;
  all.reserve(actions_.size() + 2);
  all.emplace_back(std::move(info));
  all.insert(all.end(), actions_.begin(), actions_.end());
  if (app_txn_) {
    SetTransaction txn = *app_txn_;
    txn.last_updated = *now;
    all.emplace_back(std::move(txn));
  }
  return ActionsToCommit(all);
}

namespace {

// The highest v such that commits from..v are all in `listing` (from - 1
// when `from` is not): staged keys count as commits only when the store
// lists ratified ones under them.
Version LastContiguousCommit(const std::vector<ObjectMeta>& listing, Version from,
                             bool staged_are_ratified) {
  std::set<Version> versions;
  for (const ObjectMeta& m : listing) {
    std::string_view key = m.key;
    if (!key.starts_with(kLogDir)) continue;
    const ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
    if (parsed.type == LogFileType::kCommit ||
        (staged_are_ratified && parsed.type == LogFileType::kStagedCommit)) {
      versions.insert(parsed.version);
    }
  }
  Version last = from - 1;
  while (versions.contains(last + 1)) ++last;
  return last;
}

}  // namespace

StatusOr<std::optional<std::string>> Transaction::ReadVersion(Version version) {
  auto existing = log_.Read(CommitPath(version));
  if (existing.status().IsNotFound()) return std::optional<std::string>();
  if (!existing.ok()) return existing.status();
  return std::optional<std::string>(std::move(existing).value());
}

// Checks the commit `winner_content` that took `version` against this
// transaction. Sets *already_committed when it carries our app txn.
StatusOr<std::optional<Conflict>> Transaction::CheckWinner(Version version,
                                                           const std::string& winner_content,
                                                           bool* already_committed) {
  ActionParser parser;
  auto parsed = parser.ParseCommit(winner_content);
  if (!parsed.ok()) {
    return parsed.status().WithContext(log_.Describe() + " " + CommitPath(version));
  }
  const std::vector<Action>& winner = *parsed;
  for (const Action& a : winner) {
    auto* txn = std::get_if<SetTransaction>(&a);
    if (app_txn_ && txn != nullptr && txn->app_id == app_txn_->app_id &&
        txn->version >= app_txn_->version) {
      *already_committed = true;
    }
    if (auto* ci = std::get_if<CommitInfo>(&a)) last_winner_ict_ = ci->in_commit_timestamp;
  }
  CurrentTransaction current;
  current.read = &read_;
  current.actions = &actions_;
  current.is_blind_append = !read_.whole_table && read_.predicates.empty() &&
                            read_.files.empty() &&
                            std::none_of(actions_.begin(), actions_.end(), [](const Action& a) {
                              return std::holds_alternative<RemoveFile>(a) ||
                                     std::holds_alternative<AddCdcFile>(a);
                            });
  current.table_partitioned = !read_snapshot_->metadata().partition_columns.empty();
  current.isolation_level = options_.isolation_level;
  return CheckConflict(current, version, winner);
}

// Versions committed by others since the race we lost are checked as
// winners here, as Delta does after updating its snapshot, rather than
// raced for one failed write at a time: a writer that fell k versions
// behind would otherwise need k lost writes (and backoffs) to catch up,
// and under steady load may never do so.
StatusOr<std::optional<CommitOutcome>> Transaction::CatchUp(Version& version,
                                                            const std::string& content,
                                                            CommitOutcome& outcome) {
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing, log_.List(version));
  const Version listed = LastContiguousCommit(listing, version, log_.ListsRatifiedStagedCommits());
  for (; version <= listed; ++version) {
    DC_ASSIGN_OR_RETURN(std::optional<std::string> winner, ReadVersion(version));
    if (!winner) break;  // listed but unreadable: race for it as usual
    DC_ASSIGN_OR_RETURN(std::optional<CommitOutcome> decided,
                        Decide(version, content, *winner, outcome));
    if (decided) return decided;
    ++outcome.rebases;
  }
  return std::optional<CommitOutcome>();
}

void Transaction::Backoff(int attempt) {
  const int64_t base = options_.backoff_base.count();
  const int64_t cap = options_.backoff_cap.count();
  const int shift = std::min(attempt, 20);
  const int64_t ceiling = std::min(cap, base << shift);
  if (ceiling <= 0) return;
  std::uniform_int_distribution<int64_t> jitter(0, ceiling);  // full jitter
  sleeper_.Sleep(std::chrono::milliseconds(jitter(rng_)));
}

int64_t Transaction::NextInCommitTimestamp() const {
  int64_t floor = read_snapshot_->in_commit_timestamp().value_or(0);
  if (last_winner_ict_) floor = std::max(floor, *last_winner_ict_);
  // Strictly increasing across versions, even when clocks disagree.
  return std::max(clock_.NowMillis(), floor + 1);
}

// What a taken `version` means for this transaction: ours (an earlier
// attempt whose reply was lost), our app txn already committed, a conflict,
// or nothing (nullopt: rebase and go on).
StatusOr<std::optional<CommitOutcome>> Transaction::Decide(Version version,
                                                           const std::string& content,
                                                           const std::string& winner,
                                                           CommitOutcome outcome) {
  outcome.version = version;
  if (winner == content) return std::optional<CommitOutcome>(outcome);
  bool already = false;
  DC_ASSIGN_OR_RETURN(std::optional<Conflict> conflict, CheckWinner(version, winner, &already));
  if (already) {
    outcome.result = CommitResult::kAlreadyCommitted;
    return std::optional<CommitOutcome>(outcome);
  }
  if (!conflict) return std::optional<CommitOutcome>();
  outcome.result = CommitResult::kConflict;
  outcome.conflict = std::move(conflict);
  return std::optional<CommitOutcome>(outcome);
}

bool Transaction::IsBlindAppend() const {
  if (read_version() < 0 || read_.whole_table || !read_.predicates.empty() ||
      !read_.files.empty()) {
    return false;
  }
  for (const std::string& app : read_.app_ids) {
    if (!app_txn_ || app != app_txn_->app_id) return false;
  }
  bool adds = false;
  for (const Action& a : actions_) {
    const auto* add = std::get_if<AddFile>(&a);
    if (add == nullptr || !add->data_change) return false;
    adds = true;
  }
  return adds;
}

StatusOr<std::optional<CommitOutcome>> Transaction::CommitAssigned() {
  if (!app_txn_) {
    writer_lane_ = ProcessWriterLanes().Take();
    SetAppTransaction(writer_lane_->app_id, writer_lane_->version);
  }
  const int64_t sent_timestamp = NextInCommitTimestamp();
  const int64_t now = clock_.NowMillis();
  StatusOr<BlindAppendResult> appended =
      log_.AppendBlind(read_version(), BuildCommit(sent_timestamp, now));
  if (!appended.ok()) {
    if (appended.status().code() == StatusCode::kFailedPrecondition) return std::optional<CommitOutcome>();
    return appended.status();
  }
  // Alone in the version after the one read, the append is, as a snapshot
  // reads it, this transaction's actions under the service's commitInfo,
  // of which only the in-commit timestamp counts: the reply gives it. (A
  // blind append holds no protocol or metaData: the read snapshot's rule.)
  const bool alone = !appended->duplicate && appended->merged == 1 &&
                     appended->version == read_version() + 1;
  const bool ict =
      InCommitTimestampsEnabled(read_snapshot_->protocol(), read_snapshot_->metadata());
  if (alone && (!ict || appended->in_commit_timestamp)) {
    committed_content_ = BuildCommit(appended->in_commit_timestamp.value_or(sent_timestamp), now);
  }
  CommitOutcome outcome;
  // A duplicate of a writer appId's version, which no other append held,
  // is this append's own earlier attempt, resent after its reply was lost:
  // it landed in `version`, and its data files must stay. A caller's appId
  // may have been applied by an earlier run instead: already committed.
  const bool own_resend = appended->duplicate && writer_lane_ != nullptr && appended->version >= 0;
  outcome.result = appended->duplicate && !own_resend ? CommitResult::kAlreadyCommitted
                                                      : CommitResult::kCommitted;
  outcome.version = appended->version;
  outcome.attempts = 1;
  outcome.assigned = true;
  outcome.merged = appended->merged;
  return std::optional<CommitOutcome>(outcome);
}

StatusOr<CommitOutcome> Transaction::Commit() {
  if (app_txn_) {
    read_.app_ids.insert(app_txn_->app_id);
    auto seen = read_snapshot_->AppVersion(app_txn_->app_id);
    if (seen && *seen >= app_txn_->version) {
      CommitOutcome done;
      done.result = CommitResult::kAlreadyCommitted;
      done.version = read_version();
      return done;
    }
  }
  DC_RETURN_IF_ERROR(Validate());
  if (log_.AssignsVersions() && IsBlindAppend()) {
    DC_ASSIGN_OR_RETURN(std::optional<CommitOutcome> assigned, CommitAssigned());
    if (assigned) return *assigned;
  }
  CommitOutcome outcome;
  Version version = read_version() + 1;
  std::string content = BuildCommit(NextInCommitTimestamp());
  while (outcome.attempts < options_.max_attempts) {
    ++outcome.attempts;
    Status st = log_.Write(version, content);
    std::optional<std::string> winner;  // the content found at `version`
    if (st.IsUnknownOutcome()) {
      // The write may have landed: only the log can tell (never a blind retry).
      DC_ASSIGN_OR_RETURN(winner, ReadVersion(version));
      st = winner ? AlreadyExistsError("version taken") : log_.Write(version, content);
      if (st.IsUnknownOutcome()) return st.WithContext("version " + std::to_string(version));
    }
    if (st.ok()) {
      outcome.version = version;
      committed_content_ = std::move(content);
      return outcome;
    }
    if (!st.IsAlreadyExists()) return st;
    if (!winner) {
      DC_ASSIGN_OR_RETURN(winner, ReadVersion(version));
    }
    if (!winner) {
      return UnavailableError(log_.Describe() + ": version " + std::to_string(version) +
                              " is taken but its commit file cannot be read yet; retry");
    }
    DC_ASSIGN_OR_RETURN(std::optional<CommitOutcome> decided,
                        Decide(version, content, *winner, outcome));
    if (decided) return *decided;
    ++outcome.rebases;
    ++version;
    Backoff(outcome.attempts);
    DC_ASSIGN_OR_RETURN(decided, CatchUp(version, content, outcome));
    if (decided) return *decided;
    content = BuildCommit(NextInCommitTimestamp());
  }
  return ResourceExhaustedError(
      "commit to " + log_.Describe() + " gave up after " + std::to_string(outcome.attempts) +
      " attempts (last tried version " + std::to_string(version) +
      "); every attempt lost the race to another writer without a conflict");
}

}  // namespace deltacommit
