#include "model/model_ports.h"

#include "deltacommit/log_path.h"

namespace deltacommit::model {
namespace {

bool IsCommitKey(std::string_view key) {
  if (!key.starts_with(kLogDir)) return false;
  return ParseLogPath(key.substr(kLogDir.size())).type == LogFileType::kCommit;
}

Status NotAnActor(const std::string& point) {
  return UnavailableError("model: " + point +
                          " called outside any actor (background work is off in the model)");
}

// The yield for a call at `point`; nullopt: go on with the call.
std::optional<Status> Enter(const std::string& point, bool mutates, Fault* fault) {
  Scheduler* scheduler = Scheduler::Current();
  if (scheduler == nullptr) return NotAnActor(point);
  *fault = scheduler->Yield(point, mutates);
  if (*fault == Fault::kLoseRequest) {
    return UnknownOutcomeError("model: " + point + " timed out (it never arrived)");
  }
  if (*fault == Fault::kCrash || *fault == Fault::kFail) return FaultStatus(*fault, point);
  return std::nullopt;
}

// What a call that took effect answers under `fault`.
template <typename Result>
Result Leave(Result result, Fault fault, const std::string& point) {
  if (fault != Fault::kLoseReply) return result;
  return UnknownOutcomeError("model: the reply of " + point + " was lost (" +
                             (result.ok() ? std::string("it succeeded")
                                          : "it answered " + std::string(StatusCodeName(result.code()))) +
                             ")");
}

template <typename T>
StatusOr<T> Leave(StatusOr<T> result, Fault fault, const std::string& point) {
  if (fault != Fault::kLoseReply) return result;
  return UnknownOutcomeError("model: the reply of " + point + " was lost");
}

}  // namespace

void WriteLedger::Record(const std::string& key, std::string bytes) {
  std::lock_guard lock(mu_);
  writes_[key].push_back(std::move(bytes));
}

std::map<std::string, std::vector<std::string>> WriteLedger::writes() const {
  std::lock_guard lock(mu_);
  return writes_;
}

Status FaultStatus(Fault fault, const std::string& point) {
  if (fault == Fault::kCrash) return UnavailableError("model: the actor crashed at " + point);
  return UnavailableError("model: " + point + " failed (injected)");
}

template <typename Result, typename Call>
Result YieldingObjectStore::Intercept(std::string_view op, std::string_view key, bool mutates,
                                      Call call) {
  const std::string point = name_ + "/" + std::string(op) + " " + std::string(key);
  Fault fault = Fault::kNone;
  if (std::optional<Status> cut = Enter(point, mutates, &fault)) return *cut;
  return Leave(call(), fault, point);
}

void YieldingObjectStore::RecordWrite(std::string_view key) {
  if (!IsCommitKey(key)) return;
  auto bytes = base().Get(key);
  ledger_.Record(std::string(key), bytes.ok() ? *bytes : "<unreadable after write>");
}

StatusOr<std::string> YieldingObjectStore::Get(std::string_view key,
                                               std::optional<ByteRange> range) {
  return Intercept<StatusOr<std::string>>("get", key, false,
                                          [&] { return base().Get(key, range); });
}

StatusOr<ObjectMeta> YieldingObjectStore::Head(std::string_view key) {
  return Intercept<StatusOr<ObjectMeta>>("head", key, false, [&] { return base().Head(key); });
}

StatusOr<std::vector<ObjectMeta>> YieldingObjectStore::List(std::string_view prefix,
                                                            std::string_view start_after) {
  return Intercept<StatusOr<std::vector<ObjectMeta>>>(
      "list", prefix, false, [&] { return base().List(prefix, start_after); });
}

Status YieldingObjectStore::PutIfAbsent(std::string_view key, std::string_view data) {
  return Intercept<Status>("put-if-absent", key, true, [&] {
    Status st = broken_put_if_absent_ ? base().Put(key, data) : base().PutIfAbsent(key, data);
    if (st.ok()) RecordWrite(key);
    return st;
  });
}

Status YieldingObjectStore::Put(std::string_view key, std::string_view data) {
  return Intercept<Status>("put", key, true, [&] {
    Status st = base().Put(key, data);
    if (st.ok()) RecordWrite(key);
    return st;
  });
}

Status YieldingObjectStore::Copy(std::string_view src, std::string_view dst, bool if_absent) {
  return Intercept<Status>("copy", dst, true, [&] {
    Status st = base().Copy(src, dst, if_absent);
    if (st.ok()) RecordWrite(dst);
    return st;
  });
}

Status YieldingObjectStore::Delete(std::string_view key) {
  // A delete's contract has no unknown outcome: it never loses its reply.
  return Intercept<Status>("delete", key, false, [&] { return base().Delete(key); });
}

#define DC_MODEL_CALL(point, mutates, call)                                  \
  do {                                                                       \
    Fault fault = Fault::kNone;                                              \
    if (std::optional<Status> cut = Enter(point, mutates, &fault)) return *cut; \
    return Leave(call, fault, point);                                        \
  } while (0)

Status YieldingCoordinationTable::PutIfAbsent(const ExternalCommitEntry& entry) {
  DC_MODEL_CALL("ddb/put-if-absent " + entry.file_name, true,
                broken_put_if_absent_ ? base().Put(entry) : base().PutIfAbsent(entry));
}

Status YieldingCoordinationTable::Put(const ExternalCommitEntry& entry) {
  DC_MODEL_CALL("ddb/put " + entry.file_name, true, base().Put(entry));
}

StatusOr<std::optional<ExternalCommitEntry>> YieldingCoordinationTable::Get(
    const std::string& table_path, const std::string& file_name) {
  DC_MODEL_CALL("ddb/get " + file_name, false, base().Get(table_path, file_name));
}

StatusOr<std::optional<ExternalCommitEntry>> YieldingCoordinationTable::GetLatest(
    const std::string& table_path) {
  DC_MODEL_CALL(std::string("ddb/get-latest"), false, base().GetLatest(table_path));
}

StatusOr<CommitEntryPage> YieldingCoordinationTable::ListPage(const std::string& table_path,
                                                              const std::string& start_after,
                                                              int limit) {
  DC_MODEL_CALL(std::string("ddb/list-page"), false,
                base().ListPage(table_path, start_after, limit));
}

Status YieldingStateStore::Ratify(const service::CommitRecord& record,
                                  service::RatifyConflict* conflict) {
  DC_MODEL_CALL("state/ratify " + std::to_string(record.version), true,
                base().Ratify(record, conflict));
}

StatusOr<std::optional<service::CommitRecord>> YieldingStateStore::Get(const std::string& table,
                                                                       Version version) {
  DC_MODEL_CALL("state/get " + std::to_string(version), false, base().Get(table, version));
}

StatusOr<std::optional<service::CommitRecord>> YieldingStateStore::Latest(
    const std::string& table) {
  DC_MODEL_CALL(std::string("state/latest"), false, base().Latest(table));
}

StatusOr<std::vector<service::CommitRecord>> YieldingStateStore::ListFrom(
    const std::string& table, Version start, int64_t limit) {
  DC_MODEL_CALL("state/list-from " + std::to_string(start), false,
                base().ListFrom(table, start, limit));
}

StatusOr<std::vector<service::CommitRecord>> YieldingStateStore::Unpublished(
    const std::string& table, int64_t limit) {
  DC_MODEL_CALL(std::string("state/unpublished"), false, base().Unpublished(table, limit));
}

Status YieldingStateStore::MarkPublishedThrough(const std::string& table, Version version) {
  DC_MODEL_CALL("state/mark-published " + std::to_string(version), false,
                base().MarkPublishedThrough(table, version));
}

StatusOr<int64_t> YieldingStateStore::ForgetPublishedBefore(const std::string& table,
                                                            Version version) {
  DC_MODEL_CALL("state/forget " + std::to_string(version), false,
                base().ForgetPublishedBefore(table, version));
}

StatusOr<std::optional<service::AppliedTxn>> YieldingStateStore::LatestAppTxn(
    const std::string& table, std::string_view app_id) {
  DC_MODEL_CALL("state/latest-app-txn " + std::string(app_id), false,
                base().LatestAppTxn(table, app_id));
}

#undef DC_MODEL_CALL

Status YieldingStepHooks::AtStep(std::string_view step) {
  Scheduler* scheduler = Scheduler::Current();
  const std::string point = "step " + std::string(step);
  if (scheduler == nullptr) return NotAnActor(point);
  const Fault fault = scheduler->Yield(point, false);
  return fault == Fault::kCrash ? FaultStatus(fault, point) : OkStatus();
}

StatusOr<std::unique_ptr<ObjectStore>> ModelStoreFactory::Open(const service::TableAccess&) {
  return std::unique_ptr<ObjectStore>(std::make_unique<YieldingObjectStore>(base_, ledger_, "s3"));
}

}  // namespace deltacommit::model
