#include "deltacommit/unity_client/delta_rest_catalog_client.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <utility>

#include "deltacommit/aws/sigv4.h"
#include "deltacommit/core/http_url.h"
#include "deltacommit/service_wire/sent_credentials.h"

namespace deltacommit::unity_client {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kUcRestBase = "/api/2.1/unity-catalog";

// The error's message and type from the Delta API's error shape
// ({"error": {"message", "type", "code"}}), else the body's start.
struct CatalogError {
  std::string type;
  std::string message;
};

CatalogError ParseError(const aws::HttpResponse& response) {
  CatalogError error;
  const Json body = Json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    const Json& e = body["error"];
    if (e.contains("type") && e["type"].is_string()) error.type = e["type"].get<std::string>();
    if (e.contains("message") && e["message"].is_string()) {
      error.message = e["message"].get<std::string>();
    }
  }
  if (error.message.empty()) error.message = response.body.substr(0, 300);
  return error;
}

Status AnswerStatus(const aws::HttpResponse& response, const std::string& context, bool commit) {
  const CatalogError error = ParseError(response);
  std::string message = context + ": HTTP " + std::to_string(response.status);
  if (!error.type.empty()) message += " " + error.type;
  message += ": " + error.message;
  switch (response.status) {
    case 400:
      return InvalidArgumentError(message);
    case 401:
      return UnauthenticatedError(message + " (is --catalog-token right?)");
    case 403:
      return PermissionDeniedError(message);
    case 404:
      return NotFoundError(message);
    case 409:
      if (commit && error.type != "UpdateRequirementConflictException") {
        return AlreadyExistsError(message);
      }
      return FailedPreconditionError(message);
    case 429:
    case 503:
      return UnavailableError(message + " (nothing was done; try again later)");
    case 500:
    case 502:
    case 504:
      if (commit) {
        return UnknownOutcomeError(message +
                                   "; the commit may have been ratified: read the table back, or "
                                   "resend the same commit");
      }
      return UnavailableError(message);
    default:
      return InternalError(message);
  }
}

StatusOr<Json> ParseBody(std::string_view body, const std::string& context) {
  Json json = Json::parse(body, nullptr, false);
  if (!json.is_object()) {
    return InternalError(context +
                         ": the answer is not a JSON object; is --catalog-url a "
                         "Unity Catalog (Delta REST API) server?");
  }
  return json;
}

StatusOr<int64_t> Int(const Json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return InternalError(where + ": field \"" + key + "\" is missing or not an integer");
  }
  return it->get<int64_t>();
}

StatusOr<std::string> String(const Json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) {
    return InternalError(where + ": field \"" + key + "\" is missing or not a string");
  }
  return it->get<std::string>();
}

StatusOr<PendingCommit> ParseCommit(const Json& c, const std::string& where) {
  if (!c.is_object()) return InternalError(where + ": a commit is not an object");
  PendingCommit commit;
  DC_ASSIGN_OR_RETURN(commit.version, Int(c, "version", where));
  DC_ASSIGN_OR_RETURN(std::string file_name, String(c, "file-name", where));
  if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "..") {
    return InternalError(where + ": commit " + std::to_string(commit.version) + " names file \"" +
                         file_name.substr(0, 128) + "\", not a staged commit's name");
  }
  commit.staged_file = "_delta_log/_staged_commits/" + file_name;
  DC_ASSIGN_OR_RETURN(commit.size, Int(c, "file-size", where));
  DC_ASSIGN_OR_RETURN(commit.commit_timestamp_ms, Int(c, "timestamp", where));
  return commit;
}

}  // namespace

std::string NormalizeLocation(std::string_view location) {
  if (location.starts_with("file:") && !location.starts_with("file://")) {
    std::string_view path = location.substr(5);
    while (path.starts_with("//")) path.remove_prefix(1);
    return "file://" + std::string(path);
  }
  std::string out(location);
  while (out.size() > 1 && out.back() == '/' && !out.ends_with("://")) out.pop_back();
  return out;
}

StatusOr<CatalogTable> ParseLoadTableAnswer(std::string_view body, const std::string& context) {
  DC_ASSIGN_OR_RETURN(Json answer, ParseBody(body, context));
  auto metadata = answer.find("metadata");
  if (metadata == answer.end() || !metadata->is_object()) {
    return InternalError(context + ": the answer has no \"metadata\" object");
  }
  CatalogTable table;
  DC_ASSIGN_OR_RETURN(table.table_id, String(*metadata, "table-uuid", context + ": metadata"));
  DC_ASSIGN_OR_RETURN(std::string location, String(*metadata, "location", context + ": metadata"));
  table.location = NormalizeLocation(location);
  DC_ASSIGN_OR_RETURN(std::string type, String(*metadata, "table-type", context + ": metadata"));
  table.managed = type == "MANAGED";
  table.commits.latest_version = -1;
  if (auto latest = answer.find("latest-table-version");
      latest != answer.end() && !latest->is_null()) {
    DC_ASSIGN_OR_RETURN(table.commits.latest_version, Int(answer, "latest-table-version", context));
  }
  if (auto commits = answer.find("commits"); commits != answer.end() && !commits->is_null()) {
    if (!commits->is_array()) return InternalError(context + ": \"commits\" is not an array");
    for (const Json& c : *commits) {
      DC_ASSIGN_OR_RETURN(PendingCommit commit, ParseCommit(c, context + ": commits"));
      table.commits.commits.push_back(std::move(commit));
    }
  }
  // The API lists them newest first; the port's order is ascending.
  std::sort(table.commits.commits.begin(), table.commits.commits.end(),
            [](const PendingCommit& a, const PendingCommit& b) { return a.version < b.version; });
  for (size_t i = 1; i < table.commits.commits.size(); ++i) {
    if (table.commits.commits[i].version != table.commits.commits[i - 1].version + 1) {
      return InternalError(context + ": the catalog's commits are not contiguous (" +
                           std::to_string(table.commits.commits[i - 1].version) + " then " +
                           std::to_string(table.commits.commits[i].version) + ")");
    }
  }
  if (!table.commits.commits.empty() &&
      table.commits.commits.back().version > table.commits.latest_version) {
    return InternalError(
        context + ": commit " + std::to_string(table.commits.commits.back().version) +
        " is above latest-table-version " + std::to_string(table.commits.latest_version));
  }
  return table;
}

StatusOr<VendedCredentials> ParseCredentialsAnswer(std::string_view body, std::string_view location,
                                                   const std::string& context) {
  DC_ASSIGN_OR_RETURN(Json answer, ParseBody(body, context));
  auto list = answer.find("storage-credentials");
  if (list == answer.end() || !list->is_array()) {
    return InternalError(context + ": the answer has no \"storage-credentials\" list");
  }
  const std::string root = std::string(location) + "/";
  const Json* best = nullptr;
  size_t best_length = 0;
  for (const Json& credential : *list) {
    if (!credential.is_object()) continue;
    DC_ASSIGN_OR_RETURN(std::string prefix, String(credential, "prefix", context));
    prefix = NormalizeLocation(prefix);
    const std::string with_slash = prefix.ends_with("/") ? prefix : prefix + "/";
    if (root.starts_with(with_slash) && with_slash.size() >= best_length) {
      best = &credential;
      best_length = with_slash.size();
    }
  }
  if (best == nullptr) {
    return InternalError(context + ": no credential's prefix covers " + std::string(location));
  }
  VendedCredentials out;
  auto config = best->find("config");
  if (config != best->end() && config->is_object()) {
    auto get = [&](const char* key) {
      auto it = config->find(key);
      return it != config->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    out.access_key_id = get("s3.access-key-id");
    out.secret_access_key = get("s3.secret-access-key");
    out.session_token = get("s3.session-token");
  }
  if (auto expiry = best->find("expiration-time-ms");
      expiry != best->end() && expiry->is_number_integer() && expiry->get<int64_t>() > 0) {
    out.expiration_ms = expiry->get<int64_t>();
  }
  return out;
}

StatusOr<CatalogStagingTable> ParseStagingTableAnswer(std::string_view body,
                                                      const std::string& context) {
  DC_ASSIGN_OR_RETURN(Json answer, ParseBody(body, context));
  CatalogStagingTable staging;
  DC_ASSIGN_OR_RETURN(staging.table_id, String(answer, "table-id", context));
  DC_ASSIGN_OR_RETURN(std::string location, String(answer, "location", context));
  staging.location = NormalizeLocation(location);
  if (answer.contains("storage-credentials")) {
    DC_ASSIGN_OR_RETURN(staging.credentials,
                        ParseCredentialsAnswer(body, staging.location, context));
  }
  auto features = [&](const Json& protocol, const char* key,
                      std::vector<std::string>& out) -> Status {
    auto list = protocol.find(key);
    if (list == protocol.end() || list->is_null()) return OkStatus();
    if (!list->is_array()) return InternalError(context + ": \"" + key + "\" is not a list");
    for (const Json& f : *list) {
      if (!f.is_string()) return InternalError(context + ": \"" + key + "\" holds a non-string");
      out.push_back(f.get<std::string>());
    }
    return OkStatus();
  };
  if (auto protocol = answer.find("required-protocol");
      protocol != answer.end() && protocol->is_object()) {
    DC_RETURN_IF_ERROR(features(*protocol, "reader-features", staging.required_reader_features));
    DC_RETURN_IF_ERROR(features(*protocol, "writer-features", staging.required_writer_features));
  }
  if (auto properties = answer.find("required-properties");
      properties != answer.end() && properties->is_object()) {
    for (const auto& [key, value] : properties->items()) {
      if (!value.is_string()) {
        return InternalError(context + ": required property \"" + key + "\" is not a string");
      }
      staging.required_properties[key] = value.get<std::string>();
    }
  }
  return staging;
}

StatusOr<std::unique_ptr<DeltaRestCatalogClient>> DeltaRestCatalogClient::Create(
    DeltaRestCatalogOptions options, aws::HttpClient& http, Sleeper& sleeper) {
  DC_ASSIGN_OR_RETURN(std::string url,
                      NormalizeHttpUrl(options.url, "--catalog-url", "--catalog-token"));
  if (options.token.empty()) {
    return InvalidArgumentError(
        "--catalog-token: empty (the catalog's bearer token; else DELTACOMMIT_CATALOG_TOKEN)");
  }
  if (!url.ends_with(kUcRestBase)) url += kUcRestBase;
  options.url = url.substr(0, url.size() - kUcRestBase.size());
  return std::unique_ptr<DeltaRestCatalogClient>(
      new DeltaRestCatalogClient(std::move(options), url + "/delta/v1", http, sleeper));
}

DeltaRestCatalogClient::DeltaRestCatalogClient(DeltaRestCatalogOptions options,
                                               std::string api_base, aws::HttpClient& http,
                                               Sleeper& sleeper)
    : options_(std::move(options)),
      api_base_(std::move(api_base)),
      http_(http),
      sleeper_(sleeper) {}

std::string DeltaRestCatalogClient::Describe() const { return "catalog " + options_.url; }

std::string DeltaRestCatalogClient::TableUrl(const CatalogTableName& name) const {
  return TablesUrl(name) + "/" + aws::UriEncode(name.table, true);
}

std::string DeltaRestCatalogClient::TablesUrl(const CatalogTableName& name) const {
  return api_base_ + "/catalogs/" + aws::UriEncode(name.catalog, true) + "/schemas/" +
         aws::UriEncode(name.schema, true) + "/tables";
}

StatusOr<aws::HttpResponse> DeltaRestCatalogClient::Send(const std::string& method,
                                                         const std::string& url, std::string body,
                                                         bool replayable, bool with_credentials) {
  aws::HttpRequest request;
  request.method = method;
  request.url = url;
  request.headers = {{"Authorization", "Bearer " + options_.token}, {"Accept", "application/json"}};
  if (with_credentials && options_.send_credentials != nullptr) {
    StatusOr<aws::Credentials> own = options_.send_credentials->GetCredentials();
    if (!own.ok()) {
      return own.status().WithContext("the writer's own credentials, to send to the catalog");
    }
    DC_ASSIGN_OR_RETURN(aws::HttpHeaders sent, service_wire::SentCredentialHeaders(*own));
    request.headers.insert(request.headers.end(), sent.begin(), sent.end());
  }
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  request.body = std::move(body);
  thread_local std::mt19937_64 random(std::random_device{}());
  return aws::SendWithRetry(
      http_, [&]() -> StatusOr<aws::HttpRequest> { return request; }, replayable, options_.retry,
      sleeper_, random, replayable ? aws::IsTransientResponse : aws::IsRejectedBeforeApplied);
}

StatusOr<CatalogTable> DeltaRestCatalogClient::LoadTable(const CatalogTableName& name) {
  const std::string context = Describe() + ": load table " + name.FullName();
  StatusOr<aws::HttpResponse> response = Send("GET", TableUrl(name), "");
  if (!response.ok()) return response.status().WithContext(context);
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/false);
  return ParseLoadTableAnswer(response->body, context);
}

StatusOr<VendedCredentials> DeltaRestCatalogClient::TableCredentials(const CatalogTableName& name,
                                                                     std::string_view location,
                                                                     CatalogAccess access) {
  const char* operation = access == CatalogAccess::kRead ? "READ" : "READ_WRITE";
  const std::string context =
      Describe() + ": " + operation + " credentials for table " + name.FullName();
  StatusOr<aws::HttpResponse> response =
      Send("GET", TableUrl(name) + "/credentials?operation=" + operation, "",
           /*replayable=*/true, /*with_credentials=*/true);
  if (!response.ok()) return response.status().WithContext(context);
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/false);
  return ParseCredentialsAnswer(response->body, NormalizeLocation(location), context);
}

Status DeltaRestCatalogClient::Commit(const CatalogTableName& name, const std::string& table_id,
                                      const CatalogCommit& commit,
                                      std::optional<Version> backfilled) {
  const std::string context = Describe() + ": commit of version " + std::to_string(commit.version) +
                              " of table " + name.FullName();
  const std::string prefix = "_delta_log/_staged_commits/";
  if (!commit.staged_file.starts_with(prefix)) {
    return InvalidArgumentError(context + ": \"" + commit.staged_file +
                                "\" is not a staged commit");
  }
  Json updates = Json::array();
  updates.push_back({{"action", "add-commit"},
                     {"commit",
                      {{"version", commit.version},
                       {"timestamp", commit.timestamp_ms},
                       {"file-name", commit.staged_file.substr(prefix.size())},
                       {"file-size", commit.size},
                       {"file-modification-timestamp", commit.modification_ms}}}});
  if (backfilled) {
    updates.push_back(
        {{"action", "set-latest-backfilled-version"}, {"latest-published-version", *backfilled}});
  }
  const Json body = {
      {"requirements", Json::array({{{"type", "assert-table-uuid"}, {"uuid", table_id}}})},
      {"updates", std::move(updates)}};
  StatusOr<aws::HttpResponse> response =
      Send("POST", TableUrl(name), body.dump(), /*replayable=*/true, /*with_credentials=*/true);
  if (!response.ok()) {
    if (response.status().IsUnknownOutcome()) {
      return UnknownOutcomeError(context + ": " + response.status().message() +
                                 "; the commit may have been ratified: read the table back, or "
                                 "resend the same commit");
    }
    return response.status().WithContext(context);
  }
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/true);
  return OkStatus();
}

StatusOr<CatalogStagingTable> DeltaRestCatalogClient::CreateStagingTable(
    const CatalogTableName& name) {
  const std::string context = Describe() + ": staging table for " + name.FullName();
  const std::string url = api_base_ + "/catalogs/" + aws::UriEncode(name.catalog, true) +
                          "/schemas/" + aws::UriEncode(name.schema, true) + "/staging-tables";
  StatusOr<aws::HttpResponse> response =
      Send("POST", url, Json{{"name", name.table}}.dump(), /*replayable=*/false,
           /*with_credentials=*/true);
  if (!response.ok()) return response.status().WithContext(context);
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/false);
  return ParseStagingTableAnswer(response->body, context);
}

StatusOr<VendedCredentials> DeltaRestCatalogClient::StagingTableCredentials(
    const std::string& table_id) {
  const std::string context = Describe() + ": credentials for staging table " + table_id;
  StatusOr<aws::HttpResponse> response =
      Send("GET", api_base_ + "/staging-tables/" + aws::UriEncode(table_id, true) + "/credentials",
           "", /*replayable=*/true, /*with_credentials=*/true);
  if (!response.ok()) return response.status().WithContext(context);
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/false);
  DC_ASSIGN_OR_RETURN(Json answer, ParseBody(response->body, context));
  auto list = answer.find("storage-credentials");
  if (list == answer.end() || !list->is_array() || list->empty() || !(*list)[0].is_object() ||
      !(*list)[0].contains("prefix") || !(*list)[0]["prefix"].is_string()) {
    return InternalError(context + ": the answer has no \"storage-credentials\" with a prefix");
  }
  // One credential, for the staging table's own location.
  std::string prefix = NormalizeLocation((*list)[0]["prefix"].get<std::string>());
  return ParseCredentialsAnswer(response->body, prefix, context);
}

Status DeltaRestCatalogClient::CreateTable(const CatalogTableName& name,
                                           const CatalogNewTable& table) {
  const std::string context = Describe() + ": create table " + name.FullName();
  Json columns = Json::parse(table.metadata.schema_string, nullptr, false);
  if (!columns.is_object()) {
    return InvalidArgumentError(context + ": the table's schema is not a JSON object");
  }
  Json protocol = {{"min-reader-version", table.protocol.min_reader_version},
                   {"min-writer-version", table.protocol.min_writer_version}};
  if (table.protocol.reader_features) protocol["reader-features"] = *table.protocol.reader_features;
  if (table.protocol.writer_features) protocol["writer-features"] = *table.protocol.writer_features;
  Json body = {{"name", name.table},
               {"location", table.location},
               {"table-type", "MANAGED"},
               {"columns", std::move(columns)},
               {"partition-columns", table.metadata.partition_columns},
               {"protocol", std::move(protocol)},
               {"properties", table.metadata.configuration},
               {"last-commit-timestamp-ms", table.commit_timestamp_ms}};
  if (table.metadata.description) body["comment"] = *table.metadata.description;
  StatusOr<aws::HttpResponse> response =
      Send("POST", TablesUrl(name), body.dump(), /*replayable=*/false);
  if (!response.ok()) {
    if (response.status().IsUnknownOutcome()) {
      return UnknownOutcomeError(context + ": " + response.status().message() +
                                 "; the table may have been registered: load it to see");
    }
    return response.status().WithContext(context);
  }
  if (response->status != 200) return AnswerStatus(*response, context, /*commit=*/false);
  return OkStatus();
}

}  // namespace deltacommit::unity_client
