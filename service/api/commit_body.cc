#include "service/api/commit_body.h"

#include <limits>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "deltacommit/aws/credentials_internal.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {
namespace {

using nlohmann::json;

// Nesting deeper than a commit body ever has is refused while parsing (and
// not even built), so a hostile body cannot make destruction recurse deeply.
constexpr int kMaxDepth = 4;

constexpr std::string_view kTopFields =
    "table, version, actions or staged_file, credentials, endpoint; append and read_version "
    "for an append";
constexpr std::string_view kCredentialFields =
    "access_key_id, secret_access_key, session_token, expiration";

std::string JsonTypeName(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a fraction";
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    default: return "a number";
  }
}

Status WrongType(std::string_view field, std::string_view wanted, const json& value) {
  return InvalidArgumentError("field \"" + std::string(field) + "\" must be " +
                              std::string(wanted) + ", not " + JsonTypeName(value));
}

// Repeated keys (which nlohmann would silently resolve to the last one) and
// nesting beyond kMaxDepth, seen while parsing.
struct ShapeCheck {
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::optional<std::string> repeated;
  bool too_deep = false;

  bool Visit(int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) {
      too_deep = true;
      return false;  // not stored
    }
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && !repeated) {
      repeated = parsed.get<std::string>();
    }
    return true;
  }
};

StatusOr<json> ParseObject(std::string_view body) {
  ShapeCheck shape;
  json parsed;
  try {
    parsed = json::parse(
        body, [&shape](int depth, json::parse_event_t event, json& value) {
          return shape.Visit(depth, event, value);
        });
  } catch (const json::parse_error& e) {
    // e.what() quotes the text around the error, which may be a secret.
    // The parser counts bytes from 1, and one past the end when the body
    // stops short.
    const std::string where = e.byte > body.size()
                                  ? "it ends early, after " + std::to_string(body.size()) + " bytes"
                                  : "error at byte " + std::to_string(e.byte) + " of " +
                                        std::to_string(body.size());
    return InvalidArgumentError("the body is not valid JSON (" + where +
                                "); send one JSON object (Content-Type: application/json)");
  } catch (const json::out_of_range&) {
    // A number beyond what a double holds (e.g. 6e424242); found by the
    // commit_body fuzzer. No field of a commit takes such a number.
    return InvalidArgumentError("the body holds a number out of range; send one JSON object "
                                "(Content-Type: application/json)");
  }
  if (shape.too_deep) {
    return InvalidArgumentError("the body nests objects or arrays more than " +
                                std::to_string(kMaxDepth) + " deep; no field of a commit does");
  }
  if (shape.repeated) {
    return InvalidArgumentError("field " + QuoteForMessage(*shape.repeated, 64) +
                                " appears more than once");
  }
  if (!parsed.is_object()) {
    return InvalidArgumentError("the body must be a JSON object, not " + JsonTypeName(parsed));
  }
  return parsed;
}

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

Status ReadCredentials(const json& value, CommitBody& out) {
  if (!value.is_object()) return WrongType("credentials", "an object", value);
  aws::Credentials& c = out.credentials;
  c.source = "request";
  out.has_credentials = true;
  for (const auto& [key, field] : value.items()) {
    const std::string name = "credentials." + key;
    if (key == "access_key_id") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.access_key_id));
    } else if (key == "secret_access_key") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.secret_access_key));
    } else if (key == "session_token") {
      DC_RETURN_IF_ERROR(ReadString(field, name, c.session_token));
    } else if (key == "expiration") {
      std::string text;
      DC_RETURN_IF_ERROR(ReadString(field, name, text));
      c.expiration_ms = aws::internal::ParseIso8601(text);
      if (!c.expiration_ms) {
        out.credentials_problem = "credentials.expiration " + QuoteForMessage(text, 40) +
                                  " is not an RFC 3339 time such as 2026-11-29T23:00:00Z";
      }
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
  if (key == "credentials") return ReadCredentials(value, out);
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

}  // namespace

StatusOr<CommitBody> ParseCommitBody(std::string_view body) {
  DC_ASSIGN_OR_RETURN(json parsed, ParseObject(body));
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

}  // namespace deltacommit::service
