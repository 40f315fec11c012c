#include "deltacommit/service_wire/answers.h"

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/core/message_quote.h"
#include "deltacommit/log_path.h"

namespace deltacommit::service_wire {
namespace {

using nlohmann::json;

std::string Dump(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

json ParseLeniently(std::string_view body) {
  return json::parse(body, nullptr, /*allow_exceptions=*/false);
}

Status Malformed(std::string_view what, std::string_view body) {
  return InternalError("the service's answer is malformed (" + std::string(what) + "): \"" +
                       Excerpt(body) + "\"");
}

bool IsInteger(const json& object, const char* name) {
  return object.contains(name) && object[name].is_number_integer();
}

bool IsString(const json& object, const char* name) {
  return object.contains(name) && object[name].is_string();
}

StatusOr<PendingCommit> ParsePendingCommit(const json& c, std::string_view body) {
  if (!c.is_object() || !IsInteger(c, "version") || !IsString(c, "staged_file")) {
    return Malformed("a commit without an integer version and a staged_file", body);
  }
  PendingCommit commit;
  commit.version = c["version"].get<Version>();
  commit.staged_file = c["staged_file"].get<std::string>();
  if (IsInteger(c, "size")) commit.size = c["size"].get<int64_t>();
  if (IsInteger(c, "commit_timestamp")) {
    commit.commit_timestamp_ms = c["commit_timestamp"].get<int64_t>();
  }
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

}  // namespace

std::string SerializeCommitAnswer(const CommitAnswer& answer) {
  json body = {{"version", answer.version}, {"published", answer.published}};
  if (answer.merged > 0) body["merged"] = answer.merged;
  if (answer.duplicate) body["duplicate"] = true;
  if (answer.in_commit_timestamp) body["in_commit_timestamp"] = *answer.in_commit_timestamp;
  return Dump(body);
}

StatusOr<CommitAnswer> ParseCommitAnswer(std::string_view body) {
  json j = ParseLeniently(body);
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
  if (j.contains("in_commit_timestamp")) {
    if (!IsInteger(j, "in_commit_timestamp")) {
      return Malformed("\"in_commit_timestamp\" is not an integer", body);
    }
    answer.in_commit_timestamp = j["in_commit_timestamp"].get<int64_t>();
  }
  return answer;
}

std::string SerializeErrorBody(const ErrorBody& error) {
  json body = {{"code", error.code}, {"message", error.message}};
  if (error.latest_version) body["latest_version"] = *error.latest_version;
  if (!error.reason.empty()) body["reason"] = error.reason;
  // Messages quote client input, which need not be valid UTF-8.
  return Dump(json{{"error", std::move(body)}});
}

ErrorBody ParseErrorBody(std::string_view body) {
  ErrorBody out;
  json parsed = ParseLeniently(body);
  const json* error = nullptr;
  if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_object()) {
    error = &parsed["error"];
  }
  // An empty code names nothing: not an answer of the API either.
  if (error == nullptr || !IsString(*error, "code") ||
      (*error)["code"].get_ref<const std::string&>().empty()) {
    out.message = body.empty() ? "(no body)"
                               : "not the API's error body: \"" + Excerpt(body) + "\"";
    return out;
  }
  out.code = Excerpt((*error)["code"].get<std::string>(), 64);
  if (IsString(*error, "message")) {
    out.message = Excerpt((*error)["message"].get<std::string>(), 2000);
  }
  if (IsInteger(*error, "latest_version")) {
    out.latest_version = (*error)["latest_version"].get<Version>();
  }
  if (IsString(*error, "reason")) out.reason = Excerpt((*error)["reason"].get<std::string>(), 64);
  return out;
}

std::string SerializePendingCommits(const PendingCommitsAnswer& answer) {
  json commits = json::array();
  for (const PendingCommit& commit : answer.pending.commits) {
    commits.push_back({{"version", commit.version},
                       {"staged_file", commit.staged_file},
                       {"size", commit.size},
                       {"commit_timestamp", commit.commit_timestamp_ms}});
  }
  return Dump({{"table", answer.table},
               {"latest_version", answer.pending.latest_version},
               {"commits", std::move(commits)}});
}

StatusOr<PendingCommitsAnswer> ParsePendingCommits(std::string_view body, Version start) {
  json j = ParseLeniently(body);
  if (!j.is_object() || !IsInteger(j, "latest_version") || !j.contains("commits") ||
      !j["commits"].is_array()) {
    return Malformed("expected an integer latest_version and a commits array", body);
  }
  PendingCommitsAnswer out;
  if (IsString(j, "table")) out.table = j["table"].get<std::string>();
  std::vector<PendingCommit>& commits = out.pending.commits;
  out.pending.latest_version = j["latest_version"].get<Version>();
  if (out.pending.latest_version < -1) return Malformed("latest_version below -1", body);
  for (const json& c : j["commits"]) {
    DC_ASSIGN_OR_RETURN(PendingCommit commit, ParsePendingCommit(c, body));
    // Ascending, each above the one before (compared, never incremented: a
    // version may be the largest int64).
    const bool in_order =
        commits.empty() ? commit.version >= start : commit.version > commits.back().version;
    if (!in_order || commit.version > out.pending.latest_version) {
      return Malformed("commit version " + std::to_string(commit.version) +
                           " out of order or outside start " + std::to_string(start) +
                           "..latest_version",
                       body);
    }
    commits.push_back(std::move(commit));
  }
  return out;
}

std::string SerializeHealthAnswer(const HealthAnswer& answer) {
  json body = {{"status", answer.status}};
  if (!answer.reason.empty()) body["reason"] = answer.reason;
  return Dump(body);
}

HealthAnswer ParseHealthAnswer(std::string_view body) {
  HealthAnswer out;
  const json parsed = ParseLeniently(body);
  if (!parsed.is_object()) return out;
  // json::value() would throw on a field of another type.
  if (IsString(parsed, "status")) out.status = parsed["status"].get<std::string>();
  if (IsString(parsed, "reason")) out.reason = parsed["reason"].get<std::string>();
  return out;
}

}  // namespace deltacommit::service_wire
