#include "deltacommit/table.h"

#include <algorithm>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/commit_rules.h"
#include "deltacommit/log_path.h"
#include "deltacommit/schema.h"
#include "deltacommit/table/table_adapters.h"
#include "deltacommit/table_features.h"
#include "table/auto_checkpoint.h"
#include "table/catalog_access.h"

namespace deltacommit {

struct Table::State {
  std::unique_ptr<TableAdapters> adapters;
  Clock* clock = nullptr;
  Sleeper* sleeper = nullptr;
  std::function<void(const std::string&)> warn;
  bool auto_checkpoint = true;
  // One update at a time: two threads asking at once share one listing.
  std::mutex update_mu;
  std::mutex mu;                                        // guards `latest`
  std::shared_ptr<const deltacommit::Snapshot> latest;  // null until first read

  std::shared_ptr<const deltacommit::Snapshot> Latest() {
    std::lock_guard<std::mutex> lock(mu);
    return latest;
  }
  // Keeps the newer of the held snapshot and `s`.
  void Hold(const std::shared_ptr<const deltacommit::Snapshot>& s) {
    std::lock_guard<std::mutex> lock(mu);
    if (latest == nullptr || s->version() >= latest->version()) latest = s;
  }
  std::string Context() const { return "table " + adapters->uri; }

  // After this table's own commit of `version` (`content`): when it holds
  // version - 1, applies the commit without reading it back (no listing,
  // no GET) and returns the new snapshot; else null (Update instead).
  std::shared_ptr<const deltacommit::Snapshot> ApplyOwnCommit(Version version,
                                                              const std::string& content) {
    std::lock_guard<std::mutex> updating(update_mu);
    std::shared_ptr<const deltacommit::Snapshot> held = Latest();
    if (held == nullptr || held->version() != version - 1) return nullptr;
    ActionParser parser;
    auto actions = parser.ParseCommit(content);
    if (!actions.ok()) return nullptr;
    LogReplay replay(*held);
    if (!replay.Apply(version, std::move(actions).value()).ok()) return nullptr;
    auto applied = replay.Finish();
    if (!applied.ok()) return nullptr;
    Hold(*applied);
    return *applied;
  }
};

const std::string& Table::uri() const { return state_->adapters->uri; }
CommitMode Table::mode() const { return state_->adapters->mode; }
bool Table::is_local() const { return state_->adapters->is_local(); }
TableAdapters& Table::adapters() const { return *state_->adapters; }
Clock& Table::clock() const { return *state_->clock; }

namespace {

// commitInfo of a CREATE TABLE, as Delta Spark writes it.
TransactionOptions CreateTableOptions(const Metadata& m, bool managed) {
  TransactionOptions o;
  o.operation = "CREATE TABLE";
  nlohmann::json props = m.configuration;
  nlohmann::json parts = m.partition_columns;
  o.operation_parameters = {
      {"isManaged", managed ? "\"true\"" : "\"false\""},
      {"description", m.description ? nlohmann::json(*m.description).dump() : "null"},
      {"partitionBy", nlohmann::json(parts.dump()).dump()},
      {"properties", nlohmann::json(props.dump()).dump()},
  };
  return o;
}

}  // namespace

StatusOr<CommitOutcome> Table::Create(Metadata metadata) {
  State& s = *state_;
  // A uc:// table is created at a staging location the catalog gives, and
  // registered once version 0 is there (docs/protocols/catalog-managed.md).
  std::optional<CatalogStagingTable> staging;
  if (s.adapters->mode == CommitMode::kUnityCatalog) {
    DC_ASSIGN_OR_RETURN(staging, StageCatalogTable(*s.adapters, metadata));
  }
  LogStore& log = *s.adapters->log;
  DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> existing, log.List(0));
  if (!existing.empty()) {
    return AlreadyExistsError(s.Context() + " already has a _delta_log: not creating it again");
  }
  // A table created through a coordinator is a coordinated table
  // (docs/protocols/coordinated.md): it names the coordinator, so filesystem
  // writers refuse it.
  if (const std::string coordinator = log.CommitCoordinator(); !coordinator.empty()) {
    AddCommitCoordinatorProperties(coordinator, log.CommitCoordinatorConf(), &metadata);
  }
  DC_ASSIGN_OR_RETURN(Protocol protocol, ProtocolForNewTable(metadata));
  // delta.feature.X=supported asks for a protocol feature; like Spark it is
  // recorded in the protocol, not in the table's configuration.
  std::erase_if(metadata.configuration,
                [](const auto& kv) { return kv.first.starts_with("delta.feature."); });
  TransactionOptions options = CreateTableOptions(metadata, staging.has_value());
  options.table_uri = s.adapters->ActionUri();
  Transaction txn(log, nullptr, std::move(options), *s.clock, *s.sleeper);
  txn.AddAction(protocol);
  txn.AddAction(metadata);
  DC_ASSIGN_OR_RETURN(CommitOutcome outcome, Commit(txn));
  if (!staging || outcome.result != CommitResult::kCommitted) return outcome;
  std::shared_ptr<const deltacommit::Snapshot> created = s.Latest();
  const int64_t timestamp = created != nullptr && created->in_commit_timestamp()
                                ? *created->in_commit_timestamp()
                                : s.clock->NowMillis();
  DC_RETURN_IF_ERROR(RegisterCatalogTable(*s.adapters, *staging, protocol, metadata, timestamp));
  return outcome;
}

StatusOr<std::shared_ptr<const deltacommit::Snapshot>> Table::Update() {
  State& s = *state_;
  std::lock_guard<std::mutex> updating(s.update_mu);
  std::shared_ptr<const deltacommit::Snapshot> held = s.Latest();
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> updated =
      held == nullptr ? LoadSnapshot(*s.adapters->log, s.adapters->Request())
                      : UpdateSnapshot(*s.adapters->log, held, s.adapters->Request());
  if (!updated.ok()) return updated;
  if (held == nullptr) {
    if (auto warning = s.adapters->ReadAroundCoordinatorWarning(**updated)) s.warn(*warning);
  }
  s.Hold(*updated);
  return updated;
}

StatusOr<std::shared_ptr<const deltacommit::Snapshot>> Table::Snapshot() { return Update(); }

StatusOr<std::shared_ptr<const deltacommit::Snapshot>> Table::SnapshotAt(Version version) {
  if (auto held = state_->Latest(); held != nullptr && held->version() == version) return held;
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> snapshot =
      LoadSnapshot(*state_->adapters->log, state_->adapters->Request(version));
  if (snapshot.ok()) {
    if (auto warning = state_->adapters->ReadAroundCoordinatorWarning(**snapshot)) {
      state_->warn(*warning);
    }
  }
  return snapshot;
}

StatusOr<Transaction> Table::NewTransaction(TransactionOptions options,
                                            std::shared_ptr<const deltacommit::Snapshot> read) {
  if (read == nullptr) {
    DC_ASSIGN_OR_RETURN(read, Update());
  }
  // Actions may name files by absolute URIs under the table.
  options.table_uri = state_->adapters->ActionUri();
  return Transaction(*state_->adapters->log, std::move(read), std::move(options), *state_->clock,
                     *state_->sleeper);
}

StatusOr<CommitOutcome> Table::Commit(Transaction& transaction) {
  State& s = *state_;
  StatusOr<CommitOutcome> outcome = transaction.Commit();
  if (!outcome.ok()) return outcome.status().WithContext(s.Context());
  if (outcome->result != CommitResult::kCommitted) return outcome;
  // The commit stands whatever follows: a failed update or checkpoint is a
  // warning, and the next Update() reads what this one could not.
  std::shared_ptr<const deltacommit::Snapshot> own;
  if (const std::string* content = transaction.committed_content()) {
    own = s.ApplyOwnCommit(outcome->version, *content);
  }
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> updated =
      own != nullptr ? StatusOr<std::shared_ptr<const deltacommit::Snapshot>>(own) : Update();
  if (!updated.ok()) {
    s.warn("version " + std::to_string(outcome->version) + " of " + s.adapters->uri +
           " is committed, but reading it back failed: " + updated.status().ToString());
  }
  // Version 0 (a create, which reads no snapshot) is never due.
  if (!s.auto_checkpoint || outcome->version <= 0) return outcome;
  Status checkpoint = CheckpointIfDue(*s.adapters, transaction.read_snapshot(), outcome->version,
                                      updated.ok() ? updated->get() : nullptr, *s.clock);
  if (!checkpoint.ok()) {
    s.warn("version " + std::to_string(outcome->version) +
           " is committed, but its automatic checkpoint failed: " + checkpoint.ToString());
  }
  return outcome;
}

namespace {

// Only adds with dataChange, read from nothing: the commit rebases onto any
// version that changed neither the protocol nor the metadata.
bool IsBlindAppend(const std::vector<Action>& actions, const CommitOptions& options) {
  if (options.read_version || options.read_whole_table || !options.read_predicates.empty() ||
      actions.empty()) {
    return false;
  }
  return std::all_of(actions.begin(), actions.end(), [](const Action& a) {
    const auto* add = std::get_if<AddFile>(&a);
    return add != nullptr && add->data_change;
  });
}

}  // namespace

StatusOr<CommitOutcome> Table::Commit(std::vector<Action> actions, CommitOptions options) {
  if (!options.read_version && IsBlindAppend(actions, options) &&
      state_->adapters->log->AssignsVersions()) {
    if (std::shared_ptr<const deltacommit::Snapshot> held = state_->Latest()) {
      // The service rebases it (see table.h). A conflict means the held
      // snapshot is too old to append on (the protocol or metadata changed
      // since): try once more on the latest, as the append would have been
      // had it listed first. (An error is returned as it is: after an
      // unknown outcome a second try could append twice.)
      StatusOr<CommitOutcome> outcome = CommitOn(held, actions, options);
      if (!outcome.ok() || outcome->result != CommitResult::kConflict) return outcome;
      StatusOr<std::shared_ptr<const deltacommit::Snapshot>> latest = Update();
      if (!latest.ok() || (*latest)->version() == held->version()) return outcome;
      return CommitOn(*latest, std::move(actions), std::move(options));
    }
  }
  std::shared_ptr<const deltacommit::Snapshot> read;
  if (options.read_version) {
    DC_ASSIGN_OR_RETURN(read, SnapshotAt(*options.read_version));
  } else {
    DC_ASSIGN_OR_RETURN(read, Update());
  }
  return CommitOn(std::move(read), std::move(actions), std::move(options));
}

StatusOr<CommitOutcome> Table::CommitOn(std::shared_ptr<const deltacommit::Snapshot> read,
                                        std::vector<Action> actions, CommitOptions options) {
  for (const PartitionPredicate& p : options.read_predicates) {
    DC_RETURN_IF_ERROR(CheckReadPredicate(p, read->metadata())
                           .WithContext(state_->Context() + ": read predicate"));
  }
  DC_ASSIGN_OR_RETURN(Transaction txn, NewTransaction(std::move(options.transaction), read));
  if (options.read_whole_table) txn.ReadWholeTable();
  for (PartitionPredicate& p : options.read_predicates) txn.AddReadPredicate(std::move(p));
  if (options.app_transaction) {
    txn.SetAppTransaction(options.app_transaction->first, options.app_transaction->second);
  }
  for (Action& a : actions) {
    // A transaction that removes a file has read it.
    if (auto* rm = std::get_if<RemoveFile>(&a)) txn.AddReadFile(rm->path);
    txn.AddAction(std::move(a));
  }
  return Commit(txn);
}

StatusOr<CheckpointInfo> Table::Checkpoint(std::optional<Version> version,
                                           CheckpointOptions options) {
  State& s = *state_;
  StatusOr<std::shared_ptr<const deltacommit::Snapshot>> snapshot =
      version ? SnapshotAt(*version) : Update();
  if (!snapshot.ok()) return snapshot.status();
  DC_RETURN_IF_ERROR(CheckPublished(*s.adapters, (*snapshot)->version()));
  StatusOr<CheckpointInfo> info =
      WriteCheckpoint(*s.adapters->store, *s.adapters->parquet, **snapshot, *s.clock, options);
  if (!info.ok()) return info.status().WithContext(s.Context());
  return info;
}

StatusOr<std::vector<HistoryEntry>> Table::History(int64_t limit) {
  DC_ASSIGN_OR_RETURN(std::shared_ptr<const deltacommit::Snapshot> snapshot, Update());
  std::vector<HistoryEntry> history;
  for (Version v = snapshot->version(); v >= 0; --v) {
    if (limit > 0 && static_cast<int64_t>(history.size()) >= limit) break;
    auto actions = ReadCommit(*state_->adapters->log, v);
    if (actions.status().IsNotFound()) break;  // older commits cleaned up
    if (!actions.ok()) return actions.status();
    HistoryEntry entry;
    entry.version = v;
    for (Action& a : *actions) {
      if (auto* info = std::get_if<CommitInfo>(&a)) entry.commit_info = std::move(*info);
      entry.num_adds += std::holds_alternative<AddFile>(a);
      entry.num_removes += std::holds_alternative<RemoveFile>(a);
    }
    history.push_back(std::move(entry));
  }
  return history;
}

StatusOr<LogCheckReport> Table::Check() {
  const SnapshotRequest request = state_->adapters->Request();
  return CheckLog(*state_->adapters->log, &request);
}

namespace {

// Column mapping's writer requirements for a new table: every field,
// nested ones too, gets an id (delta.columnMapping.id, counted in
// delta.columnMapping.maxColumnId) and a physical name ("col-" and a UUID,
// as Spark names them), unless the schema given already has them.
void AssignColumnMapping(nlohmann::ordered_json& type, int64_t& max_id) {
  if (!type.is_object()) return;
  const std::string kind = type.value("type", "");
  if (kind == "array") return AssignColumnMapping(type["elementType"], max_id);
  if (kind == "map") {
    AssignColumnMapping(type["keyType"], max_id);
    return AssignColumnMapping(type["valueType"], max_id);
  }
  if (kind != "struct") return;
  for (auto& field : type["fields"]) {
    auto& metadata = field["metadata"];
    if (!metadata.is_object()) metadata = nlohmann::ordered_json::object();
    if (!metadata.contains("delta.columnMapping.id")) metadata["delta.columnMapping.id"] = ++max_id;
    max_id = std::max(max_id, metadata["delta.columnMapping.id"].get<int64_t>());
    if (!metadata.contains("delta.columnMapping.physicalName")) {
      metadata["delta.columnMapping.physicalName"] = "col-" + NewUuid();
    }
    AssignColumnMapping(field["type"], max_id);
  }
}

StatusOr<std::string> WithColumnMapping(const std::string& schema_string,
                                        StringMap& configuration) {
  auto mode = configuration.find("delta.columnMapping.mode");
  if (mode == configuration.end() || (mode->second != "name" && mode->second != "id")) {
    return schema_string;
  }
  auto schema = nlohmann::ordered_json::parse(schema_string, nullptr, false);
  if (schema.is_discarded()) return InvalidArgumentError("schema: not JSON");
  int64_t max_id = 0;
  try {
    AssignColumnMapping(schema, max_id);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgumentError(std::string("schema: ") + e.what());
  }
  configuration["delta.columnMapping.maxColumnId"] = std::to_string(max_id);
  return schema.dump();
}

}  // namespace

StatusOr<Metadata> NewTableMetadata(NewTable spec, int64_t created_time_ms) {
  Metadata m;
  m.id = NewUuid();
  m.name = std::move(spec.name);
  m.description = std::move(spec.description);
  DC_ASSIGN_OR_RETURN(m.schema_string, SchemaStringFromArgument(spec.schema));
  DC_ASSIGN_OR_RETURN(Schema schema, ParseSchema(m.schema_string));
  DC_RETURN_IF_ERROR(ValidatePartitionColumns(schema, spec.partition_columns));
  m.partition_columns = std::move(spec.partition_columns);
  m.configuration = std::move(spec.configuration);
  DC_ASSIGN_OR_RETURN(m.schema_string, WithColumnMapping(m.schema_string, m.configuration));
  m.created_time = created_time_ms;
  return m;
}

StatusOr<Table> OpenTable(std::string_view uri, TableOptions options) {
  auto state = std::make_shared<Table::State>();
  state->warn = options.on_warning;
  if (!state->warn) {
    state->warn = [](const std::string& warning) { std::cerr << "warning: " << warning << "\n"; };
  }
  state->auto_checkpoint = options.auto_checkpoint;
  state->clock = options.clock != nullptr ? options.clock : &SystemClock();
  state->sleeper = options.sleeper != nullptr ? options.sleeper : &RealSleeper();
  DC_ASSIGN_OR_RETURN(state->adapters, OpenTableAdapters(uri, options, state->warn));
  return Table(std::move(state));
}

}  // namespace deltacommit
