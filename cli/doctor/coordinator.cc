// The "commit coordinator" check of every mode: whether this mode may write
// the table at all, as the table's metadata decides (commit_coordinator.h).
// Permissions are no use to a writer the table refuses.
#include "deltacommit/commit_coordinator.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "deltacommit/snapshot.h"
#include "doctor/doctor.h"

namespace deltacommit::cli {
namespace {

constexpr const char* kCheck = "commit coordinator";

std::string Names(const std::string& coordinator) {
  return coordinator.empty() ? std::string("names no commit coordinator")
                             : "names commit coordinator \"" + coordinator + "\"";
}

}  // namespace

void CheckTableCoordinator(TableAdapters& t, DoctorReport& report) {
  const std::string writer = t.log->CommitCoordinator();
  // The published log through a plain reader: it holds the coordinator
  // properties too, and unlike the s3-dynamodb store it never repairs
  // (writes) anything, which a doctor run must not.
  ObjectStoreLogStore published(*t.store, "published log");
  StatusOr<std::shared_ptr<const Snapshot>> snapshot = LoadSnapshot(published, t.Request());
  if (snapshot.status().IsNotFound()) {
    return report.Add(kCheck, Verdict::kOk,
                      "no table yet; --log-store " + std::string(CommitModeName(t.mode)) + " creates one that " +
                          Names(writer));
  }
  if (!snapshot.ok()) {
    return report.Add(kCheck, Verdict::kSkip,
                      "the table's snapshot could not be read: " + snapshot.status().ToString());
  }
  const Snapshot& s = **snapshot;
  const std::string table = CommitCoordinatorOf(s.metadata());
  Status allowed = CheckCommitCoordinator(&s.metadata(), s.protocol(), s.metadata(), writer);
  report.AddStatus(kCheck, allowed,
                   "the table (version " + std::to_string(s.version()) + ") " + Names(table) +
                       ": --log-store " + std::string(CommitModeName(t.mode)) + " may commit to it");
}

}  // namespace deltacommit::cli
