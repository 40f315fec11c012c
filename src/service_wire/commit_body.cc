#include "deltacommit/service_wire/commit_body.h"

#include <limits>
#include <set>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/core/message_quote.h"
#include "deltacommit/service_wire/json_body.h"

namespace deltacommit::service_wire {
namespace {

using nlohmann::json;

// Deeper than a commit body ever nests.
constexpr int kMaxDepth = 4;

constexpr std::string_view kTopFields =
    "table, version, actions or staged_file, credentials, endpoint; append and read_version "
    "for an append";
constexpr std::string_view kCredentialFields =
    "access_key_id, secret_access_key, session_token, expiration";

Status UnknownField(std::string_view where, const std::string& key, std::string_view known) {
  return InvalidArgumentError("unknown field " + std::string(where) + QuoteForMessage(key, 64) +
                              " (" + (where.empty() ? "a commit takes: " : "credentials take: ") +
                              std::string(known) + ")");
}

Status ReadString(const json& value, std::string_view field, std::string& out) {
  if (!value.is_string()) return WrongType(field, "a string", value);
  out = value.get<std::string>();
  return OkStatus();
}

Status ReadVersion(const json& value, std::string_view field, Version& out) {
  const std::string name(field);
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<Version>::max())) {
      return InvalidArgumentError("field \"" + name + "\" is too large");
    }
  } else if (!value.is_number_integer()) {
    return WrongType(field, "an integer", value);
  }
  out = value.get<Version>();
  if (out < 0) {
    return InvalidArgumentError("field \"" + name + "\" is " + std::to_string(out) +
                                "; versions start at 0");
  }
  return OkStatus();
}

Status ReadBool(const json& value, std::string_view field, bool& out) {
  if (!value.is_boolean()) return WrongType(field, "true or false", value);
  out = value.get<bool>();
  return OkStatus();
}

Status ReadCredentials(const json& value, std::optional<RequestCredentials>& out) {
  if (!value.is_object()) return WrongType("credentials", "an object", value);
  RequestCredentials& c = out.emplace();
  for (const auto& [key, field] : value.items()) {
    const std::string name = "credentials." + key;
    if (key == "access_key_id") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.access_key_id));
    } else if (key == "secret_access_key") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.secret_access_key));
    } else if (key == "session_token") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.session_token));
    } else if (key == "expiration") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.expiration.emplace()));
    } else {
      return UnknownField("credentials.", key, kCredentialFields);
    }
  }
  return OkStatus();
}

Status ReadField(const std::string& key, const json& value, CommitBody& out) {
  if (key == "table") return ReadString(value, key, out.table);
  if (key == "version") return ReadVersion(value, key, out.version);
  if (key == "read_version") return ReadVersion(value, key, out.read_version);
  if (key == "append") return ReadBool(value, key, out.append);
  if (key == "actions") return ReadString(value, key, out.actions.emplace());
  if (key == "staged_file") return ReadString(value, key, out.staged_file.emplace());
  if (key == "endpoint") return ReadString(value, key, out.endpoint);
  if (key == "credentials") return ReadCredentials(value, out.credentials);
  return UnknownField("", key, kTopFields);
}

// An append: inline actions and the read version, no version of its own.
StatusOr<CommitBody> CheckAppend(const json& parsed, CommitBody& out) {
  if (parsed.contains("version")) {
    return InvalidArgumentError(
        "an append (\"append\": true) has no field \"version\": the service assigns it");
  }
  if (out.staged_file || !out.actions) {
    return InvalidArgumentError(
        "an append sends its commit's JSON lines in field \"actions\" (not \"staged_file\")");
  }
  if (!parsed.contains("read_version")) {
    return InvalidArgumentError(
        "missing field \"read_version\": the table version the append's files were written "
        "for");
  }
  return std::move(out);
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

json CredentialsJson(const RequestCredentials& c) {
  json out = {{"access_key_id", c.access_key_id}, {"secret_access_key", c.secret_access_key}};
  if (!c.session_token.empty()) out["session_token"] = c.session_token;
  if (c.expiration) out["expiration"] = *c.expiration;
  return out;
}

}  // namespace

std::string SerializeCommitBody(const CommitBody& commit) {
  json body = {{"table", commit.table}};
  if (commit.credentials) body["credentials"] = CredentialsJson(*commit.credentials);
  if (commit.append) {
    body["append"] = true;
    body["read_version"] = commit.read_version;
  } else {
    body["version"] = commit.version;
  }
  if (commit.actions) body["actions"] = *commit.actions;
  if (commit.staged_file) body["staged_file"] = *commit.staged_file;
  if (!commit.endpoint.empty()) body["endpoint"] = commit.endpoint;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

StatusOr<CommitBody> ParseCommitBody(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json parsed, ParseJsonObject(body, kMaxDepth, "a commit"));
  CommitBody out;
  for (const auto& [key, value] : parsed.items()) {
    DC_RETURN_IF_ERROR(ReadField(key, value, out));
  }
  if (!parsed.contains("table")) return InvalidArgumentError("missing field \"table\"");
  if (out.append) return CheckAppend(parsed, out);
  if (parsed.contains("read_version")) {
    return InvalidArgumentError(
        "field \"read_version\" is for an append (\"append\": true); a commit with a "
        "version checks conflicts itself");
  }
  if (!parsed.contains("version")) return InvalidArgumentError("missing field \"version\"");
  if (out.actions.has_value() == out.staged_file.has_value()) {
    return InvalidArgumentError(
        out.actions ? "send either \"actions\" (service mode) or \"staged_file\" "
                      "(coordinated mode), not both"
                    : "missing field \"actions\" (service mode: the commit's JSON lines) or "
                      "\"staged_file\" (coordinated mode: the staged commit's key)");
  }
  return out;
}

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

CommitBody ToCommitBody(const ServiceCommitRequest& request,
                        const aws::Credentials* credentials, std::string_view endpoint) {
  CommitBody out;
  out.table = request.table;
  out.version = request.append ? -1 : request.version;
  out.append = request.append;
  out.read_version = request.append ? request.read_version : -1;
  if (!request.actions.empty()) {
    out.actions = request.actions;
  } else {
    out.staged_file = request.staged_file;
  }
  if (credentials != nullptr) out.credentials = ToRequestCredentials(*credentials);
  out.endpoint = endpoint;
  return out;
}

RequestCredentials ToRequestCredentials(const aws::Credentials& credentials) {
  RequestCredentials out;
  out.access_key_id = credentials.access_key_id;
  out.secret_access_key = credentials.secret_access_key;
  out.session_token = credentials.session_token;
  if (credentials.expiration_ms) {
    out.expiration = aws::internal::FormatUtc(*credentials.expiration_ms);
  }
  return out;
}

StatusOr<aws::Credentials> ToAwsCredentials(const RequestCredentials& sent) {
  aws::Credentials out;
  out.source = "request";
  out.access_key_id = sent.access_key_id;
  out.secret_access_key = sent.secret_access_key;
  out.session_token = sent.session_token;
  if (sent.expiration) {
    out.expiration_ms = aws::internal::ParseIso8601(*sent.expiration);
    if (!out.expiration_ms) {
      return InvalidArgumentError("credentials.expiration " +
                                  QuoteForMessage(*sent.expiration, 40) +
                                  " is not an RFC 3339 time such as 2026-11-29T23:00:00Z");
    }
  }
  return out;
}

}  // namespace deltacommit::service_wire
