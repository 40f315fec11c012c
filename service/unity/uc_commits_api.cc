// The coordinated-commits handlers. Each reads the token first (401), then
// the body (400), then finds the table (404) and checks the token's rights
// on its name and location (403), then commits or lists.
#include "service/unity/uc_commits_api.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"
#include "service/config/catalog_names.h"
#include "service/config/local_tables.h"
#include "service/config/s3_endpoints.h"
#include "service/unity/uc_credentials_api.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;
using http::Request;
using http::Response;

constexpr char kCommitsPath[] = "/delta/preview/commits";
constexpr char kStagedCommitsDir[] = "_delta_log/_staged_commits/";
// The table property that names a managed table's id (UC and Delta agree).
constexpr char kTableIdProperty[] = "io.unitycatalog.tableId";
// UC's server lists at most this many commits per GET, from the oldest
// asked for; clients ask again from the next version.
constexpr int64_t kCommitsPerPage = 10;
// A catalog entry changed by another request between read and write is
// read again; more attempts mean the table's metadata changes under each.
constexpr int kMetadataAttempts = 5;
// How long a backfill report waits for the publisher: 40 x 50 ms.
constexpr int kPublishPolls = 40;
constexpr std::chrono::milliseconds kPublishPoll{50};

Response Fail(const UcError& error) { return UcRestErrorAnswer(error); }
Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return Fail(UcErrorFor(status, object));
}

StatusOr<int64_t> Positive(const nlohmann::json& object, std::string_view field) {
  DC_ASSIGN_OR_RETURN(int64_t value, RequiredInt(object, "commit_info", field));
  if (value <= 0) {
    return InvalidArgumentError("field \"commit_info." + std::string(field) + "\" is " +
                                std::to_string(value) + ": it must be above 0");
  }
  return value;
}

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

Json CommitInfoJson(const CommitRecord& record) {
  const std::string_view file =
      std::string_view(record.staged_file)
          .substr(std::min(record.staged_file.size(), std::string_view(kStagedCommitsDir).size()));
  return {{"version", record.version},
          {"timestamp", record.commit_timestamp_ms},
          {"file_name", file},
          {"file_size", record.size},
          // When the service read and ratified it; UC's clients use it as
          // the staged file's modification time.
          {"file_modification_timestamp", record.ratified_at_ms}};
}

}  // namespace

StatusOr<UcCommitInfo> ParseUcCommitInfo(const nlohmann::json& object) {
  if (!object.is_object()) return InvalidArgumentError("field \"commit_info\" must be an object");
  UcCommitInfo info;
  StatusOr<int64_t> version = Positive(object, "version");
  StatusOr<int64_t> timestamp = Positive(object, "timestamp");
  StatusOr<std::string> file_name = RequiredString(object, "commit_info", "file_name");
  StatusOr<int64_t> file_size = Positive(object, "file_size");
  StatusOr<int64_t> modified = Positive(object, "file_modification_timestamp");
  if (std::optional<Status> bad =
          FirstError({version.status(), timestamp.status(), file_name.status(), file_size.status(),
                      modified.status()}))
    return *bad;
  if (file_name->empty() || *file_name == "." || *file_name == ".." ||
      file_name->find_first_of("/\\") != std::string::npos) {
    return InvalidArgumentError("field \"commit_info.file_name\" " + QuoteForMessage(*file_name) +
                                " must be one file name under _delta_log/_staged_commits/ "
                                "(no '/', '\\', \".\" or \"..\")");
  }
  info.version = *version;
  info.timestamp = *timestamp;
  info.file_name = *std::move(file_name);
  info.file_size = *file_size;
  info.file_modification_timestamp = *modified;
  return info;
}

StatusOr<UcCommitMetadata> ParseUcCommitMetadata(const nlohmann::json& object,
                                                 const std::string& table_id) {
  if (!object.is_object()) return InvalidArgumentError("field \"metadata\" must be an object");
  UcBody body(object);
  UcCommitMetadata metadata;
  DC_ASSIGN_OR_RETURN(metadata.description, body.OptionalString("description"));
  if (const nlohmann::json* properties = body.Find("properties");
      properties != nullptr && !properties->is_null()) {
    if (!properties->is_object()) {
      return InvalidArgumentError("field \"metadata.properties\" must be an object");
    }
    DC_ASSIGN_OR_RETURN(PropertyMap map, UcBody(*properties).Properties("properties"));
    if (!map.empty()) metadata.properties = std::move(map);
  }
  if (const nlohmann::json* schema = body.Find("schema"); schema != nullptr && !schema->is_null()) {
    if (!schema->is_object()) {
      return InvalidArgumentError("field \"metadata.schema\" must be an object");
    }
    auto found = schema->find("columns");
    const nlohmann::json* columns = found == schema->end() ? nullptr : &*found;
    if (columns != nullptr && !columns->is_null()) {
      StatusOr<std::string> schema_string = SchemaStringFromColumnInfos(Json(*columns));
      if (!schema_string.ok()) {
        return InvalidArgumentError("field \"metadata.schema\": " +
                                    schema_string.status().message());
      }
      if (!columns->empty()) metadata.schema_string = *std::move(schema_string);
    }
  }
  if (!metadata.description && !metadata.properties && !metadata.schema_string) {
    return InvalidArgumentError(
        "At least one of description, properties, or schema must be set in commit.metadata");
  }
  if (metadata.properties) {
    auto id = metadata.properties->find(kTableIdProperty);
    if (id == metadata.properties->end()) {
      return InvalidArgumentError(std::string("Properties does not contain ") + kTableIdProperty +
                                  ".");
    }
    if (id->second != table_id) {
      return InvalidArgumentError("the table id (" + table_id + ") does not match the properties " +
                                  kTableIdProperty + "(" + QuoteForMessage(id->second) + ").");
    }
  }
  return metadata;
}

Status UcCommitsApi::AddRoutes(http::Router& router) {
  const std::string path = std::string(kUcRestBase) + kCommitsPath;
  DC_RETURN_IF_ERROR(router.Add("POST", path, [this](const Request& r) { return PostCommit(r); }));
  return router.Add("GET", path, [this](const Request& r) { return GetCommits(r); });
}

StatusOr<UcCommitsApi::Target> UcCommitsApi::FindTarget(const TokenConfig& token,
                                                        const std::string& table_id, Action action,
                                                        UcError* error) const {
  auto refuse = [error](UcError e) {
    *error = e;
    return InvalidArgumentError(e.message);
  };
  if (Status valid = ValidateUuid("table_id", table_id); !valid.ok()) {
    return refuse(UcErrorFor(valid));
  }
  StatusOr<std::optional<TableEntry>> table = deps_.names.catalog->GetTableById(table_id);
  if (!table.ok()) return refuse(UcErrorFor(table.status()));
  if (!*table) {
    return refuse(UcErrorFor(NotFoundError("Table not found: " + table_id), UcObject::kTable));
  }
  if (Status allowed = AuthorizeName(token, (*table)->name.FullName(), action); !allowed.ok()) {
    return refuse(UcErrorFor(allowed));
  }
  if ((*table)->type != TableType::kManaged) {
    return refuse(
        UcErrorFor(InvalidArgumentError("Only managed tables are supported for Delta commits: " +
                                        (*table)->name.FullName() + " is EXTERNAL")));
  }
  StatusOr<TableUri> location = NormalizeTableUri((*table)->storage_location);
  if (!location.ok()) return refuse(UcErrorFor(DataLossError(location.status().message())));
  if (Status allowed = Authorize(token, *location, action); !allowed.ok()) {
    return refuse(UcErrorFor(allowed));
  }
  Target target{**std::move(table), {}};
  target.access.table = location->uri;
  if (!location->is_local()) {
    StatusOr<S3EndpointConfig> endpoint =
        ResolveS3Endpoint(deps_.names.config->s3, location->bucket, "");
    if (!endpoint.ok()) return refuse(UcErrorFor(endpoint.status()));
    target.access.endpoint = {endpoint->name, endpoint->service, endpoint->enforces_if_none_match};
    if (action != Action::kCommit) return target;  // listing reads only the state store
    if (deps_.vendor == nullptr) {
      return refuse(UcErrorFor(UnimplementedError(
          "commits through the Unity Catalog API to tables on S3 (" + location->uri +
          ") need credentials the service vends itself, and this service has no vendor")));
    }
    // A client of this API sends no storage credentials: the service reads
    // the staged commit and publishes as a session it vends itself.
    const VendRequest own_request{*location, VendOperation::kReadWrite,
                                  "uc-commits-" + token.name};
    StatusOr<VendedCredentials> own = deps_.vendor->Vend(own_request);
    if (!own.ok()) {
      return refuse(UcErrorFor(VendFailureForClient(own.status(), own_request, deps_.logger)
                                   .WithContext("commits through the Unity Catalog API to " +
                                                location->uri +
                                                " are read and published with credentials this "
                                                "service vends itself")));
    }
    target.access.credentials = std::move(own->credentials);
    return target;
  }
  if (Status served = CheckLocalTable(deps_.names.config->local, *location); !served.ok()) {
    return refuse(UcErrorFor(served));
  }
  target.access.endpoint = {"local", {}, /*enforces_if_none_match=*/true};
  target.access.local_root = LocalRootOf(deps_.names.config->local, *location).value_or("");
  return target;
}

Response UcCommitsApi::PostCommit(const Request& request) {
  return WithUcToken(*deps_.names.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) return Fail(body.status());
    StatusOr<std::string> table_id = body->RequiredString("table_id");
    StatusOr<std::string> table_uri = body->RequiredString("table_uri");
    StatusOr<std::optional<int64_t>> backfilled = body->OptionalInt("latest_backfilled_version");
    if (std::optional<Status> bad =
            FirstError({table_id.status(), table_uri.status(), backfilled.status()}))
      return Fail(*bad);
    if (table_id->empty() || table_uri->empty()) {
      return Fail(InvalidArgumentError(std::string("Field can not be empty: ") +
                                       (table_id->empty() ? "table_id" : "table_uri")));
    }
    if (const nlohmann::json* uniform = body->Find("uniform");
        uniform != nullptr && !uniform->is_null()) {
      return Fail(InvalidArgumentError(
          "field \"uniform\": UniForm (Iceberg) conversion is not supported by this service"));
    }
    std::optional<UcCommitInfo> info;
    if (const nlohmann::json* object = body->Find("commit_info");
        object != nullptr && !object->is_null()) {
      StatusOr<UcCommitInfo> parsed = ParseUcCommitInfo(*object);
      if (!parsed.ok()) return Fail(parsed.status());
      info = *std::move(parsed);
    }
    const nlohmann::json* metadata_json = body->Find("metadata");
    const bool has_metadata = metadata_json != nullptr && !metadata_json->is_null();
    std::optional<UcCommitMetadata> metadata;
    if (!info) {
      if (!*backfilled) {
        return Fail(InvalidArgumentError(
            "Either commit_info or latest_backfilled_version must be defined"));
      }
      if (has_metadata) {
        return Fail(InvalidArgumentError("metadata shouldn't be set for backfill only commit"));
      }
    } else if (has_metadata) {
      StatusOr<UcCommitMetadata> parsed = ParseUcCommitMetadata(*metadata_json, *table_id);
      if (!parsed.ok()) return Fail(parsed.status());
      metadata = *std::move(parsed);
    }

    UcError error;
    StatusOr<Target> target = FindTarget(token, *table_id, Action::kCommit, &error);
    if (!target.ok()) return Fail(error);
    StatusOr<TableUri> sent = NormalizeTableUri(*table_uri);
    if (!sent.ok() || sent->uri != target->access.table) {
      return Fail(InvalidArgumentError("Table URI in commit " + QuoteForMessage(*table_uri) +
                                       " does not match the table path " + target->access.table));
    }

    if (!info) {
      // The writer says it published up to that version: the publisher
      // checks each file it finds against the ratified commit.
      StatusOr<PendingCommitList> pending = deps_.commits->PendingCommits(target->access.table, 0);
      if (!pending.ok()) return Fail(pending.status());
      const Version latest = std::max<Version>(pending->latest, 0);
      if (**backfilled > latest) {
        return Fail(
            InvalidArgumentError("Should not backfill version " + std::to_string(**backfilled) +
                                 " while the last version committed is " + std::to_string(latest)));
      }
      deps_.commits->publisher().Schedule(target->access);
      // Delta sends this after a 429 (having published itself) and retries
      // its commit at once: answer once the publisher has checked and
      // recorded what the writer names, so that the retry finds room.
      const Version through = std::min<Version>(**backfilled, latest);
      if (!WaitPublishedThrough(target->access.table, through)) {
        return Fail(UcErrorFor(UnavailableError(
            "versions up to " + std::to_string(through) + " of " + target->access.table +
            " are not published yet (the service publishes each after checking it): retry "
            "shortly")));
      }
      return Response::Json(200, "{}");
    }

    CommitRequest commit;
    commit.access = target->access;
    commit.version = info->version;
    commit.staged_file = kStagedCommitsDir + info->file_name;
    commit.staged_size = info->file_size;
    commit.max_unpublished = deps_.max_unpublished_commits;
    if (Status name = ValidateStagedCommitKey(*commit.staged_file, commit.version); !name.ok()) {
      return Fail(InvalidArgumentError("field \"commit_info.file_name\": " + name.message()));
    }
    CommitReply reply = deps_.commits->Commit(commit);
    if (!reply.ok()) return Fail(ErrorForReply(reply));
    if (metadata) {
      // Also on a replay: the first attempt may have stopped between
      // ratifying and this. An older commit's metadata never overwrites a
      // newer one's (ApplyMetadata compares versions). The commit stands
      // either way, and is answered so: an error would make the writer
      // commit its transaction again as the next version. The Delta log
      // holds the metadata; the catalog's copy then waits for a resend or
      // the next commit that carries metadata.
      Status applied = ApplyMetadata(*table_id, info->version, *metadata);
      if (!applied.ok() && deps_.logger != nullptr) {
        deps_.logger->Warn(
            "catalog metadata not updated",
            {{"table_id", *table_id}, {"version", info->version}, {"error", applied.message()}});
      }
    }
    return Response::Json(200, "{}");
  });
}

bool UcCommitsApi::WaitPublishedThrough(const std::string& table, Version through) const {
  for (int poll = 0;; ++poll) {
    StatusOr<PendingCommitList> pending = deps_.commits->PendingCommits(table, 0);
    if (pending.ok() && (pending->commits.empty() || pending->commits.front().version > through)) {
      return true;
    }
    if (poll == kPublishPolls) return false;
    std::this_thread::sleep_for(kPublishPoll);
  }
}

Status UcCommitsApi::ApplyMetadata(const std::string& table_id, Version version,
                                   const UcCommitMetadata& metadata) const {
  for (int attempt = 0; attempt < kMetadataAttempts; ++attempt) {
    DC_ASSIGN_OR_RETURN(std::optional<TableEntry> table,
                        deps_.names.catalog->GetTableById(table_id));
    if (!table) return NotFoundError("Table not found: " + table_id);
    if (table->metadata_version >= version) return OkStatus();
    const int64_t read_at = table->updated_at_ms;
    if (metadata.description) table->comment = *metadata.description;
    if (metadata.properties) table->properties = *metadata.properties;
    if (metadata.schema_string) table->columns_json = *metadata.schema_string;
    table->metadata_version = version;
    // Strictly later, so that the compare-and-set sees every change.
    table->updated_at_ms = std::max(deps_.names.clock->NowMillis(), read_at + 1);
    Status updated = deps_.names.catalog->UpdateTable(*table, read_at);
    if (updated.code() != StatusCode::kFailedPrecondition) return updated;
  }
  return UnavailableError("the table's catalog entry changed under each of " +
                          std::to_string(kMetadataAttempts) + " attempts");
}

Response UcCommitsApi::GetCommits(const Request& request) {
  return WithUcToken(*deps_.names.authenticator, request, [&](const TokenConfig& token) {
    StatusOr<UcBody> body = UcBody::Parse(request.body);
    if (!body.ok()) {
      return Fail(InvalidArgumentError(body.status().message() +
                                       " (GET /delta/preview/commits takes its arguments in a "
                                       "JSON body: table_id, table_uri, start_version)"));
    }
    StatusOr<std::string> table_id = body->RequiredString("table_id");
    StatusOr<int64_t> start = body->RequiredInt("start_version");
    StatusOr<std::optional<int64_t>> end = body->OptionalInt("end_version");
    if (std::optional<Status> bad = FirstError({table_id.status(), start.status(), end.status()}))
      return Fail(*bad);
    if (*start < 0) {
      return Fail(InvalidArgumentError("start_version " + std::to_string(*start) +
                                       " is negative: it must be >= 0"));
    }
    if (*end && **end < *start) {
      return Fail(InvalidArgumentError("end_version must be >=start_version if set"));
    }
    UcError error;
    StatusOr<Target> target = FindTarget(token, *table_id, Action::kRead, &error);
    if (!target.ok()) return Fail(error);
    StatusOr<PendingCommitList> pending = deps_.commits->PendingCommits(target->access.table, 0);
    if (!pending.ok()) return Fail(pending.status());

    // UC's paging: from the later of start_version and the oldest commit
    // it holds, a page of versions. UC's page (10) is its cap on unpublished
    // commits, and clients do not ask for a second page: ours is at least
    // the cap, so one answer holds every commit a client must see.
    const Version oldest = pending->commits.empty() ? *start : pending->commits.front().version;
    const Version page = std::max<Version>(kCommitsPerPage, deps_.max_unpublished_commits);
    const Version first = std::max<Version>(*start, oldest);
    const Version page_end = first > std::numeric_limits<Version>::max() - page
                                 ? std::numeric_limits<Version>::max()
                                 : first + page - 1;
    const Version last = std::min(end->value_or(std::numeric_limits<Version>::max()), page_end);
    Json commits = Json::array();
    for (auto it = pending->commits.rbegin(); it != pending->commits.rend(); ++it) {
      if (it->version >= *start && it->version <= last) commits.push_back(CommitInfoJson(*it));
    }
    // A managed table's version 0 is written by its creator: with nothing
    // ratified, the latest version is 0. The listing is read after the
    // latest version: a commit ratified in between is in it, and the
    // latest version is never below a commit listed (readers require it).
    Version latest = std::max<Version>(pending->latest, 0);
    if (!pending->commits.empty()) latest = std::max(latest, pending->commits.back().version);
    Json answer = {{"commits", std::move(commits)}, {"latest_table_version", latest}};
    return Response::Json(200, DumpJson(answer));
  });
}

}  // namespace deltacommit::service::unity
