#include "deltacommit/logstore/s3_dynamodb_log_store.h"

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"

namespace deltacommit {
namespace {

constexpr int kRecoveryAttempts = 3;

// tempPath is relative to _delta_log/.
std::string TempKey(const ExternalCommitEntry& e) { return std::string(kLogDir) + e.temp_path; }
std::string CommitKey(const ExternalCommitEntry& e) { return std::string(kLogDir) + e.file_name; }

}  // namespace

S3DynamoDbLogStore::S3DynamoDbLogStore(ObjectStore& store, CoordinationTable& table,
                                       S3DynamoDbOptions options, Clock& clock,
                                       StepHooks* hooks)
    : store_(store), table_(table), options_(std::move(options)), clock_(clock), hooks_(hooks) {
  while (options_.table_path.size() > 1 && options_.table_path.back() == '/') {
    options_.table_path.pop_back();
  }
}

std::string S3DynamoDbLogStore::Describe() const {
  return "s3-dynamodb " + store_.Describe() + " (" + table_.Describe() + ")";
}

Status S3DynamoDbLogStore::Recover(const ExternalCommitEntry& entry) {
  Status last;
  for (int attempt = 0; attempt < kRecoveryAttempts; ++attempt) {
    auto head = store_.Head(CommitKey(entry));
    if (head.status().IsNotFound()) {
      // Plain copy: only the temp object's bytes can land here, so racing
      // recoverers write identical content.
      last = store_.Copy(TempKey(entry), CommitKey(entry), /*if_absent=*/false);
      if (!last.ok()) continue;
    } else if (!head.ok()) {
      last = head.status();
      continue;
    }
    // N.json is in place but the entry still says incomplete: a recoverer
    // crashing here leaves the same state to the next one.
    DC_RETURN_IF_ERROR(RunStep(hooks_, "s3ddb/recovery-after-copy"));
    last = MarkComplete(entry);
    if (last.ok()) return OkStatus();
  }
  return last.WithContext("recovering " + options_.table_path + " " + entry.file_name);
}

Status S3DynamoDbLogStore::MarkComplete(ExternalCommitEntry entry) {
  entry.complete = true;
  entry.expire_time = clock_.NowMillis() / 1000 + options_.ttl_seconds;
  return table_.Put(entry);
}

Status S3DynamoDbLogStore::CheckPrevious(Version version) {
  if (version == 0) {
    DC_ASSIGN_OR_RETURN(auto entry, table_.Get(options_.table_path, CommitFileName(0)));
    if (entry && entry->complete && store_.Head(CommitPath(0)).status().IsNotFound()) {
      return FailedPreconditionError(
          "s3-dynamodb: " + table_.Describe() + " still has a complete entry for " +
          options_.table_path + " version 0 but " + CommitPath(0) +
          " is missing: the table was deleted and recreated at the same path before the old "
          "entries expired. Delete the entries for this tablePath, or use another path.");
    }
    return OkStatus();
  }
  DC_ASSIGN_OR_RETURN(auto previous, table_.Get(options_.table_path, CommitFileName(version - 1)));
  if (previous && !previous->complete) return Recover(*previous);
  auto head = store_.Head(CommitPath(version - 1));
  if (head.status().IsNotFound()) {
    return FailedPreconditionError(
        "s3-dynamodb: " + CommitPath(version - 1) + " of " + options_.table_path +
        " does not exist, so version " + std::to_string(version) +
        " cannot be written: the log and " + table_.Describe() + " are out of sync");
  }
  return head.status();
}

Status S3DynamoDbLogStore::PutEntry(const ExternalCommitEntry& entry) {
  Status st = table_.PutIfAbsent(entry);
  if (!st.IsUnknownOutcome()) return st;
  // The reply was lost: the entry tells whether our put landed.
  DC_ASSIGN_OR_RETURN(auto existing, table_.Get(entry.table_path, entry.file_name));
  if (!existing) return table_.PutIfAbsent(entry);
  if (existing->temp_path == entry.temp_path) return OkStatus();
  return AlreadyExistsError(options_.table_path + " " + entry.file_name +
                            " was taken by another writer");
}

Status S3DynamoDbLogStore::Write(Version version, std::string_view content) {
  if (version < 0) return InvalidArgumentError("s3-dynamodb: negative version");
  auto head = store_.Head(CommitPath(version));  // step 0
  if (head.ok()) return AlreadyExistsError(CommitPath(version) + " already exists");
  if (!head.status().IsNotFound()) return head.status();
  DC_RETURN_IF_ERROR(CheckPrevious(version));  // step 1
  ExternalCommitEntry entry;
  entry.table_path = options_.table_path;
  entry.file_name = CommitFileName(version);
  entry.temp_path = TempCommitPath(version, NewUuid()).substr(kLogDir.size());
  DC_RETURN_IF_ERROR(RunStep(hooks_, "s3ddb/before-temp-put"));
  DC_RETURN_IF_ERROR(store_.Put(TempKey(entry), content));  // step 2
  DC_RETURN_IF_ERROR(RunStep(hooks_, "s3ddb/after-temp-put"));
  DC_RETURN_IF_ERROR(PutEntry(entry));  // step 3: the commit point
  // From here the commit is decided: store failures are left to recovery
  // and do not fail it. (A step hook's failure is a simulated crash: the
  // writer never learns the outcome, so it is returned.)
  DC_RETURN_IF_ERROR(RunStep(hooks_, "s3ddb/after-commit-point"));
  if (!store_.Copy(TempKey(entry), CommitKey(entry), /*if_absent=*/false).ok()) return OkStatus();
  DC_RETURN_IF_ERROR(RunStep(hooks_, "s3ddb/after-copy"));
  MarkComplete(entry).IgnoreError();  // step 5
  return OkStatus();
}

StatusOr<std::vector<ObjectMeta>> S3DynamoDbLogStore::List(Version from) {
  DC_ASSIGN_OR_RETURN(auto latest, table_.GetLatest(options_.table_path));
  if (latest && !latest->complete) DC_RETURN_IF_ERROR(Recover(*latest));
  return store_.List(kLogDir, LogListStartAfter(from));
}

StatusOr<std::string> S3DynamoDbLogStore::Read(std::string_view key) {
  auto content = store_.Get(key);
  if (!content.status().IsNotFound()) return content;
  // A decided commit may not be copied yet: its entry makes it readable.
  if (!key.starts_with(kLogDir)) return content;
  ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
  if (parsed.type != LogFileType::kCommit) return content;
  DC_ASSIGN_OR_RETURN(auto entry, table_.Get(options_.table_path, CommitFileName(parsed.version)));
  if (!entry) return content;
  DC_RETURN_IF_ERROR(Recover(*entry));
  return store_.Get(key);
}

}  // namespace deltacommit
