// The model checker's actors: writers commit through the real Transaction,
// readers load snapshots, the recoverer finishes s3-dynamodb entries, the
// publisher does the commit service's background publishing in turn.
#include <spdlog/logger.h>

#include <set>

#include "deltacommit/commit_coordinator.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_dynamodb_log_store.h"
#include "deltacommit/schema.h"
#include "deltacommit/snapshot.h"
#include "deltacommit/table_features.h"
#include "deltacommit/transaction.h"
#include "model/model_world.h"
#include "service/commits/commit_steps.h"

namespace deltacommit::model {
namespace {

constexpr int kAttemptsPerCommit = 8;  // a writer's tries before it gives up
constexpr int kRounds = 4;              // reads, recoveries, publishes

std::string Marker(int writer, int commit) {
  return "w" + std::to_string(writer) + "-c" + std::to_string(commit) + ".parquet";
}

bool Dead() { return Scheduler::Current()->CurrentDead(); }

// The highest version a listing shows: commits, and ratified staged commits
// where the store lists them.
Version HighestListed(const std::vector<ObjectMeta>& listing, bool staged_are_commits) {
  Version highest = -1;
  for (const ObjectMeta& meta : listing) {
    if (!meta.key.starts_with(kLogDir)) continue;
    const ParsedLogPath p = ParseLogPath(std::string_view(meta.key).substr(kLogDir.size()));
    if (p.type == LogFileType::kCommit ||
        (staged_are_commits && p.type == LogFileType::kStagedCommit)) {
      highest = std::max(highest, p.version);
    }
  }
  return highest;
}

}  // namespace

void World::CreateTable() {
  Ports ports = MakePorts("create");
  Metadata m;
  m.id = "model";
  m.schema_string = SchemaStringFromArgument("id:long").value();
  if (!ports.log->CommitCoordinator().empty()) {
    AddCommitCoordinatorProperties(ports.log->CommitCoordinator(),
                                   ports.log->CommitCoordinatorConf(), &m);
  }
  StatusOr<Protocol> protocol = ProtocolForNewTable(m);
  if (!protocol.ok()) return Problem("create: " + protocol.status().ToString());
  Transaction txn(*ports.log, nullptr, {}, clock_, sleeper_);
  txn.AddAction(*protocol);
  txn.AddAction(m);
  StatusOr<CommitOutcome> created = txn.Commit();
  if (!created.ok() || created->version != 0) {
    Problem("create: version 0 not written: " +
            (created.ok() ? std::to_string(created->version) : created.status().ToString()));
  }
}

// Commits its markers one by one, each with its own app txn, retrying after
// errors and conflicts as an application would (the txn makes a retry of a
// commit that landed a no-op). Odd writers read the whole table, so that
// they take the versioned path and can conflict; even ones append blindly
// (through the service: a version the service assigns).
void World::Writer(int w) {
  Ports ports = MakePorts("writer-" + std::to_string(w));
  const std::string app = "writer-" + std::to_string(w);
  for (int i = 0; i < options_.commits_per_writer; ++i) {
    for (int attempt = 0; attempt < kAttemptsPerCommit; ++attempt) {
      if (Dead()) return;
      StatusOr<std::shared_ptr<const Snapshot>> snapshot = LoadSnapshot(*ports.log, {});
      if (!snapshot.ok()) continue;
      TransactionOptions txn_options;
      txn_options.max_attempts = 30;
      Transaction txn(*ports.log, *snapshot, txn_options, clock_, sleeper_);
      if (w % 2 == 1) txn.ReadWholeTable();
      AddFile add;
      add.path = Marker(w, i);
      add.size = 1;
      txn.AddAction(add);
      txn.SetAppTransaction(app, i + 1);
      StatusOr<CommitOutcome> outcome = txn.Commit();
      if (Dead()) return;  // it never learns the outcome
      if (!outcome.ok() || outcome->result == CommitResult::kConflict) continue;
      std::lock_guard lock(mu_);
      acks_.push_back(Ack{Marker(w, i), outcome->version,
                          outcome->result == CommitResult::kCommitted});
      break;
    }
  }
}

// A reader's view must only move forward, and in coordinated mode never
// show a version the service has not ratified.
void World::CheckVisible(LogStore& log, Version* last_seen) {
  StatusOr<std::vector<ObjectMeta>> listing = log.List(0);
  if (listing.ok() && options_.mode == Mode::kCoordinated) {
    const Version visible = HighestListed(*listing, log.ListsRatifiedStagedCommits());
    // Read after the listing: ratified versions only grow, so a version
    // above this was above it when listed too. Version 0 is the table's
    // creation, which the service does not ratify.
    auto latest = state_->Latest(table_uri_);
    const Version ratified = latest.ok() && *latest ? (*latest)->version : -1;
    if (latest.ok() && visible > 0 && visible > ratified) {
      Problem("reader saw version " + std::to_string(visible) +
              " above the service's ratified version " + std::to_string(ratified));
    }
  }
  StatusOr<std::shared_ptr<const Snapshot>> snapshot = LoadSnapshot(log, {});
  if (!snapshot.ok()) return;  // faults: an error is allowed, a wrong answer is not
  const Version version = (*snapshot)->version();
  if (version < *last_seen) {
    Problem("reader went back from version " + std::to_string(*last_seen) + " to " +
            std::to_string(version));
  }
  *last_seen = std::max(*last_seen, version);
}

void World::Reader(int r) {
  Ports ports = MakePorts("reader-" + std::to_string(r));
  Version last_seen = -1;
  for (int round = 0; round < kRounds && !Dead(); ++round) {
    CheckVisible(*ports.log, &last_seen);
  }
}

// As Delta's S3DynamoDBLogStore recovery: finds incomplete entries and
// completes them (copy the temp object, mark complete), then reads.
void World::Recoverer() {
  Ports ports = MakePorts("recoverer");
  auto& log = static_cast<S3DynamoDbLogStore&>(*ports.log);
  Version last_seen = -1;
  for (int round = 0; round < kRounds && !Dead(); ++round) {
    std::vector<ExternalCommitEntry> incomplete;
    ForEachCommitEntry(ddb_yielding_, "s3a://bucket/model", 2, [&](const ExternalCommitEntry& e) {
      if (!e.complete) incomplete.push_back(e);
      return OkStatus();
    }).IgnoreError();
    for (const ExternalCommitEntry& entry : incomplete) {
      if (Dead()) return;
      log.Recover(entry).IgnoreError();
    }
    CheckVisible(log, &last_seen);
  }
}

// The background publisher of some instance, in turn: publishes what is
// ratified. `finish`: the last one, after the run, with faults off.
void World::Publisher(bool finish) {
  YieldingObjectStore store(memory_, ledger_, finish ? "finish" : "publisher");
  service::CommitSteps steps(*state_yielding_, service::NoCommitObserver(), &hooks_, clock_,
                             std::make_shared<spdlog::logger>("model-publisher"));
  service::PublishTarget target{&store, /*enforces_if_none_match=*/true, /*background=*/true};
  for (int round = 0; round < kRounds && !Dead(); ++round) {
    service::StepResult result = steps.PublishPending(table_uri_, target);
    if (finish && result.has_value()) {
      Problem("publishing after the run failed: " + result->status.ToString());
    }
  }
}

}  // namespace deltacommit::model
