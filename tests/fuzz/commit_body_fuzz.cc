// Fuzz target: the body of the commit service's `POST /v1/commits`
// (service_wire::ParseCommitBody, src/service_wire/commit_body.cc), then
// what the handler checks next: the credentials' expiration
// (service_wire::ToAwsCredentials), the table URI
// (service::NormalizeTableUri), a staged commit's key
// (service::ValidateStagedCommitKey) and the actions (ActionParser).
// Invariants: no message quotes the request's secret key or session token;
// an accepted body is either an append (no version) or a versioned commit,
// with exactly one of actions and staged_file, and the client's serialiser
// writes it back as a body that parses to the same value; a normalised table
// URI normalises to itself.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "deltacommit/action_json.h"
#include "deltacommit/service_wire/commit_body.h"
#include "fuzz_check.h"
#include "service/config/table_uri.h"

namespace {

using namespace deltacommit;

// One of the messages a request body can produce ("" for none).
using MessageOf = std::function<std::string(std::string_view body)>;

std::string ParseMessage(std::string_view body) {
  StatusOr<service_wire::CommitBody> parsed = service_wire::ParseCommitBody(body);
  return parsed.ok() ? std::string() : parsed.status().message();
}

std::string CredentialsProblem(std::string_view body) {
  StatusOr<service_wire::CommitBody> parsed = service_wire::ParseCommitBody(body);
  if (!parsed.ok() || !parsed->credentials) return std::string();
  return service_wire::ToAwsCredentials(*parsed->credentials).status().message();
}

std::string StagedKeyMessage(std::string_view body) {
  StatusOr<service_wire::CommitBody> parsed = service_wire::ParseCommitBody(body);
  if (!parsed.ok() || !parsed->staged_file) return std::string();
  return service::ValidateStagedCommitKey(*parsed->staged_file, parsed->version).message();
}

// True when the message `message_of` gives for `body` quotes the value of
// credentials field `name`: the body holds `"name":"value"` (compact, no
// escapes; other spellings are not checked), the message contains the value,
// and it changes when only that value changes. A fixed phrase of the
// messages, or another field with the same text, is not a leak.
bool Quotes(std::string_view body, std::string_view name, const MessageOf& message_of) {
  const std::string message = message_of(body);
  const nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("credentials")) return false;
  const nlohmann::json& credentials = json["credentials"];
  if (!credentials.is_object() || !credentials.contains(name)) return false;
  const nlohmann::json& field = credentials[std::string(name)];
  if (!field.is_string()) return false;
  const std::string secret = field.get<std::string>();
  if (secret.size() < 8 || message.find(secret) == std::string::npos) return false;
  const std::string member = "\"" + std::string(name) + "\":\"" + secret + "\"";
  const size_t at = body.find(member);
  if (at == std::string_view::npos) return false;
  std::string changed(body);
  const size_t value_at = at + member.size() - 1 - secret.size();
  for (size_t i = 0; i < secret.size(); ++i) {
    changed[value_at + i] = secret[i] == 'q' ? 'z' : 'q';
  }
  return message_of(changed) != message;
}

void CheckNoSecretIn(std::string_view body, const MessageOf& message_of) {
  FUZZ_CHECK(!Quotes(body, "secret_access_key", message_of));
  FUZZ_CHECK(!Quotes(body, "session_token", message_of));
}

// What the service read, written again as the client writes it, reads back
// the same (the parser takes only valid UTF-8, so the writer replaces
// nothing).
void CheckRoundTrip(const service_wire::CommitBody& body) {
  StatusOr<service_wire::CommitBody> again =
      service_wire::ParseCommitBody(service_wire::SerializeCommitBody(body));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == body);
}

void CheckTable(const std::string& table) {
  StatusOr<service::TableUri> uri = service::NormalizeTableUri(table);
  if (!uri.ok()) return;
  FUZZ_CHECK(uri->uri.starts_with("s3://" + uri->bucket));
  StatusOr<service::TableUri> again = service::NormalizeTableUri(uri->uri);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *uri);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<service_wire::CommitBody> body = service_wire::ParseCommitBody(text);
  if (!body.ok()) {
    FUZZ_CHECK(body.status().code() == StatusCode::kInvalidArgument);
    CheckNoSecretIn(text, ParseMessage);
    return 0;
  }
  FUZZ_CHECK(body->actions.has_value() != body->staged_file.has_value());
  FUZZ_CHECK(body->append ? body->version == -1 && body->read_version >= 0
                          : body->version >= 0);
  CheckRoundTrip(*body);
  if (body->credentials && !service_wire::ToAwsCredentials(*body->credentials).ok()) {
    CheckNoSecretIn(text, CredentialsProblem);
  }
  CheckTable(body->table);
  if (body->staged_file) {
    CheckNoSecretIn(text, StagedKeyMessage);
  }
  if (body->actions) {
    ActionParser parser;
    (void)parser.ParseCommit(*body->actions);
  }
  return 0;
}
