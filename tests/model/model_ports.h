// The ports as the model checker's actors see them: decorators that make
// every call a yield point of the Scheduler and apply the fault it picks
// (crash: fail without effect from now on; lose reply: apply, then answer
// kUnknownOutcome; fail: kUnavailable without effect), and a ledger of the
// writes of commit files, so that an overwrite is caught even when the
// bytes end up the same.
//
// Each decorator derives from its port's forwarding wrapper and overrides
// every call the protocols make, since each is a yield point; only
// Describe() is forwarded as it is.
//
// A call from a thread that is no actor (the commit service's background
// publisher) fails with kUnavailable and has no effect: background work is
// off in the model, and a publisher actor does it in turn instead.
//
// Thread-safety: as the wrapped ports; the ledger locks.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deltacommit/forwarding_ports.h"
#include "deltacommit/step_hooks.h"
#include "model/scheduler.h"
#include "service/commits/object_store_factory.h"
#include "service/state/forwarding_state_store.h"

namespace deltacommit::model {

// Every successful write of a `_delta_log/<v>.json` key, with its bytes.
class WriteLedger {
 public:
  void Record(const std::string& key, std::string bytes);
  std::map<std::string, std::vector<std::string>> writes() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::string>> writes_;  // guarded by mu_
};

// The Status of a call cut short by `fault` (kCrash or kFail) at `point`.
Status FaultStatus(Fault fault, const std::string& point);

class YieldingObjectStore : public ForwardingObjectStore {
 public:
  // `base` and `ledger` must outlive this. `name` prefixes yield points.
  YieldingObjectStore(ObjectStore& base, WriteLedger& ledger, std::string name)
      : ForwardingObjectStore(base), ledger_(ledger), name_(std::move(name)) {}
  // Sabotage for the checker's own test: PutIfAbsent overwrites like Put.
  void BreakPutIfAbsent() { broken_put_if_absent_ = true; }

  StatusOr<std::string> Get(std::string_view key,
                            std::optional<ByteRange> range = std::nullopt) override;
  StatusOr<ObjectMeta> Head(std::string_view key) override;
  StatusOr<std::vector<ObjectMeta>> List(std::string_view prefix,
                                         std::string_view start_after = {}) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status Copy(std::string_view src, std::string_view dst, bool if_absent) override;
  Status Delete(std::string_view key) override;

 private:
  template <typename Result, typename Call>
  Result Intercept(std::string_view op, std::string_view key, bool mutates, Call call);
  void RecordWrite(std::string_view key);

  WriteLedger& ledger_;
  const std::string name_;
  bool broken_put_if_absent_ = false;
};

class YieldingCoordinationTable : public ForwardingCoordinationTable {
 public:
  // `base` must outlive this.
  explicit YieldingCoordinationTable(CoordinationTable& base) : ForwardingCoordinationTable(base) {}
  // Sabotage for the checker's own test: PutIfAbsent overwrites like Put.
  void BreakPutIfAbsent() { broken_put_if_absent_ = true; }
  Status PutIfAbsent(const ExternalCommitEntry& entry) override;
  Status Put(const ExternalCommitEntry& entry) override;
  StatusOr<std::optional<ExternalCommitEntry>> Get(const std::string& table_path,
                                                   const std::string& file_name) override;
  StatusOr<std::optional<ExternalCommitEntry>> GetLatest(const std::string& table_path) override;
  StatusOr<CommitEntryPage> ListPage(const std::string& table_path,
                                     const std::string& start_after, int limit) override;

 private:
  bool broken_put_if_absent_ = false;
};

class YieldingStateStore : public service::ForwardingStateStore {
 public:
  // `base` must outlive this.
  explicit YieldingStateStore(service::StateStore& base) : ForwardingStateStore(base) {}
  Status Ratify(const service::CommitRecord& record, service::RatifyConflict* conflict) override;
  StatusOr<std::optional<service::CommitRecord>> Get(const std::string& table,
                                                     Version version) override;
  StatusOr<std::optional<service::CommitRecord>> Latest(const std::string& table) override;
  StatusOr<std::vector<service::CommitRecord>> ListFrom(const std::string& table, Version start,
                                                        int64_t limit) override;
  StatusOr<std::vector<service::CommitRecord>> Unpublished(const std::string& table,
                                                           int64_t limit) override;
  Status MarkPublishedThrough(const std::string& table, Version version) override;
  StatusOr<int64_t> ForgetPublishedBefore(const std::string& table, Version version) override;
  StatusOr<std::optional<service::AppliedTxn>> LatestAppTxn(const std::string& table,
                                                            std::string_view app_id) override;
};

// Every named step of a protocol is a yield point; a crash there ends the
// protocol as a dead process would.
class YieldingStepHooks : public StepHooks {
 public:
  Status AtStep(std::string_view step) override;
};

// The commit service's stores: every table opened is the one shared
// YieldingObjectStore over the model's MemoryObjectStore (as S3 is shared
// by service instances), whatever the credentials.
class ModelStoreFactory : public service::ObjectStoreFactory {
 public:
  ModelStoreFactory(ObjectStore& base, WriteLedger& ledger) : base_(base), ledger_(ledger) {}
  StatusOr<std::unique_ptr<ObjectStore>> Open(const service::TableAccess& access) override;

 private:
  ObjectStore& base_;
  WriteLedger& ledger_;
};

}  // namespace deltacommit::model
