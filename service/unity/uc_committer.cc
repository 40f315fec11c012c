#include "service/unity/uc_committer.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "service/config/catalog_names.h"
#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"
#include "service/unity/uc_body.h"
#include "service/unity/uc_credentials_api.h"

namespace deltacommit::service::unity {
namespace {

constexpr char kStagedCommitsDir[] = "_delta_log/_staged_commits/";
// A catalog entry changed by another request between read and write is
// read again; more attempts mean the table's metadata changes under each.
constexpr int kMetadataAttempts = 5;
// How long a backfill report waits for the publisher: 40 x 50 ms.
constexpr int kPublishPolls = 40;
constexpr std::chrono::milliseconds kPublishPoll{50};

// UC's answer for a commit the coordinated path refused.
UcError ErrorForReply(const CommitReply& reply) {
  switch (reply.outcome) {
    case CommitOutcome::kVersionTaken:
      return CommitVersionConflict(reply.message);
    case CommitOutcome::kTooManyUnpublished:
      return MaxCommitsReached(reply.message);
    case CommitOutcome::kVersionAhead:
    case CommitOutcome::kBadRequest:
    case CommitOutcome::kTooLarge:
    case CommitOutcome::kMetadataChanged:
    case CommitOutcome::kTxnConflict:
    case CommitOutcome::kAppendUnavailable:
      return UcErrorFor(InvalidArgumentError(reply.message));
    case CommitOutcome::kForbidden:
    case CommitOutcome::kCredentialsRejected:
      return UcErrorFor(PermissionDeniedError(reply.message));
    case CommitOutcome::kCredentialsInvalid:
      return UcErrorFor(UnauthenticatedError(reply.message));
    // A crashed or cut-off ratification may have landed: UC's clients
    // resend on 5xx, and the same commit is then a replay.
    case CommitOutcome::kUnavailable:
      return UcErrorFor(UnknownOutcomeError(reply.message));
    case CommitOutcome::kLogInconsistent:
    case CommitOutcome::kOk:
      break;
  }
  return UcErrorFor(InternalError(reply.message));
}

UcCommitInfo InfoOf(const CommitRecord& record) {
  const std::string_view file =
      std::string_view(record.staged_file)
          .substr(std::min(record.staged_file.size(), std::string_view(kStagedCommitsDir).size()));
  // file_modification_timestamp: when the service read and ratified it;
  // UC's clients use it as the staged file's modification time.
  return {record.version, record.commit_timestamp_ms, std::string(file), record.size,
          record.ratified_at_ms};
}

}  // namespace

StatusOr<UcCommitInfo> ParseCommitInfo(const nlohmann::json& object, std::string_view where,
                                       const UcCommitFields& fields) {
  const std::string at(where);
  if (!object.is_object()) {
    return InvalidArgumentError("field \"" + at + "\" must be an object");
  }
  auto positive = [&](const char* field) -> StatusOr<int64_t> {
    DC_ASSIGN_OR_RETURN(int64_t value, RequiredInt(object, at, field));
    if (value <= 0) {
      return InvalidArgumentError("field \"" + at + "." + field + "\" is " + std::to_string(value) +
                                  ": it must be above 0");
    }
    return value;
  };
  StatusOr<int64_t> version = positive(fields.version);
  StatusOr<int64_t> timestamp = positive(fields.timestamp);
  StatusOr<std::string> file_name = RequiredString(object, at, fields.file_name);
  StatusOr<int64_t> file_size = positive(fields.file_size);
  StatusOr<int64_t> modified = positive(fields.file_modification_timestamp);
  if (std::optional<Status> bad =
          FirstError({version.status(), timestamp.status(), file_name.status(), file_size.status(),
                      modified.status()}))
    return *bad;
  if (file_name->empty() || *file_name == "." || *file_name == ".." ||
      file_name->find_first_of("/\\") != std::string::npos) {
    return InvalidArgumentError("field \"" + at + "." + fields.file_name + "\" " +
                                QuoteForMessage(*file_name) +
                                " must be one file name under _delta_log/_staged_commits/ "
                                "(no '/', '\\', \".\" or \"..\")");
  }
  return UcCommitInfo{*version, *timestamp, *std::move(file_name), *file_size, *modified};
}

StatusOr<UcCommitTarget> UcCommitter::Find(const TokenConfig& token, const std::string& table_id,
                                           Action action,
                                           const service_wire::SentCredentials& sent) const {
  DC_RETURN_IF_ERROR(ValidateUuid("table_id", table_id));
  DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table, deps_.names.catalog->GetTableById(table_id));
  if (!table) return NotFoundError("Table not found: " + table_id);
  DC_RETURN_IF_ERROR(AuthorizeName(token, table->name.FullName(), action));
  if (table->type != TableType::kManaged) {
    return InvalidArgumentError("Only managed tables are supported for Delta commits: " +
                                table->name.FullName() + " is EXTERNAL");
  }
  StatusOr<TableUri> location = NormalizeTableUri(table->storage_location);
  if (!location.ok()) return DataLossError(location.status().message());
  DC_RETURN_IF_ERROR(Authorize(token, *location, action));
  UcCommitTarget target{*std::move(table), {}};
  target.access.table = location->uri;
  if (location->is_local()) {
    DC_RETURN_IF_ERROR(CheckLocalTable(deps_.names.config->local, *location));
    target.access.endpoint = {"local", {}, /*enforces_if_none_match=*/true};
    target.access.local_root = LocalRootOf(deps_.names.config->local, *location).value_or("");
    return target;
  }
  DC_ASSIGN_OR_RETURN(S3EndpointConfig endpoint,
                      ResolveS3Endpoint(deps_.names.config->s3, location->bucket, ""));
  target.access.endpoint = {endpoint.name, endpoint.service, endpoint.enforces_if_none_match};
  if (action != Action::kCommit) return target;  // listing reads only the state store
  if (deps_.vendor == nullptr) {
    return UnimplementedError("commits through the Unity Catalog APIs to tables on S3 (" +
                              location->uri +
                              ") need credentials the service vends itself, and this service "
                              "has no vendor");
  }
  // A client of these APIs sends no storage credentials: the service reads
  // the staged commit and publishes as a session it vends itself (for a
  // pass-through bucket, the writer's own, which it did send).
  const VendRequest own_request{*location, VendOperation::kReadWrite, "uc-commits-" + token.name,
                                sent};
  StatusOr<VendedCredentials> own = deps_.vendor->Vend(own_request);
  if (!own.ok()) {
    return VendFailureForClient(own.status(), own_request, deps_.logger)
        .WithContext("commits through the Unity Catalog APIs to " + location->uri +
                     " are read and published with credentials this service vends itself");
  }
  target.access.credentials = std::move(own->credentials);
  return target;
}

std::optional<UcError> UcCommitter::Ratify(const UcCommitTarget& target, const UcCommitInfo& info,
                                           std::string_view file_field) const {
  CommitRequest commit;
  commit.access = target.access;
  commit.version = info.version;
  commit.staged_file = kStagedCommitsDir + info.file_name;
  commit.staged_size = info.file_size;
  commit.max_unpublished = deps_.max_unpublished_commits;
  if (Status name = ValidateStagedCommitKey(*commit.staged_file, commit.version); !name.ok()) {
    return UcErrorFor(
        InvalidArgumentError("field \"" + std::string(file_field) + "\": " + name.message()));
  }
  CommitReply reply = deps_.commits->Commit(commit);
  if (!reply.ok()) return ErrorForReply(reply);
  return std::nullopt;
}

std::optional<UcError> UcCommitter::Backfilled(const UcCommitTarget& target,
                                               Version version) const {
  // The writer says it published up to that version: the publisher checks
  // each file it finds against the ratified commit.
  StatusOr<PendingCommitList> pending = deps_.commits->PendingCommits(target.access.table, 0);
  if (!pending.ok()) return UcErrorFor(pending.status());
  const Version latest = std::max<Version>(pending->latest, 0);
  if (version > latest) {
    return UcErrorFor(
        InvalidArgumentError("Should not backfill version " + std::to_string(version) +
                             " while the last version committed is " + std::to_string(latest)));
  }
  deps_.commits->publisher().Schedule(target.access);
  // Delta sends this after a 429 (having published itself) and retries its
  // commit at once: answer once the publisher has checked and recorded what
  // the writer names, so that the retry finds room.
  const Version through = std::min<Version>(version, latest);
  if (!WaitPublishedThrough(target.access.table, through)) {
    return UcErrorFor(UnavailableError(
        "versions up to " + std::to_string(through) + " of " + target.access.table +
        " are not published yet (the service publishes each after checking it): retry shortly"));
  }
  return std::nullopt;
}

StatusOr<UcPendingCommits> UcCommitter::Pending(const std::string& table) const {
  // PendingCommits answers a latest version never below a commit listed.
  DC_ASSIGN_OR_RETURN(PendingCommitList pending, deps_.commits->PendingCommits(table, 0));
  UcPendingCommits answer;
  answer.latest_version = std::max<Version>(pending.latest, 0);
  for (const CommitRecord& record : pending.commits) answer.commits.push_back(InfoOf(record));
  return answer;
}

bool UcCommitter::WaitPublishedThrough(const std::string& table, Version through) const {
  for (int poll = 0;; ++poll) {
    StatusOr<PendingCommitList> pending = deps_.commits->PendingCommits(table, 0);
    if (pending.ok() && (pending->commits.empty() || pending->commits.front().version > through)) {
      return true;
    }
    if (poll == kPublishPolls) return false;
    std::this_thread::sleep_for(kPublishPoll);
  }
}

Status UcCommitter::ApplyMetadata(const std::string& table_id, std::optional<Version> version,
                                  const std::function<Status(TableEntry&)>& change) const {
  for (int attempt = 0; attempt < kMetadataAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table,
                        deps_.names.catalog->GetTableById(table_id));
    if (!table) return NotFoundError("Table not found: " + table_id);
    if (version && table->metadata_version >= *version) return OkStatus();
    const int64_t read_at = table->updated_at_ms;
    DC_RETURN_IF_ERROR(change(*table));
    if (version) table->metadata_version = *version;
    // Strictly later, so that the compare-and-set sees every change.
    table->updated_at_ms = std::max(deps_.names.clock->NowMillis(), read_at + 1);
    Status updated = deps_.names.catalog->UpdateTable(*table, read_at);
    if (updated.code() != StatusCode::kFailedPrecondition) return updated;
  }
  return UnavailableError("the table's catalog entry changed under each of " +
                          std::to_string(kMetadataAttempts) + " attempts");
}

void UcCommitter::WarnMetadataNotApplied(const std::string& table_id, Version version,
                                         const Status& failure) const {
  if (deps_.logger == nullptr) return;
  deps_.logger->Warn("catalog metadata not updated",
                     {{"table_id", table_id}, {"version", version}, {"error", failure.message()}});
}

}  // namespace deltacommit::service::unity
