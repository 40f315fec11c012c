#include "deltacommit/service_client/service_json.h"

#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/log_path.h"
#include "deltacommit/service_client/service_reply.h"

namespace deltacommit::service_client {
namespace {

using nlohmann::json;

Status Malformed(std::string_view what, std::string_view body) {
  return InternalError("the service's answer is malformed (" + std::string(what) + "): \"" +
                       Excerpt(body) + "\"");
}

bool IsInteger(const json& object, const char* name) {
  return object.contains(name) && object[name].is_number_integer();
}

StatusOr<PendingCommit> ParsePendingCommit(const json& c, std::string_view body) {
  if (!c.is_object() || !IsInteger(c, "version") || !c.contains("staged_file") ||
      !c["staged_file"].is_string()) {
    return Malformed("a commit without an integer version and a staged_file", body);
  }
  PendingCommit commit;
  commit.version = c["version"].get<Version>();
  commit.staged_file = c["staged_file"].get<std::string>();
  if (IsInteger(c, "size")) commit.size = c["size"].get<int64_t>();
  if (IsInteger(c, "commit_timestamp")) commit.commit_timestamp_ms = c["commit_timestamp"].get<int64_t>();
  std::string_view key = commit.staged_file;
  ParsedLogPath parsed;
  if (key.starts_with(kLogDir)) parsed = ParseLogPath(key.substr(kLogDir.size()));
  if (parsed.type != LogFileType::kStagedCommit || parsed.version != commit.version) {
    return Malformed("staged_file of version " + std::to_string(commit.version) +
                         " is not _delta_log/_staged_commits/<that version>.<uuid>.json",
                     body);
  }
  return commit;
}

bool HasTxn(std::string_view actions) {
  ActionParser parser;
  StatusOr<std::vector<Action>> parsed = parser.ParseCommit(actions);
  if (!parsed.ok()) return false;
  for (const Action& a : *parsed) {
    if (std::holds_alternative<SetTransaction>(a)) return true;
  }
  return false;
}

Status ValidateAppend(const ServiceCommitRequest& r) {
  if (r.version >= 0 || r.read_version < 0 || r.actions.empty() || !r.staged_file.empty()) {
    return InvalidArgumentError(
        "commit service append: needs no version, a read version >= 0 and inline actions");
  }
  // Without a txn, a resent append (after a lost reply) would land twice.
  if (!HasTxn(r.actions)) {
    return InvalidArgumentError("commit service append: the actions need a txn");
  }
  return OkStatus();
}

}  // namespace

Status ValidateCommitRequest(const ServiceCommitRequest& r) {
  if (r.table.empty()) return InvalidArgumentError("commit service request: no table");
  if (r.append) return ValidateAppend(r);
  if (r.version < 0) {
    return InvalidArgumentError("commit service request: negative version " +
                                std::to_string(r.version));
  }
  if (r.actions.empty() == r.staged_file.empty()) {
    return InvalidArgumentError(
        "commit service request: give exactly one of the actions and a staged file");
  }
  return OkStatus();
}

std::string CommitRequestBody(const ServiceCommitRequest& request,
                              const aws::Credentials* credentials, std::string_view endpoint) {
  json body = {{"table", request.table}};
  if (credentials != nullptr) {
    json creds = {{"access_key_id", credentials->access_key_id},
                  {"secret_access_key", credentials->secret_access_key}};
    if (!credentials->session_token.empty()) creds["session_token"] = credentials->session_token;
    if (credentials->expiration_ms) {
      creds["expiration"] = aws::internal::FormatUtc(*credentials->expiration_ms);
    }
    body["credentials"] = std::move(creds);
  }
  if (request.append) {
    body["append"] = true;
    body["read_version"] = request.read_version;
  } else {
    body["version"] = request.version;
  }
  if (!request.actions.empty()) {
    body["actions"] = request.actions;
  } else {
    body["staged_file"] = request.staged_file;
  }
  if (!endpoint.empty()) body["endpoint"] = endpoint;
  // A commit's content need not be valid UTF-8 to the byte; replace rather
  // than throw (the service then refuses it as malformed).
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

StatusOr<CommitAnswer> ParseCommitAnswer(std::string_view body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !IsInteger(j, "version")) {
    return Malformed("no integer \"version\"", body);
  }
  CommitAnswer answer;
  answer.version = j["version"].get<Version>();
  if (j.contains("published")) {
    if (!j["published"].is_boolean()) return Malformed("\"published\" is not a boolean", body);
    answer.published = j["published"].get<bool>();
  }
  if (j.contains("merged")) {
    if (!IsInteger(j, "merged")) return Malformed("\"merged\" is not an integer", body);
    answer.merged = j["merged"].get<int64_t>();
  }
  if (j.contains("duplicate")) {
    if (!j["duplicate"].is_boolean()) return Malformed("\"duplicate\" is not a boolean", body);
    answer.duplicate = j["duplicate"].get<bool>();
  }
  return answer;
}

StatusOr<PendingCommits> ParsePendingCommits(std::string_view body, Version start) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !IsInteger(j, "latest_version") || !j.contains("commits") ||
      !j["commits"].is_array()) {
    return Malformed("expected an integer latest_version and a commits array", body);
  }
  PendingCommits out;
  out.latest_version = j["latest_version"].get<Version>();
  if (out.latest_version < -1) return Malformed("latest_version below -1", body);
  for (const json& c : j["commits"]) {
    DC_ASSIGN_OR_RETURN(PendingCommit commit, ParsePendingCommit(c, body));
    // Ascending, each above the one before (compared, never incremented: a
    // version may be the largest int64).
    const bool in_order = out.commits.empty() ? commit.version >= start
                                              : commit.version > out.commits.back().version;
    if (!in_order || commit.version > out.latest_version) {
      return Malformed("commit version " + std::to_string(commit.version) +
                           " out of order or outside start " + std::to_string(start) +
                           "..latest_version",
                       body);
    }
    out.commits.push_back(std::move(commit));
  }
  return out;
}

}  // namespace deltacommit::service_client
