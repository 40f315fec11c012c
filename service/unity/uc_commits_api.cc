// The coordinated-commits handlers. Each reads the token first (401), then
// the body (400), then finds the table (404) and checks the token's rights
// on its name and location (403), then commits or lists.
#include "service/unity/uc_commits_api.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/unity/uc_credentials_api.h"
#include "service/unity/uc_json.h"
#include "service/unity/uc_types.h"

namespace deltacommit::service::unity {
namespace {

using Json = nlohmann::ordered_json;
using http::Request;
using http::Response;

constexpr char kCommitsPath[] = "/delta/preview/commits";
// The table property that names a managed table's id (UC and Delta agree).
constexpr char kTableIdProperty[] = "io.unitycatalog.tableId";
// UC's server lists at most this many commits per GET, from the oldest
// asked for; clients ask again from the next version.
constexpr int64_t kCommitsPerPage = 10;

Response Fail(const UcError& error) { return UcRestErrorAnswer(error); }
Response Fail(const Status& status, UcObject object = UcObject::kOther) {
  return Fail(UcErrorFor(status, object));
}

Json CommitInfoJson(const UcCommitInfo& info) {
  return {{"version", info.version},
          {"timestamp", info.timestamp},
          {"file_name", info.file_name},
          {"file_size", info.file_size},
          {"file_modification_timestamp", info.file_modification_timestamp}};
}

}  // namespace

StatusOr<UcCommitInfo> ParseUcCommitInfo(const nlohmann::json& object) {
  return ParseCommitInfo(object, "commit_info", kUcRestCommitFields);
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

Response UcCommitsApi::PostCommit(const Request& request) {
  return WithUcToken(
      *committer_.deps().names.authenticator, request, [&](const TokenConfig& token) {
        StatusOr<UcBody> body = UcBody::Parse(request.body);
        if (!body.ok()) return Fail(body.status());
        StatusOr<std::string> table_id = body->RequiredString("table_id");
        StatusOr<std::string> table_uri = body->RequiredString("table_uri");
        StatusOr<std::optional<int64_t>> backfilled =
            body->OptionalInt("latest_backfilled_version");
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

        StatusOr<UcCommitTarget> target =
            committer_.Find(token, *table_id, Action::kCommit, SentCredentialsOf(request));
        if (!target.ok()) return Fail(target.status(), UcObject::kTable);
        StatusOr<TableUri> sent = NormalizeTableUri(*table_uri);
        if (!sent.ok() || sent->uri != target->access.table) {
          return Fail(InvalidArgumentError("Table URI in commit " + QuoteForMessage(*table_uri) +
                                           " does not match the table path " +
                                           target->access.table));
        }

        if (!info) {
          if (std::optional<UcError> failed = committer_.Backfilled(*target, **backfilled)) {
            return Fail(*failed);
          }
          return Response::Json(200, "{}");
        }
        if (std::optional<UcError> failed =
                committer_.Ratify(*target, *info, "commit_info.file_name")) {
          return Fail(*failed);
        }
        if (metadata) {
          // Also on a replay: the first attempt may have stopped between
          // ratifying and this. An older commit's metadata never overwrites a
          // newer one's (ApplyMetadata compares versions). The commit stands
          // either way, and is answered so: an error would make the writer
          // commit its transaction again as the next version. The Delta log
          // holds the metadata; the catalog's copy then waits for a resend or
          // the next commit that carries metadata.
          Status applied =
              committer_.ApplyMetadata(*table_id, info->version, [&](TableEntry& table) {
                if (metadata->description) table.comment = *metadata->description;
                if (metadata->properties) table.properties = *metadata->properties;
                if (metadata->schema_string) table.columns_json = *metadata->schema_string;
                return OkStatus();
              });
          if (!applied.ok()) committer_.WarnMetadataNotApplied(*table_id, info->version, applied);
        }
        return Response::Json(200, "{}");
      });
}

Response UcCommitsApi::GetCommits(const Request& request) {
  return WithUcToken(
      *committer_.deps().names.authenticator, request, [&](const TokenConfig& token) {
        StatusOr<UcBody> body = UcBody::Parse(request.body);
        if (!body.ok()) {
          return Fail(InvalidArgumentError(body.status().message() +
                                           " (GET /delta/preview/commits takes its arguments in a "
                                           "JSON body: table_id, table_uri, start_version)"));
        }
        StatusOr<std::string> table_id = body->RequiredString("table_id");
        StatusOr<int64_t> start = body->RequiredInt("start_version");
        StatusOr<std::optional<int64_t>> end = body->OptionalInt("end_version");
        if (std::optional<Status> bad =
                FirstError({table_id.status(), start.status(), end.status()}))
          return Fail(*bad);
        if (*start < 0) {
          return Fail(InvalidArgumentError("start_version " + std::to_string(*start) +
                                           " is negative: it must be >= 0"));
        }
        if (*end && **end < *start) {
          return Fail(InvalidArgumentError("end_version must be >=start_version if set"));
        }
        StatusOr<UcCommitTarget> target = committer_.Find(token, *table_id, Action::kRead);
        if (!target.ok()) return Fail(target.status(), UcObject::kTable);
        StatusOr<UcPendingCommits> pending = committer_.Pending(target->access.table);
        if (!pending.ok()) return Fail(pending.status());

        // UC's paging: from the later of start_version and the oldest commit
        // it holds, a page of versions. UC's page (10) is its cap on unpublished
        // commits, and clients do not ask for a second page: ours is at least
        // the cap, so one answer holds every commit a client must see.
        const Version oldest = pending->commits.empty() ? *start : pending->commits.front().version;
        const Version page =
            std::max<Version>(kCommitsPerPage, committer_.deps().max_unpublished_commits);
        const Version first = std::max<Version>(*start, oldest);
        const Version page_end = first > std::numeric_limits<Version>::max() - page
                                     ? std::numeric_limits<Version>::max()
                                     : first + page - 1;
        const Version last = std::min(end->value_or(std::numeric_limits<Version>::max()), page_end);
        Json commits = Json::array();
        for (auto it = pending->commits.rbegin(); it != pending->commits.rend(); ++it) {
          if (it->version >= *start && it->version <= last) commits.push_back(CommitInfoJson(*it));
        }
        Json answer = {{"commits", std::move(commits)},
                       {"latest_table_version", pending->latest_version}};
        return Response::Json(200, DumpJson(answer));
      });
}

}  // namespace deltacommit::service::unity
